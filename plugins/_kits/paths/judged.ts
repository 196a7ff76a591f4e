/**
 * Where the permission engine found a tool call's paths to lead, kept for the tool that runs the
 * call: the file tools write the file that was judged, not whatever the path leads to a moment
 * later (another process may have swapped a folder on it for a link to `.git` in between).
 */
import type { RunContext } from "../../../src/index";

/** One judged path: as written (absolute) and fully resolved (undefined: could not be resolved). */
export interface JudgedTarget {
  absolute: string;
  real: string | undefined;
}

const JUDGED = Symbol("ubiquity:judged paths");

function judgedOf(run: RunContext): Map<string, JudgedTarget[]> {
  let byCall = run.state.get(JUDGED) as Map<string, JudgedTarget[]> | undefined;
  if (!byCall) run.state.set(JUDGED, (byCall = new Map()));
  return byCall;
}

/** Record the paths a call was judged on (the engine, once per call it lets through or asks about). */
export function recordJudged(run: RunContext, toolUseId: string, paths: readonly JudgedTarget[]): void {
  judgedOf(run).set(toolUseId, [...paths]);
}

/**
 * The judgement of `absolute` in call `toolUseId`, taken out (a call runs once): undefined when
 * nothing judged that path (no permission engine, a hand-made context, an input a handler rewrote).
 */
export function takeJudged(run: RunContext | undefined, toolUseId: string, absolute: string): JudgedTarget | undefined {
  const state = run?.state; // a hand-made context may carry a partial run
  if (!state) return undefined;
  const byCall = state.get(JUDGED) as Map<string, JudgedTarget[]> | undefined;
  const paths = byCall?.get(toolUseId);
  if (!paths) return undefined;
  // Each path is taken once; a call that writes several files (apply_patch) takes each in turn.
  const at = paths.findIndex((p) => p.absolute === absolute);
  const found = at === -1 ? undefined : paths.splice(at, 1)[0];
  if (paths.length === 0 || found === undefined) byCall!.delete(toolUseId);
  return found;
}
