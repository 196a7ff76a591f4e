/**
 * Codex's custom prompts (`~/.codex/prompts/*.md`) as `/prompts:<name>` commands, under
 * `compat: ["codex"]`, expanded as Codex expands them: named placeholders (`$FILE`) from
 * `KEY=value` arguments, else `$1`…`$9` and `$ARGUMENTS` from the words typed; `$$` stays as
 * written. A Codex prompt is text only: no `!` shell line runs, no `@path` is read, and its
 * frontmatter's `allowed-tools` or `model` (Claude Code's keys, which Codex ignores) grant nothing.
 * Codex reads them from its home folder only (they are the user's own), top-level files only.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFileSync } from "../../loader/index";
import { MAX_DEFINITION_BYTES, splitFrontmatter } from "../_kits/sources/index";
import type { SlashCommand } from "./command";
import { CommandError } from "./expand";

/** The prefix Codex invokes its prompts with: `/prompts:<name>`. */
export const CODEX_PROMPTS_PREFIX = "prompts";

/**
 * A prompt's name as Codex takes it (the file's name less `.md`), kept to what a slash command can
 * hold: letters, digits, `_`, `-` and `.` (spec-kit writes `speckit.plan.md`), not starting with `.`.
 */
const PROMPT_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/** Why a prompt file's name cannot be a command, if it cannot. */
function promptNameProblem(stem: string): string | undefined {
  if (PROMPT_NAME.test(stem)) return undefined;
  return `its name ${JSON.stringify(stem)} cannot be a command: use 1-64 letters, digits, "_", "-" or "." (not first), no spaces`;
}

// Codex's placeholder: `$` and an upper-case name; `$$NAME` is written literally.
const NAMED = /\$[A-Z][A-Z0-9_]*/g;

/** The named placeholders of a prompt, in order of first use (`$ARGUMENTS` is positional). */
export function namedPlaceholders(body: string): string[] {
  const names: string[] = [];
  for (const m of body.matchAll(NAMED)) {
    const name = m[0].slice(1);
    if (m.index > 0 && body[m.index - 1] === "$") continue;
    if (name !== "ARGUMENTS" && !names.includes(name)) names.push(name);
  }
  return names;
}

/** Words as POSIX shell quoting splits them (Codex uses shlex): quotes may sit inside a word (`KEY="a b"`). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word ??= "";
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
        word += line[i];
      }
    } else if (c === "\\" && i + 1 < line.length) word += line[++i];
    else word += c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The prompt a Codex prompt stands for with `args`; a CommandError says what is missing or malformed. */
export function expandCodexPrompt(body: string, args: string, command: string): string {
  const names = namedPlaceholders(body);
  const words = shellWords(args);
  if (names.length === 0) return expandPositional(body, words);
  const values = new Map<string, string>();
  for (const word of words) {
    const eq = word.indexOf("=");
    if (eq < 0)
      throw new CommandError(
        `Could not parse /${command}: expected key=value but found '${word}'. Wrap values in double quotes if they contain spaces.`,
      );
    if (eq === 0) throw new CommandError(`Could not parse /${command}: expected a name before '=' in '${word}'.`);
    values.set(word.slice(0, eq), word.slice(eq + 1));
  }
  const missing = names.filter((n) => !values.has(n));
  if (missing.length)
    throw new CommandError(
      `Missing required args for /${command}: ${missing.join(", ")}. Provide as key=value (quote values with spaces).`,
    );
  return body.replace(NAMED, (token, offset: number) =>
    offset > 0 && body[offset - 1] === "$" ? token : (values.get(token.slice(1)) ?? token),
  );
}

/** `$1`…`$9` (an absent one is empty), `$ARGUMENTS` (the words joined by a space), `$$` kept. */
function expandPositional(body: string, words: readonly string[]): string {
  return body.replace(/\$(\$|[1-9]|ARGUMENTS)/g, (token, what: string) => {
    if (what === "$") return token;
    if (what === "ARGUMENTS") return words.join(" ");
    return words[Number(what) - 1] ?? "";
  });
}

const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : undefined);

/** The prompts of `folder` (`~/.codex/prompts`), sorted; a file that cannot be used is reported and skipped. */
export async function loadCodexPrompts(folder: string, report: (message: string) => void): Promise<SlashCommand[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const out: SlashCommand[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.name.endsWith(".md") || entry.isDirectory()) continue;
    const file = join(folder, entry.name);
    const stem = entry.name.slice(0, -".md".length);
    const problem = promptNameProblem(stem);
    const read = problem ? undefined : readRegularFileSync(file, MAX_DEFINITION_BYTES);
    if (!read?.ok) {
      const why = problem ?? (read && !read.missing ? read.problem : "it could not be read (ENOENT)");
      report(`skipped the Codex prompt ${file}: ${why}`);
      continue;
    }
    const split = splitFrontmatter(read.text);
    if (!split.ok) {
      report(`skipped the Codex prompt ${file}: ${split.problem}`);
      continue;
    }
    const name = `${CODEX_PROMPTS_PREFIX}:${stem}`;
    const body = split.body;
    const argumentHint = text(split.data["argument-hint"] ?? split.data.argument_hint);
    out.push({
      name,
      // Codex's popup says "send saved prompt" for a prompt without a description.
      description: text(split.data.description) ?? "send saved prompt",
      ...(argumentHint ? { argumentHint } : {}),
      body,
      file,
      source: "user",
      expand: async (args) => ({ text: expandCodexPrompt(body, args, name), context: [] }),
    });
  }
  return out;
}
