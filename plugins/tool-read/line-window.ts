import type { FileHandle } from "node:fs/promises";

/** Lines `start`..`start+count-1` of a file, and whether more follow. */
export interface LineWindow {
  lines: string[];
  /** True when the file has lines after the window. */
  more: boolean;
  /** The file's line count, known when the stream reached the end (`more` false). */
  total?: number;
}

/**
 * Stream a window of lines out of an open file too big to load whole, stopping as soon as the
 * window is complete. Lines split like `splitLines` (a "\r" before "\n" is dropped).
 */
export async function readLineWindow(handle: FileHandle, start: number, count: number): Promise<LineWindow> {
  // From the start, by position; the handle stays open for its owner (it is the file that was judged).
  const stream = handle.createReadStream({ encoding: "utf8", start: 0, autoClose: false });
  const lines: string[] = [];
  const end = start + count;
  let number = 0;
  let carry = "";
  const take = (line: string) => {
    number++;
    if (number === 1 && line.startsWith("\uFEFF")) line = line.slice(1);
    if (number >= start && number < end) lines.push(line.endsWith("\r") ? line.slice(0, -1) : line);
  };
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let from = 0;
      for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", from)) {
        take(carry + chunk.slice(from, nl));
        carry = "";
        from = nl + 1;
        if (number >= end) return { lines, more: true };
      }
      carry += chunk.slice(from);
    }
    if (carry !== "") take(carry);
    return number >= end ? { lines, more: true } : { lines, more: false, total: number };
  } finally {
    stream.destroy();
  }
}
