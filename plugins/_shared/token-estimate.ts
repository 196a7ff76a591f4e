/**
 * The compaction tiers' token estimate (characters / 4), and the pressure on the window the next
 * request puts: the provider's count for the last request (`CompactState.reported`) plus an
 * estimate of what was added since — the tool results that just landed are never in that count.
 * Without a usable count (first turn, a provider that never reports, history replaced) the whole
 * history is estimated. Owned by the compaction tiers (it moves into their kit).
 */
import type { CompactState } from "../../src/index";

/** Estimated tokens of `value` serialized (characters / 4). */
export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);

/** Tokens the next request will carry: the state's estimate when a tier already made one. */
export function pressureOf(state: CompactState): number {
  if (state.estimatedTokens !== undefined) return state.estimatedTokens;
  const { messages, reported } = state;
  if (!reported || reported.inputTokens <= 0 || messages.length < reported.messages) return estimateTokens(messages);
  return reported.inputTokens + estimateTokens(messages.slice(reported.messages));
}
