/**
 * Codex's command rules (`~/.codex/rules/*.rules`, a project's `.codex/rules/*.rules`): Starlark
 * files of `prefix_rule(pattern = [...], decision = "allow" | "prompt" | "forbidden")` calls, which
 * Codex applies to every command before it runs (the strictest matching rule wins, as ours do).
 * They were not read: 0maru/dotfiles' `forbidden` rules (`rm -rf`, `git reset --hard`, `git push
 * --force`) were dropped in silence, so a run did what Codex refuses.
 *
 * Read here as Bash rules of a settings file: `forbidden` is a deny rule and `prompt` an ask rule
 * (they only take power away, so they apply from any file, trusted or not); `allow` is an allow rule
 * of the user's own files only (a project's is named and left out: the trust pins do not cover this
 * folder). A pattern element that is a list is its alternatives. Only the literal subset real files
 * use is read: a file that cannot be parsed stops the run naming it (its deny rules must not be
 * dropped); a statement other than `prefix_rule(...)` is named and skipped.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/index";
import { readRegularFileSync } from "../../loader/index";
import type { SettingsFile } from "./schema";

/** Most rules one pattern may expand to (a list element is its alternatives). */
const MAX_EXPANSION = 64;
const MAX_RULES_BYTES = 1024 * 1024;
/** A word that is the same to bash and in a rule's text (no quoting, spaces or operators). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

type Value = string | Value[] | { call: string };
type Token = { kind: "str" | "name" | "punct"; text: string; line: number };

/** Tokens of the Starlark subset: strings, names, ( ) [ ] , = ; comments and blank space skipped. */
function tokenize(text: string, file: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (/\s/.test(c)) i++;
    else if (c === "#") while (i < text.length && text[i] !== "\n") i++;
    else if ("()[],=".includes(c)) out.push({ kind: "punct", text: c, line }), i++;
    else if (c === '"' || c === "'") {
      const quote = c.repeat(text.startsWith(c.repeat(3), i) ? 3 : 1);
      const end = text.indexOf(quote, i + quote.length);
      if (end < 0) throw new ConfigError(`a string on line ${line} is not closed`, file);
      const raw = text.slice(i + quote.length, end);
      if (raw.includes("\\")) throw new ConfigError(`line ${line}: a string with a \\ escape is not read`, file);
      out.push({ kind: "str", text: raw, line });
      line += raw.split("\n").length - 1;
      i = end + quote.length;
    } else {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
      if (!m)
        throw new ConfigError(`line ${line}: ${JSON.stringify(c)} is not in the part of Starlark read here`, file);
      out.push({ kind: "name", text: m[0], line });
      i += m[0].length;
    }
  }
  return out;
}

/** The top-level calls of a rules file: each call's name, line and keyword arguments. */
function parseCalls(tokens: Token[], file: string): { name: string; line: number; args: Map<string, Value> }[] {
  let at = 0;
  const fail = (why: string): never => {
    throw new ConfigError(`line ${tokens[at]?.line ?? "end"}: ${why}`, file);
  };
  const take = (text?: string) => {
    const t = tokens[at] ?? fail("the file ends too soon");
    if (text !== undefined && t.text !== text) fail(`expected ${text}, found ${t.text}`);
    at++;
    return t;
  };
  const value = (): Value => {
    const t = take();
    if (t.kind === "str") return t.text;
    if (t.text === "[") {
      const list: Value[] = [];
      while (tokens[at]?.text !== "]") {
        list.push(value());
        if (tokens[at]?.text === ",") at++;
        else if (tokens[at]?.text !== "]") fail("expected , or ] in a list");
      }
      at++;
      return list;
    }
    if (t.kind === "name" && tokens[at]?.text !== "(") return { call: t.text }; // True, None, a variable
    return fail(`${t.text} is not a value read here`);
  };
  const calls: { name: string; line: number; args: Map<string, Value> }[] = [];
  while (at < tokens.length) {
    const head = take();
    if (head.kind !== "name") fail(`expected a call, found ${head.text}`);
    take("(");
    const args = new Map<string, Value>();
    while (tokens[at]?.text !== ")") {
      const key = take();
      if (key.kind !== "name") fail("expected a keyword argument (name = value)");
      take("=");
      args.set(key.text, value());
      if (tokens[at]?.text === ",") at++;
      else if (tokens[at]?.text !== ")") fail("expected , or ) after an argument");
    }
    at++;
    calls.push({ name: head.text, line: head.line, args });
  }
  return calls;
}

