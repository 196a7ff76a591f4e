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
  return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd);
}

/** The live region: lines, and where the cursor stands in them (none: hidden at the end). */
export interface LiveView {
  lines: string[];
  cursor?: { line: number; column: number };
}

/** The printed log above and the live region below, on one terminal. */
export class InlineScreen {
  /** Rows the live region takes now, and the row (from its top) the cursor is on. */
  #rows = 0;
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

  /** Draw everything again (after a resize or Ctrl-L). */
  redraw(clearScreen = false): void {
    this.write((clearScreen ? "\x1b[2J\x1b[H" : this.#erase()) + this.#draw());
  }

  /** Leave the live region as it is on screen and move below it (the program ends). */
  release(): void {
    this.write(this.#erase());
    this.#view = { lines: [] };
  }

  /** Move to the live region's top and clear to the end of the screen. */
  #erase(): string {
    const up = this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : "";
    this.#rows = 0;
    this.#cursorRow = 0;
    return `\r${up}\x1b[J`;
  }

  #draw(): string {
    const cols = Math.max(10, this.columns());
    const { cursor } = this.#view;
    // The cursor's line gets a trailing space, so a cursor past its last character has a cell to stand on.
    const lines = this.#view.lines.map((l, i) => (i === cursor?.line ? `${l} ` : l));
    if (lines.length === 0) return "";
    const heights = lines.map((l) => Math.max(1, Math.ceil(visibleWidth(l) / cols)));
    this.#rows = heights.reduce((a, b) => a + b, 0);
    let out = lines.join("\r\n");
    // The cursor ends after the last character drawn; a line exactly as wide as the terminal leaves
    // it waiting at the right edge, still on that row.
    this.#cursorRow = this.#rows - 1;
    if (cursor) {
      const before = heights.slice(0, cursor.line).reduce((a, b) => a + b, 0);
      const row = before + Math.floor(cursor.column / cols);
      const col = cursor.column % cols;
      const up = this.#cursorRow - row;
      out += `\r${up > 0 ? `\x1b[${up}A` : ""}${col > 0 ? `\x1b[${col}C` : ""}`;
      this.#cursorRow = row;
    }
    return out;
  }
}
