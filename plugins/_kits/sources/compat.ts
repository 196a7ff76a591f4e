/**
 * `compat`: the other tools whose files the sources read — Claude Code's (`CLAUDE.md`,
 * `.claude/…`) and Codex's (`AGENTS.md`, `.agents/skills`). One table says which file each source
 * means for each tool, so the plugins that read them, the trust question and the README agree.
 * Nothing is read unless `compat` names the tool; the files are then project files like ours:
 * the same trust (and digests) applies to each.
 */
import { join } from "node:path";
import { z } from "zod";
import {
  isProjectFileTrusted,
  type ProjectFile,
  type ProjectPlace,
  type ProjectTrust,
  pathExists,
  UsageError,
} from "../../../loader/index";
import { orderedSources, type Source } from "./sources";

/** The tools whose files `compat` can read. */
export const COMPAT_TOOLS = ["claude", "codex"] as const;
export type CompatTool = (typeof COMPAT_TOOLS)[number];

/**
 * A `--compat` flag's value (`claude`, `codex`, `claude,codex`): the tools, or a usage error
 * naming the ones there are. One reading for `run --compat` and every command that reads a setup.
 */
export function parseCompatFlag(value: string): CompatTool[] {
  const tools = value.split(/[,\s]+/).filter(Boolean);
  for (const t of tools) {
    if (!(COMPAT_TOOLS as readonly string[]).includes(t))
      throw new UsageError(`--compat must name ${COMPAT_TOOLS.join(", ")} (comma-separated), not ${JSON.stringify(t)}`);
  }
  return tools as CompatTool[];
}

/** The `compat` option. */
export const CompatSchema = z
  .array(z.enum(COMPAT_TOOLS))
  .describe(
    'Read other tools\' files too: "claude" (CLAUDE.md, CLAUDE.local.md, .claude/{settings,skills,agents,commands,rules}, ~/.claude/…), "codex" (AGENTS.md or AGENTS.override.md, .agents/skills and .codex/skills, .codex/config.toml, hooks.json and agents/*.toml, ~/.codex/…). Each plugin reads them from its own sources (memorySources, skillSources, agentSources, commandSources, settingSources), or from all three when that option is unset [[]]',
  );

/** What a plugin reads of another tool's files. */
export type CompatKind = "memory" | "skills" | "agents" | "commands" | "settings";

/** One place another tool keeps a kind of file: under the home folder (user) or a project folder. */
interface CompatPlace {
  tool: CompatTool;
  source: Source;
  /** Path parts under the home folder (user) or under each project folder (project, local). */
  parts: readonly string[];
  /**
   * The file this one is read in place of, in the same folder: Codex reads `AGENTS.override.md`
   * instead of `AGENTS.md` (see `chooseAlternatives`).
   */
  insteadOf?: string;
}

const place = (tool: CompatTool, source: Source, ...parts: string[]): CompatPlace => ({ tool, source, parts });
const override = (tool: CompatTool, source: Source, insteadOf: string, ...parts: string[]): CompatPlace => ({
  ...place(tool, source, ...parts),
  insteadOf,
});

/**
 * Every file and folder read under `compat`, weakest first within a source. Memory files of the
 * project and local sources are looked for in every folder from the root down to the cwd (as
 * CLAUDE.md and AGENTS.md are); the rest in the cwd only.
 */
export const COMPAT_PLACES: Readonly<Record<CompatKind, readonly CompatPlace[]>> = {
  memory: [
    place("claude", "user", ".claude", "CLAUDE.md"),
    override("codex", "user", "AGENTS.md", ".codex", "AGENTS.override.md"),
    place("codex", "user", ".codex", "AGENTS.md"),
    place("claude", "project", "CLAUDE.md"),
    place("claude", "project", ".claude", "CLAUDE.md"),
    override("codex", "project", "AGENTS.md", "AGENTS.override.md"),
    place("codex", "project", "AGENTS.md"),
    place("claude", "local", "CLAUDE.local.md"),
  ],
  skills: [
    place("claude", "user", ".claude", "skills"),
    // Codex's first place for skills, `$CODEX_HOME/skills` and a project's `.codex/skills` (still read
    // next to `.agents/skills`, which wins a name): ~/.codex/skills/<name>/SKILL.md was skipped in silence.
    place("codex", "user", ".codex", "skills"),
    place("codex", "user", ".agents", "skills"),
    place("claude", "project", ".claude", "skills"),
    place("codex", "project", ".codex", "skills"),
    place("codex", "project", ".agents", "skills"),
  ],
  agents: [
    place("claude", "user", ".claude", "agents"),
    // Codex's custom agents (`<name>.toml`), the user's and the project's.
    place("codex", "user", ".codex", "agents"),
    place("claude", "project", ".claude", "agents"),
    place("codex", "project", ".codex", "agents"),
  ],
  commands: [
    place("claude", "user", ".claude", "commands"),
    // Codex's custom prompts, `/prompts:<name>`: the user's only (Codex reads no project prompts).
    place("codex", "user", ".codex", "prompts"),
    place("claude", "project", ".claude", "commands"),
  ],
  settings: [
    place("claude", "user", ".claude", "settings.json"),
    place("codex", "user", ".codex", "config.toml"),
    // Codex's hooks, next to each config.toml: the same shape as Claude Code's `hooks`.
    place("codex", "user", ".codex", "hooks.json"),
    place("claude", "project", ".claude", "settings.json"),
    place("codex", "project", ".codex", "config.toml"),
    place("codex", "project", ".codex", "hooks.json"),
    place("claude", "local", ".claude", "settings.local.json"),
  ],
};

