/**
 * YAML frontmatter of markdown files (agent files, SKILL.md): a small splitter plus the `yaml`
 * package, which never evaluates code (unlike gray-matter's `---js`) and caps alias expansion.
 */
import { createRequire } from "node:module";

// yaml loads with the first file that has frontmatter, not with the plugins that read such files.
const require = createRequire(import.meta.url);
const parse = (text: string): unknown => (require("yaml") as typeof import("yaml")).parse(text);

/** A markdown file split into its frontmatter and its body. */
export type Frontmatter =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; problem: string };

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
    return { ok: false, problem: `its frontmatter is not valid YAML (${(error as Error).message.split("\n")[0]})` };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) return { ok: false, problem: "its frontmatter is not a YAML mapping (key: value lines)" };
  return { ok: true, data: data as Record<string, unknown>, body: source.slice(match[0].length) };
}

/** `max-turns`, `max_turns` and `maxTurns` all become `maxTurns`. */
export function camelKeys(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) out[key.replace(/[-_]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase())] = value;
  return out;
}
