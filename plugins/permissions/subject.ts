/**
 * What rules are matched against for one call: the commands of a shell call (with the files it
 * writes judged against the roots and the sensitive list), the paths of a file tool (in both
 * forms), or the content strings any other tool declares (`permissionRuleContent`).
 */
import { resolve } from "node:path";
import { analyzeShell } from "./shell/analyze";
import type { ShellAnalysis, WriteTarget } from "./shell/types";
import { insideRoots, judgePath, type JudgedPath } from "./paths";
import { sensitiveReason } from "./sensitive";
import type { ToolKinds } from "./policy";

/** Where a call runs. */
export interface Place {
  cwd: string;
  home: string;
  /** The permitted roots, resolved. */
  roots: readonly string[];
}

/** The subject of a decision. */
export type Subject =
  | {
      kind: "shell";
      analysis: ShellAnalysis;
      /** Why no allow rule may cover it (analysis reasons plus where it writes). */
      unsafe: string[];
      /** Why it touches a sensitive path, if it does. */
      sensitive?: string;
      /** Files it writes through a redirect or a program's output, inside the roots: edits, as Write's would be. */
      edits: JudgedPath[];
      /** Every file it writes whose name is known (for Edit/Write deny and ask rules). */
      writes: JudgedPath[];
      /** Files it reads through `<` or a reading program's operands (for Read deny and ask rules); judged on first use. */
      reads: () => JudgedPath[];
    }
  | { kind: "path"; paths: JudgedPath[]; written: string[]; sensitive?: string; outside: boolean }
  | { kind: "other"; strings: string[] | undefined };

/** Files writing to which is harmless wherever the roots are. */
export const DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** Build the subject of a call. `ruleContent` is the tool's own `permissionRuleContent`. */
export function buildSubject(
  toolName: string,
  input: Record<string, unknown>,
  ruleContent: string[] | undefined,
  kinds: ToolKinds,
  place: Place,
): Subject {
  if (kinds.shell.has(toolName) && typeof input.command === "string") return shellSubject(analyzeShell(input.command), place);
  if (kinds.path.has(toolName)) {
    const written = ruleContent ?? fallbackPaths(toolName, input);
    const paths = written.map((p) => judgePath(place.cwd, place.home, p));
    const sensitive = kinds.edit.has(toolName) ? paths.map((p) => pathSensitive(p)).find(Boolean) : undefined;
    return { kind: "path", paths, written, sensitive, outside: paths.some((p) => !insideRoots(p, place.roots)) };
  }
  return { kind: "other", strings: ruleContent };
}

// Used when a path tool does not say which paths it touches (or decidePermission has no Tool).
function fallbackPaths(toolName: string, input: Record<string, unknown>): string[] {
  for (const key of ["file_path", "notebook_path", "path"]) {
    if (typeof input[key] === "string") return [input[key] as string];
  }
  return toolName === "Glob" || toolName === "Grep" ? ["."] : [];
}

/** Why a judged path is sensitive (either form), if it is. */
export function pathSensitive(path: JudgedPath): string | undefined {
  // A path that cannot be resolved (a symlink loop) cannot be shown to be harmless.
  if (path.real === undefined) return "it cannot be resolved (a symlink loop?)";
  return sensitiveReason(path.absolute) ?? sensitiveReason(path.real);
}

function shellSubject(analysis: ShellAnalysis, place: Place): Subject {
  const unsafe = [...analysis.unsafe];
  let sensitive: string | undefined;
  const edits: JudgedPath[] = [];
  const writes: JudgedPath[] = [];
  // After `cd x`, a relative file name may be under x: judge it against every place it could be.
  const cdBases = analysis.cdTargets.map((w) => (w.tilde ? place.home + w.value.slice(1) : resolve(place.cwd, w.value)));
  for (const write of analysis.writes) {
    // A redirect and a program's named output are judged alike; plain operands (cp, rm, …) only against the sensitive list.
    const judged = write.kind !== "argument";
    const target = writePath(write, place);
    if (target === undefined) {
      if (judged) unsafe.push(`it writes to a file only known at run time (${write.word.text})`);
      continue;
    }
    if (DEVICES.test(target)) continue;
    const relative = !target.startsWith("/");
    const bases = relative ? [place.cwd, ...cdBases] : [place.cwd];
    if (relative && analysis.cdUnknown) {
      sensitive ??= `it writes ${target} after changing to a folder only known at run time`;
      if (judged) unsafe.push(`it writes to ${target} after changing to a folder only known at run time`);
    }
    for (const base of bases) {
      const path = judgePath(base, place.home, target);
      writes.push(path);
      const why = pathSensitive(path);
      if (why) sensitive ??= `it writes ${path.absolute}: ${why}`;
      if (!judged) continue;
      if (insideRoots(path, place.roots)) edits.push(path);
      else unsafe.push(`it writes to ${path.real ?? path.absolute}, outside the permitted folders`);
    }
  }
  // Resolving paths costs syscalls: only a Read rule needs them.
  let judgedReads: JudgedPath[] | undefined;
  const reads = () =>
    (judgedReads ??= analysis.reads.flatMap((word) => {
      if (!word.literal) return [];
      const value = word.tilde ? place.home + word.value.slice(1) : word.value;
      return (value.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases]).map((base) => judgePath(base, place.home, value));
    }));
  return { kind: "shell", analysis, unsafe: [...new Set(unsafe)], sensitive, edits, writes, reads };
}

function writePath(write: WriteTarget, place: Place): string | undefined {
  const word = write.word;
  if (!word.literal || word.value === "") return undefined;
  if (word.tilde) return place.home + word.value.slice(1);
  return word.value;
}
