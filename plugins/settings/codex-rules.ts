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
      const str = readString(text, i, line, file);
      out.push({ kind: "str", text: str.value, line });
      line += str.lines;
      i = str.end;
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

/** Starlark's one-letter escapes (`\"` and `\\` are what Codex writes when it adds a rule: it quotes each word as JSON). */
const ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
};

/**
 * The string starting at `start` (a quote, or three): its value with Starlark's escapes decoded
 * (`\x41`, `\u0041`, `\U00000041`, octal `\101` and a `\` line break too), where it ends and how many
 * line breaks it holds. An escape Starlark does not have is an error, as it is to Codex.
 */
function readString(
  text: string,
  start: number,
  line: number,
  file: string,
): { value: string; end: number; lines: number } {
  const c = text[start]!;
  const quote = c.repeat(text.startsWith(c.repeat(3), start) ? 3 : 1);
  let value = "";
  let lines = 0;
  for (let i = start + quote.length; i < text.length; ) {
    if (text.startsWith(quote, i)) return { value, end: i + quote.length, lines };
    const ch = text[i]!;
    if (ch === "\n") {
      if (quote.length === 1) break; // a one-quote string ends at its line
      lines++;
    }
    if (ch !== "\\") {
      value += ch;
      i++;
      continue;
    }
    const next = text[i + 1] ?? "";
    const hex = { x: 2, u: 4, U: 8 }[next];
    if (next in ESCAPES) (value += ESCAPES[next]), (i += 2);
    else if (next === "\n") lines++, (i += 2);
    else if (hex && /^[0-9a-fA-F]+$/.test(text.slice(i + 2, i + 2 + hex)) && text.length >= i + 2 + hex) {
      const code = Number.parseInt(text.slice(i + 2, i + 2 + hex), 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        throw new ConfigError(
          `line ${line + lines}: the escape \\${text.slice(i + 1, i + 2 + hex)} is not a character`,
          file,
        );
      value += String.fromCodePoint(code);
      i += 2 + hex;
    } else if (/^[0-7]/.test(next)) {
      const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1))![0];
      value += String.fromCodePoint(Number.parseInt(octal, 8));
      i += 1 + octal.length;
    } else
      throw new ConfigError(`line ${line + lines}: ${JSON.stringify(`\\${next}`)} is not an escape Starlark has`, file);
  }
  throw new ConfigError(`a string on line ${line} is not closed`, file);
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

/** The commands a pattern stands for (a list element is its alternatives), or why it is not read. */
function expand(pattern: Value | undefined): string[][] | { why: string } {
  if (!Array.isArray(pattern) || pattern.length === 0) return { why: "its pattern is not a list of words" };
  let out: string[][] = [[]];
  for (const element of pattern) {
    const choices = typeof element === "string" ? [element] : Array.isArray(element) ? element : undefined;
    if (!choices?.length || !choices.every((c): c is string => typeof c === "string"))
      return { why: "its pattern holds something other than words or lists of words" };
    // A word with spaces, quotes or shell characters: Codex matches it as one whole argument (the
    // script of a `zsh -lc` call its approvals record), which no rule on a shell command can say.
    const odd = choices.find((c) => !PLAIN_WORD.test(c));
    if (odd !== undefined)
      return {
        why: `a pattern word is not a plain word (${JSON.stringify(odd.length > 40 ? `${odd.slice(0, 40)}…` : odd)}: it has spaces, quotes or shell characters, so Codex matches it as one whole argument, such as a \`zsh -lc\` script, which ubiquity's command rules cannot express)`,
      };
    out = out.flatMap((prefix) => choices.map((c) => [...prefix, c]));
    if (out.length > MAX_EXPANSION) return { why: `its pattern stands for more than ${MAX_EXPANSION} commands` };
  }
  return out;
}

/** `line 4 (why), line 5 (why)`, lines with the same reason named together. */
function skippedList(skipped: { line: number; why: string }[]): string {
  const byWhy = new Map<string, number[]>();
  for (const { line, why } of skipped) byWhy.set(why, [...(byWhy.get(why) ?? []), line]);
  return [...byWhy].map(([why, lines]) => `line${lines.length > 1 ? "s" : ""} ${lines.join(", ")} (${why})`).join("; ");
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
    const skipped: { line: number; why: string }[] = [];
    for (const call of parseCalls(tokenize(read.text, file), file)) {
      const decision = call.args.get("decision") ?? "allow";
      const kind = typeof decision === "string" ? RULE_KIND[decision as keyof typeof RULE_KIND] : undefined;
      const commands =
        call.name === "prefix_rule" ? expand(call.args.get("pattern")) : { why: `${call.name} is not prefix_rule` };
      if (!Array.isArray(commands) || !kind) {
        const why = Array.isArray(commands)
          ? `decision ${JSON.stringify(decision)} is not "allow", "prompt" or "forbidden"`
          : commands.why;
        skipped.push({ line: call.line, why });
        continue;
      }
      counts[kind]++;
      if (kind === "allow" && !user) continue;
      rules[kind].push(...commands.map((words) => `Bash(${words.join(" ")}:*)`));
    }
    if (skipped.length)
      warn(
        `Codex rules file ${file}: ${skippedList(skipped)} not read: only prefix_rule(pattern = [words or lists of words], decision = "allow" | "prompt" | "forbidden") is understood${counts.deny + counts.ask ? "; the file's other forbidden and prompt rules apply" : ""}`,
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
