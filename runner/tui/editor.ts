/**
 * The prompt being typed: a multi-line buffer with a cursor, and the history of sent prompts.
 * Enter sends; Alt-Enter, Shift-Enter or `\` then Enter adds a line; a paste is inserted whole, newlines included.
 */
import type { Key } from "./keys";

/** A multi-line text buffer with a cursor (an index into the text). */
export class Editor {
  text = "";
  cursor = 0;
  #history: string[] = [];
  #historyIndex = -1;
  #draft = "";

  /** Apply an editing key; returns false for keys the editor does not handle. */
  apply(key: Key): boolean {
    switch (key.name) {
      case "text":
      case "paste":
        this.insert(key.text);
        return true;
      case "newline":
        this.insert("\n");
        return true;
      case "backspace":
        if (this.cursor > 0) this.#splice(this.cursor - 1, 1);
        return true;
      case "delete":
        if (this.cursor < this.text.length) this.#splice(this.cursor, 1, this.cursor);
        return true;
      case "left":
        this.cursor = Math.max(0, this.cursor - 1);
        return true;
      case "right":
        this.cursor = Math.min(this.text.length, this.cursor + 1);
        return true;
      case "home":
        this.cursor = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
        return true;
      case "end": {
        const end = this.text.indexOf("\n", this.cursor);
        this.cursor = end === -1 ? this.text.length : end;
        return true;
      }
      case "wordLeft":
        this.cursor = this.#wordStart();
        return true;
      case "wordRight": {
        const m = /^\s*\S+/.exec(this.text.slice(this.cursor));
        this.cursor += m ? m[0].length : this.text.length - this.cursor;
        return true;
      }
      case "ctrl-u": {
        const start = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
        this.#splice(start, this.cursor - start);
        return true;
      }
      case "ctrl-k": {
        const end = this.text.indexOf("\n", this.cursor);
        this.#splice(this.cursor, (end === -1 ? this.text.length : end) - this.cursor, this.cursor);
        return true;
      }
      case "ctrl-w": {
        const start = this.#wordStart();
        this.#splice(start, this.cursor - start);
        return true;
      }
      case "up":
        if (this.text.lastIndexOf("\n", this.cursor - 1) !== -1) this.#verticalMove(-1);
        else this.#recall(1);
        return true;
      case "down":
        if (this.text.indexOf("\n", this.cursor) !== -1) this.#verticalMove(1);
        else this.#recall(-1);
        return true;
      default:
        return false;
    }
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  /** Take the text (Enter): the buffer empties and the text joins the history. */
  take(): string {
    const text = this.text;
    if (text.trim() && this.#history[0] !== text) this.#history.unshift(text);
    this.#history.length = Math.min(this.#history.length, 200);
    this.#historyIndex = -1;
    this.clear();
    return text;
  }

  clear(): void {
    this.text = "";
    this.cursor = 0;
  }

  /** The cursor as line and column of the buffer's lines. */
  position(): { line: number; column: number } {
    const before = this.text.slice(0, this.cursor).split("\n");
    return { line: before.length - 1, column: before.at(-1)!.length };
  }

  #splice(at: number, count: number, cursor = at) {
    this.text = this.text.slice(0, at) + this.text.slice(at + count);
    this.cursor = cursor;
  }

  #wordStart(): number {
    const m = /\S+\s*$/.exec(this.text.slice(0, this.cursor));
    return m ? this.cursor - m[0].length : 0;
  }

  #verticalMove(direction: 1 | -1) {
    const lines = this.text.split("\n");
    const { line, column } = this.position();
    const target = line + direction;
    const offset = lines.slice(0, target).reduce((sum, l) => sum + l.length + 1, 0);
    this.cursor = offset + Math.min(column, lines[target]!.length);
  }

  /** Up (1) or down (-1) through the sent prompts; the text being typed is kept as the draft. */
  #recall(step: 1 | -1) {
    const next = this.#historyIndex + step;
    if (next < -1 || next >= this.#history.length) return;
    if (this.#historyIndex === -1) this.#draft = this.text;
    this.#historyIndex = next;
    this.text = next === -1 ? this.#draft : this.#history[next]!;
    this.cursor = this.text.length;
  }
}
