/**
 * Taking the terminal for the UI and giving it back: raw keys with bracketed paste on, other
 * writers to the terminal routed above the live region, Ctrl-C as a signal (when it arrives as
 * one) and resizes to the UI — and everything undone when the UI ends, or however the process ends.
 */

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";

/** What the UI gives the terminal's events to. */
export interface TerminalHandlers {
  stdin: NodeJS.ReadStream;
  term: NodeJS.WriteStream;
  /** The terminal's own write (the screen's), untouched by the routing below. */
  rawWrite(text: string): void;
  /** Print text above the live region. */
  print(text: string): void;
  onData(chunk: string): void;
  onSigint(): void;
  onResize(): void;
}

/** Take the terminal; returns the function that gives it back. */
export function takeTerminal(h: TerminalHandlers): () => void {
  const restore = () => h.rawWrite(BRACKETED_PASTE_OFF);
  process.once("exit", restore);
  // A plugin's log line or a warning written to the terminal while the live region is drawn would
  // tear it: such writes are printed above it instead (as Ink's patchConsole does).
  const patched: [NodeJS.WriteStream, NodeJS.WriteStream["write"]][] = [];
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.isTTY) continue;
    patched.push([stream, stream.write]);
    stream.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      h.print(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") process.nextTick(done as () => void);
      return true;
    }) as NodeJS.WriteStream["write"];
  }
  const onData = (chunk: string | Buffer) => h.onData(chunk.toString());
  h.stdin.setRawMode?.(true);
  h.stdin.setEncoding?.("utf8");
  h.stdin.on("data", onData);
  h.stdin.resume();
  process.on("SIGINT", h.onSigint);
  h.term.on?.("resize", h.onResize);
  h.rawWrite(BRACKETED_PASTE_ON);
  return () => {
    process.removeListener("SIGINT", h.onSigint);
    process.removeListener("exit", restore);
    h.term.removeListener?.("resize", h.onResize);
    h.stdin.removeListener("data", onData);
    h.stdin.setRawMode?.(false);
    h.stdin.pause();
    restore();
    for (const [stream, write] of patched) stream.write = write;
  };
}
