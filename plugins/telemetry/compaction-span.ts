/**
 * Compaction spans (`compact <tier>`). The kernel fires `context.compacted` once every tier ran,
 * so each tier's times (and a summary's span) are kept as its report appears on `context.compact`
 * — at the first tap, between the tiers and at the last — and the span is made (or a summary's
 * ended) when `context.compacted` names the tier.
 */
import type { CompactInfo, CompactState, RunContext } from "../../src/index";
import { ATTR } from "./attributes";
import { fail, parentContext } from "./spans";
import { now, spansOf, type TelemetryContext, traced } from "./state";

/** Keep the start and end of each compaction reported since the last look; the next tier starts now. */
export function markTiers(context: TelemetryContext, compact: CompactState, run: RunContext): CompactState {
  const spans = spansOf(context, run);
  if (!spans) return compact;
  spans.tiers ??= new Map();
  for (const info of compact.compactions ?? [])
    if (!spans.tiers.has(info)) spans.tiers.set(info, { start: spans.tierStart ?? now(), end: now() });
  spans.tierStart = now();
  return compact;
}

/**
 * After the last tier: a summary's compaction span goes to the compaction it produced; one
 * written but not applied (it failed, or came out too long) ends as not applied.
 */
export function settleSummary(context: TelemetryContext, compact: CompactState, run: RunContext): CompactState {
  const t = traced(context, run);
  if (!t) return compact;
  const [otel, spans] = t;
  const before = new Set(spans.tiers?.keys());
  markTiers(context, compact, run);
  const fresh = (compact.compactions ?? []).filter((info) => !before.has(info));
  if (spans.model?.purpose === "compact")
    fail(otel, spans, spans.model.span, spans.model.error ?? "the summary call did not complete", "model_error");
  if (spans.model?.purpose === "compact") spans.model = undefined;
  if (spans.compaction && fresh.length > 0) spans.tiers!.get(fresh.at(-1)!)!.span = spans.compaction;
  else if (spans.compaction) {
    spans.compaction.setAttribute(ATTR.compactionApplied, false);
    spans.compaction.end();
  }
  spans.compaction = undefined;
  return compact;
}

/** The compaction's span, over the tier's own times, with its tier and token counts. */
export function closeCompactionSpan(context: TelemetryContext, info: CompactInfo, run: RunContext): void {
  const t = traced(context, run);
  if (!t) return;
  const [otel, spans] = t;
  const tier = spans.tiers?.get(info);
  spans.tiers?.delete(info);
  const span =
    tier?.span ?? spans.tracer.startSpan("compact", { startTime: tier?.start ?? now() }, parentContext(otel, spans));
  span.updateName(`compact ${info.tier}`);
  span.setAttributes({
    [ATTR.compactionTier]: info.tier,
    [ATTR.tokensBefore]: info.tokensBefore,
    [ATTR.tokensAfter]: info.tokensAfter,
    [ATTR.compactionApplied]: true,
  });
  span.end(tier?.end);
}
