/**
 * What a stored session says about a run a worker lost: whether it already finished, and which
 * tool calls were in flight (a `tool_use` stored without its `tool_result`) when it stopped.
 */
import type { ResultMessage } from "../../src/index";
import type { TranscriptRecord } from "../sessions/index";

/** A tool call the model made whose result never reached the store. */
export interface InFlightCall {
  toolUseId: string;
  toolName: string;
  input: unknown;
}

const main = (records: readonly TranscriptRecord[]) => records.filter((r) => r.message.agentId === undefined);

/** Result subtypes of a run that stopped because another worker has its job: not the run's end. */
const LOST = new Set(["error_lost_lease", "error_stale_writer"]);

/**
 * The kernel's result of a run whose signal aborted ("Run aborted.", or "Run aborted: <reason>"
 * when the abort gave one: a worker aborts with "lock lost"). In a fleet nobody aborts a run but
 * its worker, and only when it lost the job (its lock expired): such a result is where that worker
 * stopped, not the run's end, and the next worker must not complete the job with it.
 */
export const ABORTED_RESULT = "Run aborted.";
const aborted = (result: string) => result === ABORTED_RESULT || result.startsWith("Run aborted: ");

/** The main conversation's `result`, when the run got that far (then there is nothing to resume). */
export function finishedResult(records: readonly TranscriptRecord[]): ResultMessage | undefined {
  const last = main(records).at(-1)?.message;
  if (last?.type !== "result" || LOST.has(last.subtype)) return undefined;
  if (last.subtype === "error_during_execution" && aborted(last.result)) return undefined;
  return last as ResultMessage;
}

/** The calls of the last assistant message that have no stored result. */
export function inFlightCalls(records: readonly TranscriptRecord[]): InFlightCall[] {
  const chain = main(records);
  const answered = new Set(chain.flatMap((r) => (r.message.type === "tool_result" ? [r.message.toolUseId] : [])));
  const assistant = chain.findLast((r) => r.message.type === "assistant")?.message;
  if (assistant?.type !== "assistant") return [];
  return assistant.content.flatMap((block) =>
    block.type === "tool_call" && !answered.has(block.toolUseId)
      ? [{ toolUseId: block.toolUseId, toolName: block.toolName, input: block.input }]
      : [],
  );
}
