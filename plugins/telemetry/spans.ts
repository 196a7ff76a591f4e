/** One run's open spans, and the small helpers that start and end them. */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { RunContext } from "../../src/index";
import type { OtelModules } from "./load";

/** A tool call's span while the call goes through the funnel. */
export interface ToolSpan {
  span: Span;
  denied?: string;
  verdict?: string;
}

/** A model call's span: one per `callModel`, across its retries and fallbacks. */
export interface ModelSpan {
  span: Span;
  key: string;
  purpose: string;
  costBefore: number | null;
  error?: string;
}

/** What the plugin keeps per run. */
export interface RunSpans {
  run: RunContext;
  tracer: Tracer;
  recordContent: boolean;
  redact: (text: string) => string;
  span?: Span;
  turn?: Span;
  model?: ModelSpan;
  tools: Map<string, ToolSpan>;
  compaction?: Span;
  /** When the current compaction tier began (epoch ms). */
  tierStart?: number;
  /** Each reported compaction's start, end and (a summary's) span, until the kernel fires `context.compacted` for it. */
  tiers?: Map<object, { start: number; end: number; span?: Span }>;
  prompt?: string;
}

/** The longest message a status or error attribute carries. */
export const MAX_MESSAGE = 500;

/** `text` redacted and capped, for a status message. */
export function messageOf(spans: RunSpans, text: string): string {
  const safe = spans.redact(text);
  return safe.length > MAX_MESSAGE ? `${safe.slice(0, MAX_MESSAGE)}…` : safe;
}

/** The context whose span is `span`'s parent-to-be: the innermost open span of the run. */
export function parentContext(otel: OtelModules, spans: RunSpans, inner?: Span): Context {
  const { trace, ROOT_CONTEXT } = otel.api;
  const span = inner ?? spans.turn ?? spans.span;
  return span ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT;
}

/** End `span` as failed with `message` (redacted, capped). */
export function fail(
  otel: OtelModules,
  spans: RunSpans,
  span: Span,
  message: string,
  errorType = "error",
  attributes: Attributes = {},
): void {
  span.setAttributes({ "error.type": errorType, ...attributes });
  span.setStatus({ code: otel.api.SpanStatusCode.ERROR, message: messageOf(spans, message) });
  span.end();
}

/** End every open span of the run below its run span, failed with `message`. */
export function endOpen(otel: OtelModules, spans: RunSpans, message: string): void {
  for (const [id, tool] of spans.tools) {
    fail(otel, spans, tool.span, message, "run_ended");
    spans.tools.delete(id);
  }
  if (spans.model)
    fail(otel, spans, spans.model.span, spans.model.error ?? message, spans.model.error ? "model_error" : "run_ended");
  spans.model = undefined;
  if (spans.compaction) fail(otel, spans, spans.compaction, message, "run_ended");
  spans.compaction = undefined;
  if (spans.turn) fail(otel, spans, spans.turn, message, "run_ended");
  spans.turn = undefined;
}
