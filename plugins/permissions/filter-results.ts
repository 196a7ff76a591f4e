/**
 * A `Read(...)` deny stops Grep and Glob for each file they would return, not only for the
 * folder searched: lines of their output that name a denied file are removed (after the search,
 * before the model sees them), and a note says how many were withheld.
 */
import { resolve } from "node:path";
import type { ToolOutput } from "../../src/index";
import { judgePath } from "./paths";
import type { CompiledRule } from "./policy";
import type { Place } from "./subject";

/** The tools whose results name other files: a Read rule names them too, and a Read deny applies to each file named. */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["Grep", "Glob", "LSP"]);

/** Output lines start with a path: the whole line (files), or a prefix ending at `:` / `-` (content, count). */
function namesDenied(line: string, rules: readonly CompiledRule[], place: Place): boolean {
  const ends = [line.length];
  for (let i = 1; i < line.length; i++) if (line[i] === ":" || line[i] === "-") ends.push(i);
  return ends.some((end) => denied(line.slice(0, end), rules, place));
}

/** Does a Read deny rule forbid the file at `path`? */
function denied(path: string, rules: readonly CompiledRule[], place: Place): boolean {
  const judged = judgePath(place.cwd, place.home, resolve(place.cwd, path));
  return rules.some((r) => r.path?.(judged.absolute) || (judged.real !== undefined && r.path?.(judged.real)));
}

/**
 * The metadata key under which a tool says, for each line of its content, the files the line
 * names (null: a place or text that cannot be judged). LSP answers carry it.
 */
export const NAMED_FILES = "namedFiles";

/**
 * The lines of a result that says which files each line names: a line naming a denied file, or
 * naming what cannot be judged, is withheld; a result whose lines and list disagree (or that
 * has no list) is withheld whole.
 */
function withholdNamed(output: ToolOutput, rules: readonly CompiledRule[], place: Place): ToolOutput {
  const lines = output.content.split("\n");
  const named = output.metadata?.[NAMED_FILES];
  const fits =
    Array.isArray(named) &&
    named.length === lines.length &&
    named.every((f) => f === null || (Array.isArray(f) && f.every((p) => typeof p === "string")));
  const list = fits ? (named as (string[] | null)[]) : [];
  let unjudged = 0;
  const keep = lines.map((_, i) => {
    const files = list[i];
    if (files === null || files === undefined) {
      unjudged++;
      return false;
    }
    return !files.some((path) => denied(path, rules, place));
  });
  const kept = lines.filter((_, i) => keep[i]);
  const withheld = lines.length - kept.length;
  if (withheld === 0) return output;
  const s = (n: number) => (n === 1 ? "" : "s");
  const note =
    unjudged === 0
      ? `[${withheld} result line${s(withheld)} withheld: a Read deny rule forbids the files they name.]`
      : `[${withheld} result line${s(withheld)} withheld: a Read deny rule forbids the files they name, or (${unjudged} of them) they name a place or text that cannot be judged against it.]`;
  // The list stays line for line with what is left (the note's lines name nothing).
  const files = kept.length > 0 ? list.filter((_, i) => keep[i]) : [[]];
  return {
    ...output,
    content: [kept.join("\n") || "(no results left)", note].join("\n\n"),
    metadata: { ...output.metadata, [NAMED_FILES]: [...files, [], []] },
  };
}

/**
 * Remove the lines of a Grep/Glob/LSP result that name a file a Read deny rule forbids. With
 * `byNamedFiles` (LSP), each line is judged by the files the tool's metadata says it names.
 */
export function withholdDenied(
  output: ToolOutput,
  rules: readonly CompiledRule[],
  place: Place,
  byNamedFiles = false,
): ToolOutput {
  if (output.isError || rules.length === 0) return output;
  if (byNamedFiles) return withholdNamed(output, rules, place);
  // Every line is judged, notes too: a file name with a blank line in it (`a\n\nb`) made the
  // rest of the result look like notes, which were passed unread (red team i, I1).
  const lines = output.content.split("\n");
  const kept = lines.filter((line) => line === "--" || line === "" || !namesDenied(line, rules, place));
  const withheld = lines.length - kept.length;
  if (withheld === 0) return output;
  const note = `[${withheld} result line${withheld === 1 ? "" : "s"} withheld: a Read deny rule forbids the files they name.]`;
  const left = kept.join("\n").trim();
  return { ...output, content: [left || "(no results left)", note].join("\n\n") };
}
