/**
 * A turn its server refused as longer than the model's context window. A local server's window is
 * whatever it was started with (vLLM `--max-model-len`, llama.cpp `-c`, LM Studio's setting), which
 * no price table knows: a run that assumed 32k on an 8k server compacted too late, and the 400
 * ended it, though the history could be compacted. The window the refusal names is learned for the
 * rest of the run, the history compacted against it (both tiers, as before any turn), and the
 * request sent again — once per call: a request still too long after that fails with the hint.
 */
import type { Kernel, ModelErrorInfo, ModelRecovery, RunContext } from "../../src/index";
import { contextOverflow, learnWindow } from "../_kits/compaction/index";

// The call (its number in the run) each run last recovered: one recovery per call.
const recovered = new WeakMap<RunContext, number>();

/** Recover `info`'s call if its server refused it as too long and the history could be compacted. */
export async function compactOnOverflow(
  kernel: Kernel,
  info: ModelErrorInfo,
  run: RunContext,
): Promise<ModelRecovery | undefined> {
  const { request } = info;
  if ((request.purpose ?? "turn") !== "turn" || recovered.get(run) === request.call) return undefined;
  const overflow = contextOverflow(info.error);
  if (!overflow?.window) return undefined;
  recovered.set(run, request.call);
  learnWindow(run, overflow.window);
  // The refusal's count is what was sent: the tiers measure against it rather than an estimate.
  const reported = overflow.requested ? { inputTokens: overflow.requested, messages: run.history.length } : undefined;
  const state = await kernel.hooks.context.compact.promise(
    { messages: run.history, reported, changed: false, compactions: [] },
    run,
  );
  if (!state.changed) return undefined;
  run.history = state.messages;
  for (const compaction of state.compactions ?? []) await kernel.hooks.context.compacted.promise(compaction, run);
  const message =
    `${request.modelLabel}'s server refused a request as longer than its context window (${overflow.window} tokens): ` +
    `the history was compacted to fit and the request sent again. Set maxContextTokens: ${overflow.window} ` +
    `(or UBIQUITY_MAX_CONTEXT_TOKENS=${overflow.window}) to compact before the window is reached`;
  run.logger.warn(`[ubiquity:compaction-summarize] ${message}`);
  kernel.emit({ type: "warning", source: "ubiquity:compaction-summarize", message });
  return { retry: true, request: { ...request, messages: run.history } };
}
