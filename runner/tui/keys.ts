/**
 * The terminal's input bytes (raw mode, bracketed paste on) as key events. A bracketed paste is
 * one event whatever its size or how many chunks it arrives in, so a pasted multi-line block is
 * one prompt; a terminal without bracketed paste that delivers several lines in one read is
 * treated the same way (a person does not type a newline and more text within one read), a line
 * end closing that read being the Enter that sends it. Enter is CR or LF (as in readline); a new
 * line in the prompt is Alt-Enter, Shift-Enter where the terminal reports it, or `\` before Enter.
 */

/** One key (or pasted block) as the editor sees it. */
export type Key =
  | { name: "text"; text: string }
  | { name: "paste"; text: string }
  | {
      name:
        | "enter"
        | "newline"
        | "backspace"
        | "delete"
        | "left"
        | "right"
        | "up"
        | "down"
        | "home"
        | "end"
        | "wordLeft"
        | "wordRight";
    }
  | { name: "ctrl-c" | "ctrl-d" | "ctrl-u" | "ctrl-k" | "ctrl-w" | "ctrl-l" | "escape" | "tab" | "shift-tab" };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Escape sequences the editor understands; anything else starting with ESC is dropped whole. */
const SEQUENCES: Record<string, Key["name"]> = {
  "\x1b[A": "up",
  "\x1b[B": "down",
  "\x1b[C": "right",
  "\x1b[D": "left",
  "\x1bOA": "up",
  "\x1bOB": "down",
  "\x1bOC": "right",
  "\x1bOD": "left",
  "\x1b[H": "home",
  "\x1b[F": "end",
  "\x1bOH": "home",
  "\x1bOF": "end",
  "\x1b[1~": "home",
  "\x1b[4~": "end",
  "\x1b[7~": "home",
  "\x1b[8~": "end",
  "\x1b[3~": "delete",
  "\x1b[1;5D": "wordLeft",
  "\x1b[1;5C": "wordRight",
  "\x1bb": "wordLeft",
  "\x1bf": "wordRight",
  "\x1b\r": "newline", // Alt-Enter
  "\x1b\n": "newline",
  "\x1b[13;2u": "newline", // Shift-Enter (terminals with the kitty keyboard protocol)
  "\x1b[27;2;13~": "newline", // Shift-Enter (xterm's modifyOtherKeys)
  "\x1b\x7f": "ctrl-w", // Alt-Backspace
  "\x1b[Z": "shift-tab", // the permission mode cycle, as in Claude Code
};

const CONTROLS: Record<string, Key["name"]> = {
  "\r": "enter",
  // A line feed is Enter too, as in readline (what a program writing "text\n" to a terminal means).
  "\n": "enter",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x15": "ctrl-u",
  "\x0b": "ctrl-k",
  "\x17": "ctrl-w",
  "\x0c": "ctrl-l",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x10": "up",
  "\x0e": "down",
  "\t": "tab",
};

/** A CSI or SS3 sequence at the start of `s`: its length, or 0 when it is not complete yet. */
function sequenceLength(s: string): number {
  if (s.length < 2) return 0;
  if (s[1] === "[") {
    for (let i = 2; i < s.length; i++) if (/[@-~]/.test(s[i]!)) return i + 1;
    return 0;
  }
  if (s[1] === "O") return s.length >= 3 ? 3 : 0;
  return 2; // ESC + one character (Alt-x)
}

/** Several lines and text after a line end in one read: a paste from a terminal without bracketed paste. */
function looksPasted(chunk: string): boolean {
  return !chunk.includes("\x1b") && /[\r\n][^\r\n\x00-\x1f]/.test(chunk);
}

/** Turns input chunks into keys; keeps an unfinished escape sequence or paste until the rest arrives. */
export class KeyDecoder {
  #pending = "";
  #paste: string | undefined;

  /** The keys in `chunk` (and in what was held back from earlier chunks). */
  feed(chunk: string): Key[] {
    if (this.#paste === undefined && this.#pending === "" && looksPasted(chunk)) {
      // A line end closing the read is the Enter that sends it (as readline would read it).
      const end = /[\r\n]+$/.exec(chunk);
      const body = end ? chunk.slice(0, end.index) : chunk;
      return end
        ? [{ name: "paste", text: normalizePaste(body) }, { name: "enter" }]
        : [{ name: "paste", text: normalizePaste(body) }];
    }
    let s = this.#pending + chunk;
    this.#pending = "";
    const keys: Key[] = [];
    let text = "";
    const flush = () => {
      if (text) keys.push({ name: "text", text });
      text = "";
    };
    while (s.length > 0) {
      if (this.#paste !== undefined) {
        const end = s.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a possibly split end marker back.
          const keep = partialSuffix(s, PASTE_END);
          this.#paste += s.slice(0, s.length - keep);
          this.#pending = s.slice(s.length - keep);
          return keys;
        }
        keys.push({ name: "paste", text: normalizePaste(this.#paste + s.slice(0, end)) });
        this.#paste = undefined;
        s = s.slice(end + PASTE_END.length);
        continue;
      }
      const c = s[0]!;
      if (c === "\x1b") {
        if (s.startsWith(PASTE_START)) {
          flush();
          this.#paste = "";
          s = s.slice(PASTE_START.length);
          continue;
        }
        if (s.length === 1) {
          flush();
          // A lone ESC at the end of a read is the Escape key (sequences arrive whole in one read).
          keys.push({ name: "escape" });
          return keys;
        }
        if (PASTE_START.startsWith(s)) {
          flush();
          this.#pending = s;
          return keys;
        }
        const two = s.slice(0, 2);
        const named = SEQUENCES[two];
        const len = named ? 2 : sequenceLength(s);
        if (len === 0) {
          this.#pending = s;
          flush();
          return keys;
        }
        flush();
        const name = named ?? SEQUENCES[s.slice(0, len)];
        if (name) keys.push({ name } as Key);
        s = s.slice(len);
        continue;
      }
      const control = CONTROLS[c];
      if (control) {
        flush();
        keys.push({ name: control } as Key);
      } else if (c >= " ") text += c;
      s = s.slice(1);
    }
    flush();
    return keys;
  }
}

/** The length of the longest suffix of `s` that starts `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) if (marker.startsWith(s.slice(-n))) return n;
  return 0;
}

/** Pasted text with the terminal's line ends as `\n` and tabs kept. */
function normalizePaste(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
