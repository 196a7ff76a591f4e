/**
 * Markdown for the terminal, rendered line by line as the answer streams: headings, bold, italic,
 * inline code, fenced code blocks, lists, quotes, rules and links. A line is rendered once it is
 * complete (the live region shows the line still being written), so nothing printed is redrawn.
 * Without colours the markers that carry meaning stay (backticks, `#` of headings are dropped
 * either way), so a plain terminal still reads well.
 */
import type { Theme } from "./theme";

/** Inline markdown of one line: code spans first (nothing inside them is markdown), then emphasis and links. */
export function renderInline(line: string, theme: Theme): string {
  const parts = line.split(/(`[^`]+`)/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return theme.enabled ? theme.code(part.slice(1, -1)) : part;
      return part
        .replace(
          /\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__/g,
          (_, a: string | undefined, b: string | undefined) => theme.bold(a ?? b ?? ""),
        )
        .replace(
          /(^|[^*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?![*\w])|(^|[^_\w])_(?=\S)([^_]+?)(?<=\S)_(?![_\w])/g,
          (_, p1: string | undefined, a: string | undefined, p2: string | undefined, b: string | undefined) =>
            `${p1 ?? p2 ?? ""}${theme.italic(a ?? b ?? "")}`,
        )
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, text: string, url: string) =>
          text === url ? theme.code(url) : `${text} (${theme.dim(url)})`,
        );
    })
    .join("");
}

/** Renders a streamed answer: complete lines come out rendered, the unfinished line waits. */
export class MarkdownStream {
  #partial = "";
  #fence: string | undefined;

  constructor(private readonly theme: Theme) {}

  /** Add streamed text; returns the lines it completed, rendered. */
  push(delta: string): string[] {
    const lines = (this.#partial + delta).split("\n");
    this.#partial = lines.pop()!;
    return lines.map((l) => this.#line(l)).filter((l): l is string => l !== undefined);
  }

  /** The text of the line still being written (shown live, unrendered). */
  get partial(): string {
    return this.#partial;
  }

  /** The end of the answer: the unfinished line rendered; the state resets for the next answer. */
  end(): string[] {
    const rest = this.#partial ? this.#line(this.#partial) : undefined;
    this.#partial = "";
    this.#fence = undefined;
    return rest === undefined ? [] : [rest];
  }

  /** One complete line, rendered; undefined for a line that shows nothing (a code fence). */
  #line(line: string): string | undefined {
    const t = this.theme;
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (this.#fence !== undefined) {
      if (fence && fence[1]!.startsWith(this.#fence) && line.trim() === fence[1]) {
        this.#fence = undefined;
        return undefined;
      }
      return `${t.dim("│")} ${t.code(line)}`;
    }
    if (fence) {
      this.#fence = fence[1]!;
      return undefined;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading)
      return heading[1]!.length <= 2 ? t.heading(renderInline(heading[2]!, t)) : t.bold(renderInline(heading[2]!, t));
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return t.dim("─".repeat(40));
    const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
    if (bullet) {
      const box = bullet[2] ? (/x/i.test(bullet[2]) ? "☑ " : "☐ ") : "";
      return `${bullet[1]}${t.dim("•")} ${box}${renderInline(bullet[3]!, t)}`;
    }
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
    if (numbered) return `${numbered[1]}${t.dim(numbered[2]!)} ${renderInline(numbered[3]!, t)}`;
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) return `${t.dim("┃")} ${t.italic(renderInline(quote[1]!, t))}`;
    return renderInline(line, t);
  }
}
