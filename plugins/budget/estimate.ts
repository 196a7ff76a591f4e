/**
 * The worst-case size and cost of one request, before it is sent.
 *
 * Input tokens: when the provider counted this run's previous request and the new one extends
 * that conversation (same first message, at least as many messages), the count plus an estimate
 * of the messages added since — the compaction kit's `pressureOf`, the same arithmetic the
 * compaction trigger uses; otherwise the kernel's `estimateTokens` over the instructions, the
 * messages and the tool schemas.
 *
 * Output tokens: the request's `maxOutputTokens` (`maxTokens`), else the model's limit from its
 * price table entry (`modelPricing: { "<model>": { …, maxOutputTokens } }`), else
 * `ASSUMED_OUTPUT_TOKENS`.
 *
 * Cache reads: a prefix counts as cached — priced at the cache-read rate — only when the previous
 * response of the same run and the same model reported those tokens as read from or written to the
 * cache, the new request extends that request's conversation, and that response came less than
 * `CACHE_TRUST_MS` ago (the shortest provider cache lifetime). Every other input token is priced at
 * the higher of the input and the cache-write rate, since the request may write it to the cache.
 */
import type { ModelMessage } from "ai";
import { toolJsonSchema, type ModelRequest, type Tool, type Usage } from "../../src/index";
import { estimateTokens } from "../_kits/compaction/index";
import { pressureOf } from "../_kits/compaction/index";
import type { PricingApi, PricingOptions } from "../pricing/api";

/** The output assumed when neither `maxTokens` nor the model's price entry bounds it (most models' output limit is at or below this). */
export const ASSUMED_OUTPUT_TOKENS = 32_000;
/** How long a reported cache is trusted: the shortest lifetime providers give a cached prefix (5 minutes). */
export const CACHE_TRUST_MS = 5 * 60_000;

/** What the provider reported for a run's last request (kept per run). */
export interface SentRecord {
  modelLabel: string;
  purpose: string;
  first: ModelMessage | undefined;
  messages: number;
  inputTokens: number;
  /** Tokens the provider read from or wrote to its cache: the prefix the next request may read. */
  cachedTokens: number;
  at: number;
}

/** Record what a response reported about its request. */
export function sentRecord(request: ModelRequest, usage: Usage, now = Date.now()): SentRecord {
  return {
    modelLabel: request.modelLabel,
    purpose: request.purpose ?? "turn",
    first: request.messages[0],
    messages: request.messages.length,
    inputTokens: usage.inputTokens,
    cachedTokens: usage.cacheReadTokens + usage.cacheWriteTokens,
    at: now,
  };
}

/** A request's worst case. */
export interface Estimate {
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  /** Input plus output. */
  tokens: number;
  /** USD; undefined when the model has no known price. */
  costUsd?: number;
}

const sameMessage = (a: ModelMessage | undefined, b: ModelMessage | undefined) =>
  a === b ||
  (a !== undefined && b !== undefined && a.role === b.role && JSON.stringify(a.content) === JSON.stringify(b.content));

/** Does `request` extend the conversation `sent` counted (so the count can stand for its prefix)? */
function extendsSent(request: ModelRequest, sent: SentRecord | undefined): sent is SentRecord {
  return (
    sent !== undefined &&
    sent.inputTokens > 0 &&
    sent.purpose === (request.purpose ?? "turn") &&
    request.messages.length >= sent.messages &&
    sameMessage(request.messages[0], sent.first)
  );
}

// A tool's entry as estimated, one object per tool: its schema is converted once, and the
// estimate's memo (by object) measures it once, not on every request.
const toolEntries = new WeakMap<Tool, { name: string; description: string; inputSchema: Record<string, unknown> }>();
const toolEntry = (t: Tool) => {
  let entry = toolEntries.get(t);
  if (!entry)
    toolEntries.set(t, (entry = { name: t.name, description: t.description, inputSchema: toolJsonSchema(t) }));
  return entry;
};

/** Input tokens of `request` (see the file comment). */
export function inputTokensOf(request: ModelRequest, sent: SentRecord | undefined): number {
  if (extendsSent(request, sent)) {
    return pressureOf({
      messages: request.messages,
      reported: { inputTokens: sent.inputTokens, messages: sent.messages },
      changed: false,
    });
  }
  const tools = request.toolList.map(toolEntry);
  return (
    estimateTokens(request.instructions) +
    estimateTokens(request.messages) +
    (tools.length > 0 ? estimateTokens(tools) : 0)
  );
}

/** The worst case of `request`: tokens always, USD when `priced` (the pricing API and the run's pricing options) is given. */
export async function estimateRequest(
  request: ModelRequest,
  sent: SentRecord | undefined,
  priced: { api: PricingApi; options: PricingOptions } | undefined,
  now = Date.now(),
): Promise<Estimate> {
  const inputTokens = inputTokensOf(request, sent);
  const fresh = extendsSent(request, sent) && sent.modelLabel === request.modelLabel && now - sent.at < CACHE_TRUST_MS;
  const cachedTokens = fresh ? Math.min(sent.cachedTokens, inputTokens) : 0;
  const outputTokens =
    request.maxOutputTokens ??
    (priced ? priced.api.outputLimit(request.modelLabel, priced.options) : undefined) ??
    ASSUMED_OUTPUT_TOKENS;
  const estimate: Estimate = { inputTokens, cachedTokens, outputTokens, tokens: inputTokens + outputTokens };
  if (!priced) return estimate;
  const usage = { inputTokens, outputTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0 };
  const [asInput, asWrite] = await Promise.all([
    priced.api.price(request.modelLabel, usage, priced.options),
    priced.api.price(request.modelLabel, { ...usage, cacheWriteTokens: inputTokens - cachedTokens }, priced.options),
  ]);
  if (asInput && asWrite) estimate.costUsd = Math.max(asInput.costUsd, asWrite.costUsd);
  return estimate;
}
