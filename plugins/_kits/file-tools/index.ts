/**
 * The file-tools kit: what the built-in tools share (Read, Write, Edit, Glob, Grep, and the
 * refusal/plugin plumbing Bash, TodoWrite and AskUserQuestion use too). Not a plugin: the only
 * file other folders import.
 */
export { ToolFailure, guard } from "./tool-failure";
export { globMatchingCost } from "./glob-cost";
export { registerBuiltinTool } from "./builtin-tool-plugin";
export { PathTool } from "./path-tool";
export { resolvePermitted, assertAsJudged, outsideRoots, displayPath, placeName, type ResolvedPath } from "./paths";
export {
  contentHash,
  readStateOf,
  recordRead,
  recordWrite,
  assertReadInFull,
  type FileSnapshot,
  type FileReadRecord,
} from "./read-state";
export {
  decodeText,
  encodeText,
  detectLineEnding,
  withLineEnding,
  splitLines,
  numberLines,
  MAX_LINE_CHARS,
  type LineEnding,
  type TextFile,
} from "./text-file";
export { openWriteTarget, commitWrite, writeRefusal, type WriteTarget } from "./existing-file";
export {
  openJudged,
  readJudged,
  writeJudged,
  removeJudged,
  raceSeams,
  type RacePoint,
  type JudgedRead,
  type JudgedHandle,
} from "./judged-file";
export { PathSwapped, folderSeams, holdFolder, type HeldFolder } from "./held-folder";
export { looksBinary, binaryKind } from "./binary";
export { setHostFiles, hostFilesOf, hostBytes, type HostFiles } from "./host-files";
export { imageInfo, type ImageInfo } from "./image";
