/**
 * TypeScript code blocks of the user documentation. A block fenced with ```ts is a complete
 * program a user can paste and run; a block fenced with ```ts fragment shows part of one (an
 * option, a call) and is exempt. A block fenced with ```ts server is a complete program that serves
 * until it is stopped (an HTTP service): it type-checks with the others, and the test that starts it
 * drives it, instead of waiting for it to end. Renderers read only the first word of the info
 * string, so the markers are invisible to readers.
 */
import { readFileSync } from "node:fs";

/** One code block: where it is and what it says. */
export interface CodeBlock {
  file: string;
  line: number;
  code: string;
  /** Fenced ```ts server: it runs until stopped, so it is not run to completion. */
  server?: boolean;
}

/** The complete TypeScript blocks of a markdown file. */
export function completeTsBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const out: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)(\s+(.*))?$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
    const markers = (open[3] ?? "").split(/\s+/);
    if (markers.includes("fragment")) continue;
    out.push({ file, line: start + 1, code: `${body.join("\n")}\n`, server: markers.includes("server") });
  }
  return out;
}
