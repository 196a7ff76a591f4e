/**
 * The pressure on the window the next
 * request puts: the provider's count for the last request (`CompactState.reported`) plus an
 * estimate of what was added since — the tool results that just landed are never in that count.
 * Without a usable count (first turn, a provider that never reports, history replaced) the whole
 * history is estimated. Owned by the compaction tiers; the estimate itself is the kernel's one (`estimateTokens`).
 */
import { estimateTokens, type CompactState } from "../../../src/index";

/** Tokens the next request will carry: the state's estimate when a tier already made one. */
export function pressureOf(state: CompactState): number {
  if (state.estimatedTokens !== undefined) return state.estimatedTokens;
  const { messages, reported } = state;
  if (!reported || reported.inputTokens <= 0 || messages.length < reported.messages) return estimateTokens(messages);
  return reported.inputTokens + estimateTokens(messages.slice(reported.messages));
}