/** The commands a pattern stands for: a list element is its alternatives (undefined: not plain words, or too many). */
function expand(pattern: Value): string[][] | undefined {
  if (!Array.isArray(pattern) || pattern.length === 0) return undefined;
  let out: string[][] = [[]];
  for (const element of pattern) {
    const choices = typeof element === "string" ? [element] : Array.isArray(element) ? element : undefined;
    if (!choices?.length || !choices.every((c): c is string => typeof c === "string" && PLAIN_WORD.test(c)))
      return undefined;
    out = out.flatMap((prefix) => choices.map((c) => [...prefix, c]));
    if (out.length > MAX_EXPANSION) return undefined;
  }
  return out;
}

const RULE_KIND = { forbidden: "deny", prompt: "ask", allow: "allow" } as const;

/**
 * The settings the `.rules` files of `folder` give (sorted by name, as Codex loads them), or
 * undefined when there are none. `user`: the user's own folder, whose allow rules apply.
 */
export function readCodexRulesFolder(
  folder: string,
  user: boolean,
  warn: (message: string) => void,
): SettingsFile | undefined {
  let names: string[];
  try {
    names = readdirSync(folder)
      .filter((n) => n.endsWith(".rules"))
      .sort();
  } catch {
    return undefined;
  }
  const rules = { deny: [] as string[], ask: [] as string[], allow: [] as string[] };
  for (const name of names) {
    const file = join(folder, name);
    const read = readRegularFileSync(file, MAX_RULES_BYTES);
    if (!read.ok && read.missing) continue; // gone since the listing
    if (!read.ok) throw new ConfigError(`Codex rules file: ${read.problem}`, file);
    const counts = { deny: 0, ask: 0, allow: 0 };
    const skipped: string[] = [];
    for (const call of parseCalls(tokenize(read.text, file), file)) {
      const decision = call.args.get("decision") ?? "allow";
      const kind = typeof decision === "string" ? RULE_KIND[decision as keyof typeof RULE_KIND] : undefined;
      const commands = call.name === "prefix_rule" ? expand(call.args.get("pattern") ?? []) : undefined;
      if (!kind || !commands) {
        skipped.push(`line ${call.line} (${call.name})`);
        continue;
      }
      counts[kind]++;
      if (kind === "allow" && !user) continue;
      rules[kind].push(...commands.map((words) => `Bash(${words.join(" ")}:*)`));
    }
    if (skipped.length)
      warn(
        `Codex rules file ${file}: ${skipped.join(", ")} not read: only prefix_rule(pattern = [words or lists of words], decision = "allow" | "prompt" | "forbidden") is understood${counts.deny + counts.ask ? "; the file's other forbidden and prompt rules apply" : ""}`,
      );
    if (!user && counts.allow)
      warn(
        `Codex rules file ${file}: its ${counts.allow} allow rule${counts.allow > 1 ? "s are" : " is"} not applied (a project's rules only restrict here: its forbidden rules deny, its prompt rules ask); allow the commands in the user's ~/.codex/rules or settings`,
      );
  }
  if (!rules.deny.length && !rules.ask.length && !rules.allow.length) return undefined;
  return {
    permissions: {
      ...(rules.deny.length ? { deny: rules.deny } : {}),
      ...(rules.ask.length ? { ask: rules.ask } : {}),
      ...(rules.allow.length ? { allow: rules.allow } : {}),
    },
  };
}
