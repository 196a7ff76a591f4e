/**
 * YAML frontmatter of markdown files (agent files, SKILL.md): a small splitter plus the `yaml`
 * package, which never evaluates code (unlike gray-matter's `---js`) and caps alias expansion.
 */
import { createRequire } from "node:module";

// yaml loads with the first file that has frontmatter, not with the plugins that read such files.
const require = createRequire(import.meta.url);
const parse = (text: string): unknown => (require("yaml") as typeof import("yaml")).parse(text);

/** A markdown file split into its frontmatter and its body. */
export type Frontmatter = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; problem: string };

// The opening line, the YAML, then a closing `---` (or `...`) line; CRLF files too.
const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** Split `text`; a file without frontmatter has empty data and the whole text as body. */
export function splitFrontmatter(text: string): Frontmatter {
  const source = text.replace(/^\uFEFF/, "");
  if (!/^---[ \t]*\r?\n/.test(source)) return { ok: true, data: {}, body: source };
  // An empty block (`---` right after `---`) has no YAML line between the two.
  const empty = /^---[ \t]*\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(source);
  if (empty) return { ok: true, data: {}, body: source.slice(empty[0].length) };
  const match = BLOCK.exec(source);
  if (!match) return { ok: false, problem: "its frontmatter has no closing --- line" };
  let data: unknown;
  try {
    data = parse(match[1]!);
  } catch (error) {
    // Claude Code reads `description: Use it when…  Examples: Context: …` (a plain value holding
    // ": "), which strict YAML refuses: retry with such values quoted, as it does.
    const quoted = quotePlainValues(match[1]!);
    try {
      if (quoted === match[1]) throw error;
      data = parse(quoted);
    } catch {
      // Last, the reading by field lines (see `readByFields`); what it cannot read is refused as before.
      data = readByFields(match[1]!);
      if (data === undefined)
        return { ok: false, problem: `its frontmatter is not valid YAML (${(error as Error).message.split("\n")[0]})` };
    }
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data))
    return { ok: false, problem: "its frontmatter is not a YAML mapping (key: value lines)" };
  const twice = namedTwice(Object.keys(data as object));
  if (twice)
    return { ok: false, problem: `its frontmatter names the field ${twice} twice, so which one holds is unclear` };
  const wrong = miswritten(Object.keys(data as object));
  if (wrong)
    return {
      ok: false,
      problem: `its frontmatter writes ${wrong}:, which is read as no field; write ${PERMISSION_FIELDS.get(fieldKey(wrong))}:`,
    };
  return { ok: true, data: data as Record<string, unknown>, body: source.slice(match[0].length) };
}

/** `max-turns`, `max_turns` and `maxTurns` all become `maxTurns`. */
export function camelKeys(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data))
    out[key.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase())] = value;
  return out;
}

// A top-level `key: value` line whose value is plain (not quoted, not a block, list or mapping).
// A lone `*` (Claude Code's `allowed-tools: *`, `tools: *`) is no YAML alias (an alias has a name): quoted too.
const PLAIN_ENTRY = /^([A-Za-z0-9_][A-Za-z0-9_ -]*?):[ \t]+(?!["'|>[{&!%@`]|\*[^\s,[\]{}])(.+)$/;

/**
 * `yaml` with every top-level plain value quoted (continuation lines folded in, as YAML folds a
 * plain scalar): the tolerant reading of frontmatter whose values hold `: ` or ` #`. Other lines
 * (block scalars, lists, nested mappings) are left as they are.
 */
export function quotePlainValues(yaml: string): string {
  const lines = yaml.split(/\r?\n/);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = PLAIN_ENTRY.exec(lines[i]!);
    if (!match) {
      out.push(lines[i]!);
      continue;
    }
    const parts = [match[2]!.trim()];
    // Indented lines after a plain value continue it (a blank line is a line break in YAML).
    while (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1]!)) parts.push(lines[++i]!.trim());
    out.push(`${match[1]}: ${JSON.stringify(parts.join(" "))}`);
  }
  return out.join("\n");
}

/**
 * The fields agent files, SKILL.md and command files declare (Claude Code's and ours), compared
 * without `-`, `_` or case after the first letter: only these start an entry when the frontmatter
 * is read by field lines.
 */
const FIELDS = new Set(
  [
    "name",
    "description",
    "tools",
    "disallowedTools",
    "allowedTools",
    "model",
    "color",
    "skills",
    "hooks",
    "mcpServers",
    "maxTurns",
    "memory",
    "permissionMode",
    "reasoning",
    "effort",
    "isolation",
    "outputSchema",
    "background",
    "initialPrompt",
    "argumentHint",
    "disableModelInvocation",
    "userInvocable",
    "whenToUse",
    "context",
    "agent",
    "paths",
    "shell",
    "license",
    "metadata",
    "version",
    "compatibility",
  ].map((f) => fieldKey(f)),
);

function fieldKey(key: string): string {
  return key.replace(/[-_]/g, "").toLowerCase();
}

/**
 * Red-team fix: a known field written twice (`disallowed-tools: Bash` and `disallowedTools: Read`,
 * which camelKeys folds into one key, the last winning) is ambiguous about what it restricts or
 * grants: the file is refused. The first such key, or undefined.
 */
