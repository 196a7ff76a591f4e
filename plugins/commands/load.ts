/**
 * Finding command files: every `*.md` under a commands folder, at any depth. A file's path under
 * its folder names it, subfolders joined by `:` (`frontend/component.md` → `/frontend:component`),
 * as Claude Code names them. Later folders win a name: user < project < local < the option's.
 */
import { readdir, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { toolRules } from "../_kits/sources/index";
export { toolRules };
import { absolutePath } from "../../src/index";
import { readRegularFileSync } from "../../loader/index";
import {
  splitFrontmatter,
  definitionNameProblem,
  MAX_DEFINITION_BYTES,
  orderedSources,
  type Source,
} from "../_kits/sources/index";
import type { SlashCommand } from "./command";
import { expandPluginRoot } from "../_kits/sources/index";

/** The folder of command files a source means. */
export function commandFolder(source: Source, cwd: string, home: string): string {
  if (source === "user") return join(home, ".ubiquity", "commands");
  if (source === "project") return join(cwd, ".ubiquity", "commands");
  return join(cwd, ".ubiquity", "commands.local");
}

// A deep or looping tree is not a commands folder: stop at this depth.
const MAX_DEPTH = 8;

/** Every `.md` file under `root`, sorted, with its path relative to `root`. */
async function markdownFiles(root: string, depth = 0): Promise<string[]> {
  if (depth > MAX_DEPTH) return [];
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) files.push(...(await markdownFiles(path, depth + 1)));
    else if (entry.isFile() && entry.name.endsWith(".md")) files.push(path);
  }
  return files;
}

/**
 * Claude Code fields of a command file (commands and skills share one frontmatter there) that a
 * command here has no equivalent for: said when a file sets them, never dropped in silence (the
 * command runs inline, as one without them does).
 */
export const UNAPPLIED_COMMAND_FIELDS: Readonly<Record<string, string>> = {
  context: "it runs in the conversation, not in a forked subagent",
  agent: "no forked subagent runs it",
  hooks: "hooks scoped to the command do not run",
  effort: "the run's reasoning level applies",
};

/** Agents' tool lists, which a command file does not read (it reads `allowed-tools`). */
const AGENT_ONLY_FIELD = /^(tools|disallowed[-_]?tools)$/i;

const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : undefined);

/**
 * Why one segment of a command file's path cannot be part of its name. In Claude Code's folders a
 * file name may hold `:` (`srp:gh.md`, `svelte:a11y.md`: Claude Code names the command after the
 * file, and SerendipityOneInc's marketplace and qdhenry/Claude-Command-Suite document them as
 * `/srp:gh`, `/svelte:a11y`), so each part between colons must be an identifier there.
 */
function segmentProblem(segment: string, claude: boolean): string | undefined {
  if (!claude || !segment.includes(":")) return definitionNameProblem(segment);
  return segment.split(":").some((part) => definitionNameProblem(part)) ? definitionNameProblem(segment) : undefined;
}

