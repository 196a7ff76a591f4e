/**
 * Tab at the prompt: complete the word before the cursor, where Claude Code shows its menus — a
 * `/command` at the start of the prompt (the terminal's own commands, the session's command files
 * and skills), an `@path` from the folder it names (a hidden entry only when the typed part starts
 * with a dot). Only folder listings are read, never a file.
 */
import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";

/** What Tab adds at the cursor, and every name that matched (shown when they differ past `insert`). */
export interface Completion {
  insert: string;
  candidates: string[];
}

/** At most this many entries of a folder are looked at. */
const MAX_ENTRIES = 2000;

/** The longest start all of `words` share. */
function commonStart(words: readonly string[]): string {
  let start = words[0] ?? "";
  for (const w of words) while (!w.startsWith(start)) start = start.slice(0, -1);
  return start;
}

function completion(typed: string, matches: string[], closing: (match: string) => string): Completion | undefined {
  if (matches.length === 0) return undefined;
  matches.sort();
  if (matches.length === 1)
    return { insert: matches[0]!.slice(typed.length) + closing(matches[0]!), candidates: matches };
  return { insert: commonStart(matches).slice(typed.length), candidates: matches };
}

/** Whether `before` (the prompt up to the cursor) ends in a word Tab completes: a `/command` or an `@path`. */
export function completes(before: string): "command" | "path" | undefined {
  if (/^\s*\/[^\s/]*$/.test(before)) return "command";
  if (/(^|\s)@[^\s]*$/.test(before)) return "path";
  return undefined;
}

/**
 * The completion of `before` (the prompt up to the cursor): `commands` are names with their `/`;
 * paths are relative to `cwd` (or `~/`). Undefined when nothing matches.
 */
export function complete(before: string, commands: readonly string[], cwd: string): Completion | undefined {
  const command = /^\s*(\/[^\s/]*)$/.exec(before);
  if (command) {
    const typed = command[1]!;
    return completion(
      typed,
      [...new Set(commands)].filter((c) => c.startsWith(typed)),
      () => " ",
    );
  }
  const mention = /(?:^|\s)@([^\s]*)$/.exec(before);
  if (!mention) return undefined;
  const typed = mention[1]!;
  const cut = typed.lastIndexOf("/") + 1;
  const folder = typed.slice(0, cut);
  const base = typed.slice(cut);
  const where = folder.startsWith("~/") ? resolve(homedir(), folder.slice(2)) : resolve(cwd, folder || ".");
  let names: string[];
  try {
    names = readdirSync(where, { withFileTypes: true })
      .slice(0, MAX_ENTRIES)
      .filter((e) => e.name.startsWith(base) && (base.startsWith(".") || !e.name.startsWith(".")))
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  } catch {
    return undefined;
  }
  // A folder's name ends in `/` (Tab again lists it); a file's is followed by a space.
  return completion(base, names, (match) => (match.endsWith("/") ? "" : " "));
}