function namedTwice(keys: string[]): string | undefined {
  const seen = new Set<string>();
  for (const key of keys) {
    const k = fieldKey(key);
    if (!FIELDS.has(k)) continue;
    if (seen.has(k)) return key;
    seen.add(k);
  }
  return undefined;
}

/**
 * The fields that grant or restrict what the agent may do. Red-team fix: in the reading by field
 * lines, a line that continues another entry but names one of these (indented, or in another case:
 * ` disallowedTools: Bash`, `Tools: Read`) may be the field its author meant, so the file is refused.
 */
const PERMISSION_NAMES = ["tools", "disallowedTools", "allowedTools", "permissionMode", "hooks", "mcpServers"];
const PERMISSION_FIELDS = new Map(PERMISSION_NAMES.map((f) => [fieldKey(f), f]));

/**
 * Red-team fix: a top-level key that names a permission field in another case (`Disallowed-Tools:`,
 * `Tools:`) is read by no one, so the restriction its author wrote was silently lost: refused. The
 * first such key, or undefined.
 */
function miswritten(keys: string[]): string | undefined {
  return keys.find((key) => {
    const canonical = PERMISSION_FIELDS.get(fieldKey(key));
    return (
      canonical !== undefined && key.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase()) !== canonical
    );
  });
}
const NAMES_PERMISSION_FIELD = (line: string): boolean => {
  const m = /^[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*:/.exec(line);
  return m !== null && PERMISSION_FIELDS.has(fieldKey(m[1]!));
};

// Field names are written in lower case (`context: fork`); `Context: …` is an example's line.
const FIELD_LINE = /^([a-z][A-Za-z0-9_-]*)[ \t]*:(?=[ \t]|$)[ \t]*(.*)$/;

/**
 * Frontmatter read by its field lines, the way its author meant it when strict YAML and the quoted
 * retry both refuse it: `description: Use this agent when… Examples:` followed by unindented
 * `<example>` lines holding `user: "…"` (Claude Code's own plugin agents were written so, and
 * Claude Code loads them with a placeholder description or not at all). Only a line naming a
 * known field starts an entry; every other line continues the entry above it. An entry that is
 * YAML on its own (a list, a quoted or block value) is read as YAML, any other as its text, line
 * breaks kept. Undefined when text comes before the first field, no field is found, or a value
 * begun as YAML is not YAML.
 */
export function readByFields(yaml: string): Record<string, unknown> | undefined {
  const entries: { key: string; lines: string[] }[] = [];
  for (const line of yaml.split(/\r?\n/)) {
    const field = FIELD_LINE.exec(line);
    if (field && FIELDS.has(fieldKey(field[1]!))) {
      // A field written twice: strict YAML refuses the duplicate, and so does this reading (namedTwice).
      if (entries.some((e) => fieldKey(e.key) === fieldKey(field[1]!))) return undefined;
      entries.push({ key: field[1]!, lines: [line] });
    } else if (NAMES_PERMISSION_FIELD(line) && FIELD_LINE.exec(entries.at(-1)?.lines[0] ?? "")?.[2]?.trim() !== "")
      // Under a block field (`hooks:` alone on its line) an indented `tools:` is its structure, not prose.
      return undefined;
    else if (entries.length > 0) entries.at(-1)!.lines.push(line);
    else if (line.trim() && !line.trimStart().startsWith("#")) return undefined;
  }
  if (entries.length === 0) return undefined;
  const data: Record<string, unknown> = {};
  for (const { key, lines } of entries) {
    let parsed: unknown;
    try {
      parsed = parse(lines.join("\n"));
    } catch {
      parsed = undefined;
    }
    // Read as YAML only when it is this one entry: `description: a` + `Context: b` is one value.
    const one = typeof parsed === "object" && parsed !== null && Object.keys(parsed).length === 1 && key in parsed;
    const first = FIELD_LINE.exec(lines[0]!)![2]!;
    // A value begun as YAML (`[`, `{`, a quote, a block) that is not YAML is broken, not prose —
    // except `argument-hint`, shown to people only: `[pr-number] [priority]` is Claude Code's own example.
    if (!one && /^["'[{|>&*!]/.test(first) && fieldKey(key) !== "argumenthint") return undefined;
    data[key] = one ? (parsed as Record<string, unknown>)[key] : [first, ...lines.slice(1)].join("\n").trim();
  }
  return data;
}

/**
 * Frontmatter `allowed-tools`: a list, or one string of rules separated by commas or spaces outside
 * parentheses (Claude Code's skills write `allowed-tools: Read Grep Bash(git diff *)`). A space
 * before `(` separates nothing: `Bash (git:*)` stays one (malformed) rule, never a bare `Bash`.
 */
export function toolRules(value: unknown): string[] | undefined {
  if (Array.isArray(value))
    return value
      .filter((v): v is string => typeof v === "string")
      .map((v) => v.trim())
      .filter(Boolean);
  if (typeof value !== "string") return undefined;
  const rules: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === "(") depth++;
    if (c === ")") depth = Math.max(0, depth - 1);
    const space = /\s/.test(c) && depth === 0 && value.slice(i).trimStart()[0] !== "(";
    if ((c === "," || space) && depth === 0) {
      rules.push(current.trim());
      current = "";
    } else current += c;
  }
  rules.push(current.trim());
  return rules.filter(Boolean);
}
