/** The `user` / `project` / `local` vocabulary of settingSources, agentSources, skillSources, memorySources. */
import { statSync } from "node:fs";
import { z } from "zod";
import { isProjectFileTrusted, type ProjectTrust } from "../../../loader/index";

/** A conventional place to read from. */
export type Source = "user" | "project" | "local";

/** Weakest first: a later source wins a name (or has the last word). */
export const SOURCE_ORDER: readonly Source[] = ["user", "project", "local"];

/** The option that lists the sources a plugin reads (`settingSources`, `skillSources`, …). */
export const SourcesSchema = z.array(z.enum(["user", "project", "local"]));

/** The asked-for sources in canonical order, whatever order the option lists them in. */
export function orderedSources(wanted: readonly string[] | undefined): Source[] {
  const set = new Set(wanted ?? []);
  return SOURCE_ORDER.filter((s) => set.has(s));
}

/**
 * The sources a run may read. Without trust (`trust: false`, set by the runner for a folder the
 * user has not trusted) only the user's own files apply: project and local files are the
 * folder's, and a cloned repository's agents, skills and memory must not steer the agent. Under
 * approved digests (`TrustPins`) a project or local source applies only when its folder
 * (`pathOf(source)`) is unchanged since it was approved; `skipped` hears each one that is not.
 */
export function permittedSources(
  wanted: readonly string[] | undefined,
  trust: ProjectTrust | undefined,
  pathOf?: (source: "project" | "local") => string,
  skipped?: (path: string) => void,
): readonly string[] | undefined {
  if (trust === undefined || trust === true) return wanted;
  return wanted?.filter((s) => {
    if (s === "user") return true;
    if (trust === false || !pathOf || (s !== "project" && s !== "local")) return false;
    const path = pathOf(s);
    if (isProjectFileTrusted(trust, path)) return true;
    if (pathExistsQuietly(path)) skipped?.(path);
    return false;
  });
}

function pathExistsQuietly(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Agent and skill definition files are a few kilobytes; a larger file is not one (and is not read). */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

// Letters, digits, `_` and `-`, like a tool name: a name is listed in a tool description (the
// Agent and Skill tools), so a space, slash or newline in it could forge a listing entry.
const DEFINITION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `name` cannot name an agent or a skill, or undefined when it can. */
export function definitionNameProblem(name: string): string | undefined {
  if (DEFINITION_NAME.test(name)) return undefined;
  return `its name ${JSON.stringify(name)} is not an identifier: use 1-64 letters, digits, "_" or "-" (no spaces, slashes or newlines)`;
}