/** A path another tool's file would be read from, with its source and tool. */
export interface CompatPath {
  path: string;
  source: Source;
  tool: CompatTool;
  /** The folder it belongs to (home, or the project folder it was found in). */
  folder: string;
  /** The file of the same folder it is read in place of, when it is there (`AGENTS.override.md`). */
  insteadOf?: string;
}

/**
 * The sources a plugin reads another tool's files from: its own option when set (the same
 * sources as ours), else all three when `compat` names a tool, else none.
 */
export function compatSources(own: readonly string[] | undefined, compat: readonly string[] | undefined): Source[] {
  if (!compat?.length) return [];
  return orderedSources(own ?? ["user", "project", "local"]);
}

/**
 * The paths of `kind` that `compat` asks for, weakest first: user, then project, then local.
 * `folders` are the project folders to look in, weakest (outermost) first [the cwd only].
 */
export function compatPaths(
  kind: CompatKind,
  options: { compat?: readonly string[]; sources: readonly string[] | undefined },
  where: { cwd: string; home: string; folders?: readonly string[] },
): CompatPath[] {
  const tools = new Set(options.compat ?? []);
  const out: CompatPath[] = [];
  for (const source of compatSources(options.sources, options.compat)) {
    const folders = source === "user" ? [where.home] : (where.folders ?? [where.cwd]);
    for (const folder of folders) {
      for (const p of COMPAT_PLACES[kind]) {
        if (p.source === source && tools.has(p.tool))
          out.push({
            path: join(folder, ...p.parts),
            source,
            tool: p.tool,
            folder,
            ...(p.insteadOf ? { insteadOf: join(folder, ...p.parts.slice(0, -1), p.insteadOf) } : {}),
          });
      }
    }
  }
  return out;
}

/**
 * One file of each set of alternatives, as Codex picks them: an override (`AGENTS.override.md`)
 * that is `present` is read and the file it replaces is not; an absent one is dropped. Codex
 * takes the override when it exists in a project folder and when it is not blank in its home
 * folder: `present` says which (see memory's `overridePresent`).
 */
export function chooseAlternatives<T extends CompatPath>(paths: readonly T[], present: (path: T) => boolean): T[] {
  const replaced = new Set(paths.filter((p) => p.insteadOf && present(p)).map((p) => p.insteadOf));
  return paths.filter((p) => (p.insteadOf ? replaced.has(p.insteadOf) : !replaced.has(p.path)));
}

/**
 * Whether another tool's file applies under `trust`, as ours do: the user's own always; a
 * project or local one only in a trusted folder — under approved digests, only while unchanged.
 */
export function compatPathTrusted(trust: ProjectTrust | undefined, path: CompatPath): boolean {
  return path.source === "user" || isProjectFileTrusted(trust, path.path);
}

/** Every project-side path of `kind` for the trust question (all tools, the cwd only). */
export function compatProjectPaths(
  kind: CompatKind,
  cwd: string,
  folders: readonly string[] = [cwd],
): { path: string; tool: CompatTool }[] {
  return COMPAT_PLACES[kind]
    .filter((p) => p.source !== "user")
    .flatMap((p) => folders.map((f) => ({ path: join(f, ...p.parts), tool: p.tool })));
}

/**
 * A definition folder's project files for the trust question (agents, skills, commands): our
 * project and local folders that exist, and every other tool's folder of the same kind that
 * exists, saying which `compat` makes it apply.
 */
export function definitionProjectFiles(
  kind: CompatKind,
  folderOf: (source: Source, cwd: string, home: string) => string,
  effect: string,
  { cwd, home }: ProjectPlace,
): ProjectFile[] {
  // Ours are read only where the run's own option asks (`commandSources: ["project"]`): say so, as
  // the other tools' files say the compat that reads them ("now apply" alone was not true).
  const option = `${kind.replace(/s$/, "")}Sources`;
  const ours = (["project", "local"] as const)
    .map((source) => ({ path: folderOf(source, cwd, home), source }))
    .filter((p) => pathExists(p.path))
    .map(({ path, source }) => ({ path, kind, effect: `${effect} (with ${option}: ["${source}"])` }));
  const others = compatProjectPaths(kind, cwd)
    .filter((p) => pathExists(p.path))
    .map((p) => ({ path: p.path, kind, effect: `${effect} (with compat: ["${p.tool}"])`, compat: p.tool }));
  return [...ours, ...others];
}

/**
 * The paths of `kind` that apply in this run: `compatPaths` less the project and local ones trust
 * keeps out (all of them in an untrusted folder; under approved digests, each new or changed one).
 */
export function permittedCompatPaths(
  kind: CompatKind,
  options: { compat?: readonly string[]; sources: readonly string[] | undefined; trust: ProjectTrust | undefined },
  where: { cwd: string; home: string; folders?: readonly string[] },
  skipped?: (path: string) => void,
): CompatPath[] {
  return compatPaths(kind, options, where).filter((p) => {
    if (compatPathTrusted(options.trust, p)) return true;
    skipped?.(p.path);
    return false;
  });
}
