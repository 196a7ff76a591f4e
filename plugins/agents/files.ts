/**
 * Agent files of `agentSources`: markdown files under each source's folder, subfolders
 * included, read in sorted order (the definitions end up in the Agent tool's description,
 * which sits in the cached prefix, so the order must not depend on the filesystem).
 */
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { readRegularFileSync } from "../../loader/index";
import type { AgentDefinition } from "./options";
import {
  definitionNameProblem,
  displayNameOf,
  slugOf,
  MAX_DEFINITION_BYTES,
  orderedSources,
  SOURCE_ORDER,
  type Source,
} from "../_kits/sources/index";
import { parseAgentFile, UNAPPLIED_AGENT_FIELDS } from "./parse";
import { parseCodexAgentFile } from "./codex-agent";

/** The folder a source means. */
export function agentFolder(source: Source, cwd: string, home: string): string {
  if (source === "user") return join(home, ".ubiquity", "agents");
  if (source === "project") return join(cwd, ".ubiquity", "agents");
  return join(cwd, ".ubiquity", "agents.local");
}

/** A definition read from a file. */
export interface AgentFile {
  name: string;
  definition: AgentDefinition;
  path: string;
  source: Source;
}

/** The `ext` files (`.md`, Codex's `.toml`) under `folder`, sorted by path; none when the folder is missing. */
async function definitionFiles(folder: string, ext = ".md"): Promise<string[]> {
  // A plugin manifest may name one agent file rather than a folder.
  if (folder.toLowerCase().endsWith(ext) && (await stat(folder).catch(() => undefined))?.isFile()) return [folder];
  let entries: string[];
  try {
    entries = await readdir(folder, { recursive: true });
  } catch {
    return [];
  }
  const paths = entries.filter((e) => e.toLowerCase().endsWith(ext)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: string[] = [];
  for (const rel of paths) {
    const path = join(folder, rel);
    if ((await stat(path).catch(() => undefined))?.isFile()) files.push(path);
  }
  return files;
}

/**
 * Read the agent files of the asked-for sources, weakest first (user, project, local): a later
 * file wins a name. Problems (a skipped file, a dropped field) go to `report`.
 */
export async function readAgentFiles(
  sources: readonly string[] | undefined,
  place: { cwd: string; home: string },
  report: (message: string) => void,
  compatFolders: readonly { path: string; source: Source; tool?: string }[] = [],
): Promise<Map<string, AgentFile>> {
  const found = new Map<string, AgentFile>();
  // Another tool's folders (`compatFolders`: .claude/agents) just before ours of the same source: ours win a name.
  const folders: { path: string; source: Source; tool?: string }[] = [
    ...compatFolders,
    ...orderedSources(sources).map((source) => ({ path: agentFolder(source, place.cwd, place.home), source })),
  ].sort((a, b) => SOURCE_ORDER.indexOf(a.source) - SOURCE_ORDER.indexOf(b.source));
  for (const { path: folder, source, tool } of folders) {
    // Codex's custom agents are TOML files (`.codex/agents/<name>.toml`), read as Codex reads them.
    const codex = tool === "codex";
    const ext = codex ? ".toml" : ".md";
    for (const path of await definitionFiles(folder, ext)) {
      // Only a regular file of at most 1 MiB: a FIFO planted in the folder must not hang the run.
      const read = readRegularFileSync(path, MAX_DEFINITION_BYTES);
      if (!read.ok) {
        if (!read.missing) report(`skipped the agent file ${path}: ${read.problem}`);
        continue;
      }
      const text = read.text;
      const stem = basename(path).slice(0, -ext.length);
      // A folder's README (what the agents are, how to add one) is no agent: Claude Code passes over
      // a file without frontmatter, and so does this, without a warning to give it a description.
      if (!codex && /^readme$/i.test(stem) && !/^\uFEFF?---[ \t]*\r?\n/.test(text)) continue;
      const parsed = codex ? parseCodexAgentFile(text, stem) : parseAgentFile(text, stem);
      if (!parsed.ok) {
        report(`skipped the agent file ${path}: ${parsed.problem}`);
        continue;
      }
      // A name written for people ("Code Reviewer") is kept for display; the agent is called by
      // an identifier derived from it (or from the file's name).
      let name = parsed.name;
      let definition = parsed.definition;
      const badName = definitionNameProblem(name);
      if (badName) {
        const displayName = displayNameOf(name);
        name = [slugOf(name), slugOf(stem)].find((candidate) => candidate && !definitionNameProblem(candidate)) ?? "";
        if (!name || !displayName) {
          report(`skipped the agent file ${path}: ${badName}, and neither it nor the file's name gives an identifier`);
          continue;
        }
        definition = { ...definition, displayName };
      }
      if (parsed.misplaced?.length)
        report(
          `agent file ${path}: ${parsed.misplaced.join(", ")} is a field of skills and commands, not of agents, and is ignored (as Claude Code ignores it), so the agent may use every tool: name them with \`tools:\` to limit it`,
        );
      for (const field of parsed.dropped)
        report(
          `agent file ${path}: ignored the field ${field}, which could not be parsed; the run's own setting applies`,
        );
      if (codex && parsed.unapplied.length)
        report(
          `Codex agent file ${path}: ${parsed.unapplied.join(", ")}: not applied by ubiquity; the agent runs without ${parsed.unapplied.length > 1 ? "them" : "it"}`,
        );
      else if (parsed.unapplied.length)
        report(
          `agent file ${path}: ${parsed.unapplied.map((f) => `${f} (${UNAPPLIED_AGENT_FIELDS[f]})`).join(", ")}: Claude Code field${parsed.unapplied.length > 1 ? "s" : ""} ubiquity does not apply; the agent runs without ${parsed.unapplied.length > 1 ? "them" : "it"}`,
        );
      found.set(name, { name, definition, path, source });
    }
  }
  return found;
}
