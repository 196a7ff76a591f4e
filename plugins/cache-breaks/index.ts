/**
 * `ubiquity:cache-breaks`: `detectCacheBreaks: true` [false]. Cache breaks are silent — nothing
 * fails, the bill just grows. After each response, when the cache-read count falls by more than
 * 5% and by more than 2,000 tokens (a proportional test alone fires constantly on small
 * conversations, an absolute one alone misses large ones), a warning event and a log line name
 * what changed since the previous request: the model, the system prompt, the tool set, or one
 * tool's schema or description, and what other plugins noted (`noteCacheChange`: an MCP server
 * that re-listed its tools). Compaction resets the baseline (it drops history on purpose).
 * Providers that report no cache tokens hold the count at zero and so stay silent.
 */
import { REQUEST_STAGE, type ModelResponse, type RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { changes, snapshot, type PrefixSnapshot } from "./snapshot";
import { takeCacheChanges } from "./api";
import { cacheBreaksOptions } from "./options";

export const NAME = "ubiquity:cache-breaks";

/** A drop must exceed both to count as a break. */
export const MIN_DROP_TOKENS = 2_000;
export const MIN_DROP_SHARE = 0.05;

interface RunState {
  /** The last request the loop sent (responses to other calls, like a summary, are not compared). */
  sent?: { call: number; prefix: PrefixSnapshot; noted: string[] };
  /** The last compared response: its cache reads and the prefix it was sent with. */
  baseline?: { cacheRead: number; prefix: PrefixSnapshot };
}

/** True when a fall from `before` to `after` cache-read tokens is a break. */
export function isBreak(before: number, after: number): boolean {
  const drop = before - after;
  return drop > MIN_DROP_TOKENS && drop > before * MIN_DROP_SHARE;
}

/** The log line of a break. */
export function describeBreak(reasons: string[], call: number, before: number, after: number, written: number): string {
  const what = reasons.length
    ? reasons.join("; ")
    : "no change to the model, system prompt or tools (the cache may have expired or been evicted)";
  return `prompt cache break: ${what} [call #${call}, cache read ${before} -> ${after}, written ${written}]`;
}

/** The cache-break detector. */
export const cacheBreaksPlugin = definePlugin({
  name: NAME,
  options: cacheBreaksOptions,
  runState: (): RunState => ({}),
  apply(kernel, context) {
    const stateOf = (run: RunContext): RunState => context.run(run);
    const on = (run: RunContext) => context.optionsOf(run).detectCacheBreaks === true;

    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.OBSERVE }, (request, run) => {
      // Only the loop's turns share a prefix worth comparing (a summary's request is its own).
      if (on(run) && (request.purpose ?? "turn") === "turn")
        stateOf(run).sent = { call: request.call, prefix: snapshot(request), noted: takeCacheChanges(kernel) };
      return request;
    });

    kernel.hooks.model.response.tap(NAME, (response: ModelResponse, run) => {
      if (!on(run)) return;
      const s = stateOf(run);
      // A fallback answers the same call with another model; anything else is not the loop's request.
      if (!s.sent || response.request.call !== s.sent.call) return;
      const prefix = { ...s.sent.prefix, model: response.modelLabel };
      const { cacheReadTokens: read, cacheWriteTokens: written } = response.usage;
      const before = s.baseline;
      s.baseline = { cacheRead: read, prefix };
      if (!before || !isBreak(before.cacheRead, read)) return;
      // What plugins said they changed before this request went out (an MCP server's new tools).
      const message = describeBreak(
        [...s.sent.noted, ...changes(before.prefix, prefix)],
        response.request.call,
        before.cacheRead,
        read,
        written,
      );
      run.logger.warn(message);
      kernel.emit({ type: "warning", source: NAME, message });
    });

    kernel.hooks.context.compacted.tap(NAME, (_info, run) => {
      stateOf(run).baseline = undefined;
    });
  },
});

export default cacheBreaksPlugin;
export { snapshot, changes, type PrefixSnapshot, type ToolHashes } from "./snapshot";
export { noteCacheChange } from "./api";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