/** Read one command file; a problem is reported and the file skipped. `flat`: named by its file alone; `claude`: a Claude Code folder. */
function readCommand(
  file: string,
  root: string,
  source: SlashCommand["source"],
  report: (m: string) => void,
  plugin?: CommandRoot["plugin"],
  flat = false,
  claude = false,
): SlashCommand | undefined {
  const path = relative(root, file).slice(0, -".md".length).split(sep);
  const problem = path.map((segment) => segmentProblem(segment, claude)).find(Boolean);
  if (problem) {
    report(`skipped the command file ${file}: ${problem}`);
    return undefined;
  }
  // Only a regular file of at most 1 MiB: a FIFO planted as a command must not hang the run.
  const read = readRegularFileSync(file, MAX_DEFINITION_BYTES);
  if (!read.ok) {
    report(`skipped the command file ${file}: ${read.missing ? "it could not be read (ENOENT)" : read.problem}`);
    return undefined;
  }
  const split = splitFrontmatter(read.text);
  if (!split.ok) {
    report(`skipped the command file ${file}: ${split.problem}`);
    return undefined;
  }
  const { data } = split;
  const unapplied = Object.keys(UNAPPLIED_COMMAND_FIELDS).filter((key) => key in data);
  if (unapplied.length)
    report(
      `command file ${file}: ${unapplied.map((f) => `${f} (${UNAPPLIED_COMMAND_FIELDS[f]})`).join(", ")}: Claude Code field${unapplied.length > 1 ? "s" : ""} ubiquity does not apply; the command runs without ${unapplied.length > 1 ? "them" : "it"}`,
    );
  // An agent's `tools:` written in a command (ubehera/claude-agents-pro's: `tools: Task, Bash(npm test:*)`):
  // Claude Code reads `allowed-tools` there, so it grants and limits nothing; said, never dropped in silence.
  const agentFields = Object.keys(data).filter((key) => AGENT_ONLY_FIELD.test(key));
  if (agentFields.length)
    report(
      `command file ${file}: ${agentFields.join(", ")} ${agentFields.length > 1 ? "are fields" : "is a field"} of agents, not of commands, and ${agentFields.length > 1 ? "are" : "is"} ignored (as Claude Code ignores ${agentFields.length > 1 ? "them" : "it"}): the command pre-approves nothing and limits nothing; name the tools it may use without asking with allowed-tools`,
    );
  const body = plugin ? expandPluginRoot(split.body.trim(), plugin.root) : split.body.trim();
  // Claude Code describes a command without a description by its first line.
  const description =
    text(data.description) ??
    body
      .split("\n")
      .find((l) => l.trim())
      ?.trim()
      .replace(/^#+\s*/, "") ??
    "";
  const argumentHint = text(data["argument-hint"] ?? data.argumentHint);
  const model = text(data.model);
  // A plugin's rules name its scripts through `${CLAUDE_PLUGIN_ROOT}` too (`Bash(python3 "${CLAUDE_PLUGIN_ROOT}/scripts/x.py" *)`).
  const allowedTools = toolRules(data["allowed-tools"] ?? data.allowedTools)?.map((rule) =>
    plugin ? expandPluginRoot(rule, plugin.root) : rule,
  );
  const segments = flat ? path.slice(-1) : path;
  return {
    name: [...(plugin ? [plugin.name] : []), ...segments].join(":"),
    description,
    ...(argumentHint ? { argumentHint } : {}),
    ...(model ? { model } : {}),
    ...(allowedTools?.length ? { allowedTools } : {}),
    body,
    file,
    source,
  };
}

/** A folder to read commands from: its path and source; `written` when the caller named it (a missing one is reported). */
export interface CommandRoot {
  path: string;
  source: SlashCommand["source"];
  written?: string;
  /** A Claude Code plugin's: its name prefixes the command names, its folder is `${CLAUDE_PLUGIN_ROOT}`. */
  plugin?: { name: string; root: string };
  /**
   * Claude Code's folder (`.claude/commands`, a plugin's): a file in a subfolder is named by its
   * file alone, as Claude Code names it (`ci/build.md` is `/build`), unless another file of the
   * folder has that name too (then both keep `ci:build`, so neither is lost).
   */
  claude?: boolean;
}

/** The files of a Claude Code folder that are named by their file alone: those whose name no other file of the folder has. */
function flatNames(root: string, files: readonly string[]): Set<string> {
  const base = (file: string) => relative(root, file).slice(0, -".md".length).split(sep).at(-1)!;
  const count = new Map<string, number>();
  for (const file of files) count.set(base(file), (count.get(base(file)) ?? 0) + 1);
  return new Set(files.filter((file) => count.get(base(file)) === 1));
}

/** The roots the options ask for, weakest first (another tool's folder just before ours of the same source). */
export function commandRoots(
  options: {
    commands?: readonly string[];
    commandSources?: readonly string[];
    compatRoots?: readonly { path: string; source: Source }[];
  },
  place: { cwd: string; home: string },
): CommandRoot[] {
  const rank = (source: SlashCommand["source"]) => ["user", "project", "local", "commands", "plugin"].indexOf(source);
  return [
    ...(options.compatRoots ?? []).map((r) => ({ path: r.path, source: r.source, claude: true })),
    ...orderedSources(options.commandSources).map((source) => ({
      path: commandFolder(source, place.cwd, place.home),
      source,
    })),
    ...(options.commands ?? []).map((written) => ({
      path: absolutePath(place.cwd, written),
      source: "commands" as const,
      written,
    })),
  ].sort((a, b) => rank(a.source) - rank(b.source));
}

/** Load the command files under `roots`, sorted by name; a later root wins a name. */
export async function loadCommands(
  roots: readonly CommandRoot[],
  report: (message: string) => void,
): Promise<SlashCommand[]> {
  const byName = new Map<string, SlashCommand>();
  for (const root of roots) {
    const found = await stat(root.path).catch(() => undefined);
    // A plugin's manifest may name one command file rather than a folder: it is named after its file.
    const single = root.plugin !== undefined && found?.isFile() === true && root.path.endsWith(".md");
    if (!found?.isDirectory() && !single) {
      if (root.written !== undefined)
        report(`commands: ${root.written} (${root.path}) is not a folder; name a folder of command files (name.md)`);
      continue;
    }
    const files = single ? [root.path] : await markdownFiles(root.path);
    const flat = root.claude || root.plugin ? flatNames(root.path, files) : new Set<string>();
    for (const file of files) {
      const base = single ? dirname(root.path) : root.path;
      const claude = root.claude === true || root.plugin !== undefined;
      const command = readCommand(file, base, root.source, report, root.plugin, flat.has(file), claude);
      if (command) byName.set(command.name, root.claude || root.plugin ? { ...command, claude: true } : command);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
