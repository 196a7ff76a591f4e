/**
 * An inline terminal screen: what is finished (answers, tool lines, approvals) is printed once
 * and scrolls away like any program's output, so the terminal's own scrollback, search and copy
 * keep working; below it a small live region (spinner, queued prompts, the question being asked,
 * the prompt being typed, the status line) is redrawn in place. No alternate screen.
 */

/** The visible width of `text`: escape sequences take no room. */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")) width += wide(ch.codePointAt(0)!) ? 2 : 1;
  return width;
}

/** East Asian wide characters and emoji take two columns. */
function wide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** The live region: lines, and where the cursor stands in them (none: hidden at the end). */
export interface LiveView {
  lines: string[];
  cursor?: { line: number; column: number };
}

/** The printed log above and the live region below, on one terminal. */
export class InlineScreen {
  /** The row (from the live region's top) the cursor is on. */
  #cursorRow = 0;
  #view: LiveView = { lines: [] };

  constructor(
    private readonly write: (text: string) => void,
    private readonly columns: () => number,
  ) {}

  /** Print finished text above the live region (a line end is added when missing; "" is an empty line). */
  print(text: string): void {
    const body = text.endsWith("\n") ? text : `${text}\n`;
    this.write(`${this.#erase()}${body.replace(/\r?\n/g, "\r\n")}${this.#draw()}`);
  }

  /** Replace the live region. */
  update(view: LiveView): void {
    this.#view = view;
    this.write(this.#erase() + this.#draw());
  }

  /** Draw the live region again at the top of a cleared screen (Ctrl-L). */
  redraw(): void {
    this.#cursorRow = 0;
    this.write(`\x1b[2J\x1b[H${this.#draw()}`);
  }

  /**
   * The terminal changed width: it has re-wrapped the region's lines (as terminals that reflow
   * do), so the cursor's row in the region is counted again before the next `update` erases it.
   */
  resized(): void {
    this.#cursorRow = layout(this.#view, this.#cols()).cursorRow;
  }

  /** Leave the live region as it is on screen and move below it (the program ends). */
  release(): void {
    this.write(this.#erase());
    this.#view = { lines: [] };
  }

  #cols(): number {
    return Math.max(10, this.columns());
  }

  /** Move to the live region's top and clear to the end of the screen. */
  #erase(): string {
    const up = this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : "";
    this.#cursorRow = 0;
    return `\r${up}\x1b[J`;
  }

  #draw(): string {
    const { lines, heights, cursorRow } = layout(this.#view, this.#cols());
    if (lines.length === 0) return "";
    let out = lines.join("\r\n");
    // The cursor ends after the last character drawn (a line exactly as wide as the terminal leaves
    // it waiting at the right edge, still on that row); then it moves to the editor's cursor.
    const last = heights.reduce((a, b) => a + b, 0) - 1;
    const { cursor } = this.#view;
    if (cursor) {
      const col = cursor.column % this.#cols();
      const up = last - cursorRow;
      out += `\r${up > 0 ? `\x1b[${up}A` : ""}${col > 0 ? `\x1b[${col}C` : ""}`;
    }
    this.#cursorRow = cursorRow;
    return out;
  }
}

/** A live region's lines as drawn on `cols` columns: each line's rows, and the row the cursor ends on. */
function layout(view: LiveView, cols: number): { lines: string[]; heights: number[]; cursorRow: number } {
  const { cursor } = view;
  // The cursor's line gets a trailing space, so a cursor past its last character has a cell to stand on.
  const lines = view.lines.map((l, i) => (i === cursor?.line ? `${l} ` : l));
  const heights = lines.map((l) => Math.max(1, Math.ceil(visibleWidth(l) / cols)));
  const rows = heights.reduce((a, b) => a + b, 0);
  if (!cursor) return { lines, heights, cursorRow: Math.max(0, rows - 1) };
  const before = heights.slice(0, cursor.line).reduce((a, b) => a + b, 0);
  return { lines, heights, cursorRow: before + Math.floor(cursor.column / cols) };
}
