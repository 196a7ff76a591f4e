/**
 * The V4A patch format (the one OpenAI documents for `apply_patch`), parsed into file
 * operations. The grammar, as published:
 *
 *   Patch      := "*** Begin Patch" NL { FileOp } "*** End Patch" NL?
 *   FileOp     := AddFile | DeleteFile | UpdateFile
 *   AddFile    := "*** Add File: " path NL { "+" line NL }
 *   DeleteFile := "*** Delete File: " path NL
 *   UpdateFile := "*** Update File: " path NL [ "*** Move to: " path NL ] { Hunk }
 *   Hunk       := "@@" [ " " header ] NL { (" " | "-" | "+") line NL } [ "*** End of File" NL ]
 *
 * Anything outside the grammar is refused with the line it stopped at: a patch that is not
 * understood is never applied in part.
 */

/** One line of a hunk: kept context, a removed line or an added line. */
export interface HunkLine {
  kind: " " | "-" | "+";
  text: string;
}

/** One hunk of an update: where it goes (its `@@` headers) and its lines. */
export interface Hunk {
  /** 1-based position of the hunk in its file section, for messages. */
  index: number;
  /** Line of the patch the hunk starts on (1-based), for messages. */
  line: number;
  /** The `@@ text` headers: lines to find, in order, before the hunk's own lines. */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File`: the hunk's lines end where the file ends. */
  atEnd: boolean;
}

/** One file operation of a patch. */
export type PatchOp =
  | { kind: "add"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo?: string; hunks: Hunk[] };

/** A patch that does not follow the grammar; the message names the line and the fix. */
export class PatchSyntaxError extends Error {
  override name = "PatchSyntaxError";
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";

const isFileHeader = (line: string) =>
  line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE) || line.trim() === END;

/** Where the parser is: the patch's lines, the next line to read, and the "*** End Patch" line. */
interface Cursor {
  lines: string[];
  i: number;
  last: number;
}

const at = (n: number) => `line ${n + 1}`;

/** Parse a V4A patch. Throws a `PatchSyntaxError` naming the offending line. */
export function parsePatch(patch: string): PatchOp[] {
  const c = envelope(patch.replace(/\r\n/g, "\n").split("\n"));
  const ops: PatchOp[] = [];
  while (c.i < c.last) {
    const line = c.lines[c.i]!;
    if (line.startsWith(ADD)) ops.push(readAdd(c, pathOf(line, ADD, c.i)));
    else if (line.startsWith(DELETE)) ops.push(readDelete(c, pathOf(line, DELETE, c.i)));
    else if (line.startsWith(UPDATE)) ops.push(readUpdate(c, pathOf(line, UPDATE, c.i)));
    else if (line.trim() === "") c.i++;
    else {
      throw new PatchSyntaxError(
        `${at(c.i)}: expected "*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>", found ${JSON.stringify(line)}. A patch is a list of those operations between "${BEGIN}" and "${END}".`,
      );
    }
  }
  if (ops.length === 0)
    throw new PatchSyntaxError(
      'The patch holds no file operation. Put at least one "*** Add File:", "*** Update File:" or "*** Delete File:" between the envelope lines.',
    );
  return ops;
}

/** Check the "*** Begin Patch" … "*** End Patch" envelope; the cursor is on the first line inside it. */
function envelope(lines: string[]): Cursor {
  // A final newline leaves one empty entry; blank lines around the envelope are tolerated.
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  let start = 0;
  while (start < lines.length && lines[start]!.trim() === "") start++;
  if (lines[start]?.trim() !== BEGIN) {
    throw new PatchSyntaxError(
      `The patch must start with the line "${BEGIN}" (line ${start + 1} is ${JSON.stringify(lines[start] ?? "")}). Wrap the file operations in "${BEGIN}" … "${END}".`,
    );
  }
  if (lines.length - 1 <= start || lines[lines.length - 1]!.trim() !== END) {
    throw new PatchSyntaxError(
      `The patch must end with the line "${END}". Close the envelope after the last file operation.`,
    );
  }
  return { lines, i: start + 1, last: lines.length - 1 };
}

/** "*** Add File:" and its "+" lines. */
function readAdd(c: Cursor, path: string): PatchOp {
  const body: string[] = [];
  c.i++;
  while (c.i < c.last && !isFileHeader(c.lines[c.i]!)) {
    const l = c.lines[c.i]!;
    if (!l.startsWith("+")) {
      throw new PatchSyntaxError(
        `${at(c.i)}: in "*** Add File: ${path}" every line of the new file starts with "+", but this one is ${JSON.stringify(l)}. Prefix each line of the new content with "+".`,
      );
    }
    body.push(l.slice(1));
    c.i++;
  }
  return { kind: "add", path, content: body.length === 0 ? "" : `${body.join("\n")}\n` };
}

/** "*** Delete File:", which takes no content. */
function readDelete(c: Cursor, path: string): PatchOp {
  c.i++;
  if (c.i < c.last && !isFileHeader(c.lines[c.i]!)) {
    throw new PatchSyntaxError(
      `${at(c.i)}: "*** Delete File:" takes no content, but ${JSON.stringify(c.lines[c.i])} follows it. Start the next operation with "*** Add File:", "*** Update File:" or "*** Delete File:".`,
    );
  }
  return { kind: "delete", path };
}

/** "*** Update File:", an optional "*** Move to:" and its hunks. */
function readUpdate(c: Cursor, path: string): PatchOp {
  c.i++;
  let moveTo: string | undefined;
  if (c.i < c.last && c.lines[c.i]!.startsWith(MOVE)) {
    moveTo = pathOf(c.lines[c.i]!, MOVE, c.i);
    c.i++;
  }
  const hunks: Hunk[] = [];
  while (c.i < c.last && !isFileHeader(c.lines[c.i]!)) hunks.push(readHunk(c, path, hunks.length + 1));
  if (hunks.length === 0 && moveTo === undefined) {
    throw new PatchSyntaxError(
      `"*** Update File: ${path}" has no hunk. Add at least one "@@" hunk with "-"/"+" lines, or a "*** Move to:" line to rename it.`,
    );
  }
  return { kind: "update", path, ...(moveTo !== undefined ? { moveTo } : {}), hunks };
}

/** One hunk of an update: its "@@" anchors, then context, "-" and "+" lines up to the next hunk or file. */
function readHunk(c: Cursor, path: string, index: number): Hunk {
  const hunk: Hunk = { index, line: c.i + 1, anchors: [], lines: [], atEnd: false };
  // "@@" lines open the hunk; the first hunk may leave them out.
  while (c.i < c.last && c.lines[c.i]!.startsWith("@@")) {
    const header = c.lines[c.i]!.slice(2).trim();
    if (header !== "") hunk.anchors.push(header);
    c.i++;
  }
  while (c.i < c.last && !c.lines[c.i]!.startsWith("@@") && !isFileHeader(c.lines[c.i]!)) {
    const l = c.lines[c.i]!;
    if (l.trim() === EOF_MARK) {
      hunk.atEnd = true;
      c.i++;
      break;
    }
    const kind = l[0];
    if (kind === " " || kind === "-" || kind === "+") hunk.lines.push({ kind, text: l.slice(1) });
    // An empty line stands for an empty context line (its leading space is easily lost).
    else if (l === "") hunk.lines.push({ kind: " ", text: "" });
    else {
      throw new PatchSyntaxError(
        `${at(c.i)}: in hunk ${hunk.index} of "*** Update File: ${path}", ${JSON.stringify(l)} does not start with " " (context), "-" (remove) or "+" (add). Prefix every hunk line with one of them.`,
      );
    }
    c.i++;
  }
  if (!hunk.lines.some((l) => l.kind !== " ")) {
    throw new PatchSyntaxError(
      `${at(hunk.line - 1)}: hunk ${hunk.index} of "*** Update File: ${path}" changes nothing: give it "-" and/or "+" lines, or leave it out.`,
    );
  }
  return hunk;
}

function pathOf(line: string, marker: string, index: number): string {
  const path = line.slice(marker.length).trim();
  if (path === "")
    throw new PatchSyntaxError(`line ${index + 1}: "${marker.trim()}" names no file. Write the path after the colon.`);
  return path;
}

/** Why an Update or Delete File operation cannot apply: the file does not exist. */
export const missingFile = (path: string, kind: "update" | "delete") =>
  `File does not exist: ${path}. "*** ${kind === "update" ? "Update" : "Delete"} File:" needs an existing file; check the path, or create the file with "*** Add File:".`;
