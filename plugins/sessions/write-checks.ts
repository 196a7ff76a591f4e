/**
 * The run goes on only over what is stored: every model request, every tool call and the run's
 * last answer wait for what was written before them, and a store that refused this writer (or a
 * transcript that could not be written) ends the run there (`KernelSessions.endOf`).
 */
import {
  REQUEST_STAGE,
  type BeforeCall,
  type Kernel,
  type ModelRequest,
  type RunContext,
  type ToolCall,
} from "../../src/index";
import { type KernelSessions, NAME } from "./kernel-sessions";

/** Tap the model request (at its assemble stage), the tool call and the model's stop. */
export function tapWriteChecks(kernel: Kernel, sessions: KernelSessions): void {
  kernel.hooks.model.request.tapPromise({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, (request, run) =>
    checkRequest(sessions, request, run),
  );
  kernel.hooks.tool.beforeCall.tapPromise(NAME, (state, call) => checkToolCall(sessions, state, call));
  kernel.hooks.turn.stop.tapPromise(NAME, (_info, run) => checkStop(sessions, run));
}

/** The first request after a compaction carries the compacted history: checkpoint it, then wait for what was written. */
export async function checkRequest(
  sessions: KernelSessions,
  request: ModelRequest,
  run: RunContext,
): Promise<ModelRequest> {
  const open = run.agent || (request.purpose ?? "turn") !== "turn" ? undefined : sessions.writers.get(run.sessionId);
  if (open?.writer.compacted) open.writer.checkpoint(run.history);
  const end = await sessions.endOf(run);
  if (end) throw end;
  return request;
}

/**
 * A tool runs only once the response that asked for it is stored (its tool_use record is emitted
 * as it starts); a stale writer's tool never runs (the run then ends at its next request).
 */
export async function checkToolCall(sessions: KernelSessions, state: BeforeCall, call: ToolCall): Promise<BeforeCall> {
  const end = await sessions.endOf(call.run);
  return end ? { ...state, block: `Not run: ${end.message}` } : state;
}

/**
 * The model stopped: its last answer is stored before the run can end well. A store that refused
 * it (another writer appended after the last request) ends the run here, not in a success whose
 * answer the session lacks.
 */
export async function checkStop(sessions: KernelSessions, run: RunContext): Promise<undefined> {
  const end = run.agent ? undefined : await sessions.endOf(run);
  if (end) throw end;
  return undefined;
}
