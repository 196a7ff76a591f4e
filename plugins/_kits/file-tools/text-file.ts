/**
 * The conventions of a text file that a rewrite must keep: a UTF-8 byte-order mark and the
 * line ending. The model always sees and writes "\n"; the file keeps what it had.
 */

/** A line-ending convention. */
export type LineEnding = "\n" | "\r\n";

/** A decoded text file and the conventions to restore when writing it back. */
export interface TextFile {
  /** The content with the BOM removed and line endings as in the file. */
  text: string;
  bom: boolean;
  eol: LineEnding;
}

const BOM = "\uFEFF";

/** Decode UTF-8 bytes, noting the BOM and the dominant line ending. */
export function decodeText(bytes: Buffer): TextFile {
  let text = bytes.toString("utf8");
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  return { text, bom, eol: detectLineEnding(text) };
}

/** Encode text for writing, with the BOM if the file had one. */
export function encodeText(text: string, bom: boolean): Buffer {
  return Buffer.from(bom && !text.startsWith(BOM) ? BOM + text : text, "utf8");
}

/** The line ending most lines use ("\n" when there is none, or a tie). */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** Convert every line ending to `eol`. */
export function withLineEnding(text: string, eol: LineEnding): string {
  const lf = text.replace(/\r\n/g, "\n");
  return eol === "\n" ? lf : lf.replace(/\n/g, "\r\n");
}

/** Split into lines the way `cat -n` numbers them (a final newline does not start a line). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/** Longest line shown whole; longer lines are cut with a marker. */
export const MAX_LINE_CHARS = 2000;

/** Format lines like `cat -n` (number right-aligned in 6 columns, a tab, the text), cutting overlong lines. */
export function numberLines(lines: readonly string[], firstNumber: number): string {
  return lines.map((line, i) => `${String(firstNumber + i).padStart(6)}\t${cutLine(line)}`).join("\n");
}

function cutLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters, first ${MAX_LINE_CHARS} shown]`;
}
