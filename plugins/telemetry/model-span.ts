/**
 * A model call's `chat` span: one per `callModel`, across its retries and fallbacks. It opens at
 * `model.request` (last tap: the request as every other plugin left it), which also hands the AI
 * SDK a telemetry integration whose spans nest inside it; a failed attempt adds an `exception`
 * event at `model.error` (first tap), and `model.response` (last tap) closes it with usage and cost.
 */
import type { Span } from "@opentelemetry/api";
import type { Telemetry } from "ai";
import type { ModelErrorInfo, ModelRequest, ModelResponse, RunContext } from "../../src/index";
import { ATTR } from "./attributes";
import type { OtelModules } from "./load";
import { fail, messageOf, type ModelSpan, parentContext, type RunSpans } from "./spans";
import { now, spansOf, splitLabel, type TelemetryContext, traced } from "./state";
import { childTracer } from "./tracer";

/** The call's span (opened on its first request) named for the model last asked, and the request carrying the AI SDK's telemetry. */
export function traceRequest(context: TelemetryContext, request: ModelRequest, run: RunContext): ModelRequest {
  const t = traced(context, run);
  if (!t) return request;
  const [otel, spans] = t;
  const { span } = modelSpanFor(otel, spans, request, run);
  const { provider, model } = splitLabel(request.modelLabel);
  // A fallback rebuilds the request for another model: the span names the model last asked.
  span.setAttributes({
    ...(provider ? { [ATTR.provider]: provider } : {}),
    ...(model ? { [ATTR.requestModel]: model } : {}),
    ...(request.maxOutputTokens !== undefined ? { [ATTR.requestMaxTokens]: request.maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { [ATTR.requestTemperature]: request.temperature } : {}),
  });
  return withTelemetry(otel, spans, span, request);
}

/**
 * The span of the call `request` belongs to: the open one when it is the same call (a retry or a
 * fallback), else a new one (a different call's span still open fails as superseded).
 */
function modelSpanFor(otel: OtelModules, spans: RunSpans, request: ModelRequest, run: RunContext): ModelSpan {
  const purpose = request.purpose ?? "turn";
  const key = `${purpose}:${request.call}`;
  if (spans.model && spans.model.key !== key) {
    fail(otel, spans, spans.model.span, spans.model.error ?? "superseded by another model call", "model_error");
    spans.model = undefined;
  }
  if (spans.model) return spans.model;
  // A summary's call belongs to its compaction: the compaction span opens with it.
  if (purpose === "compact" && !spans.compaction) {
    spans.compaction = spans.tracer.startSpan(
      "compact",
      { startTime: spans.tierStart ?? now() },
      parentContext(otel, spans),
    );
  }
  const parent = purpose === "compact" ? spans.compaction : undefined;
  const { model } = splitLabel(request.modelLabel);
  const span = spans.tracer.startSpan(
    `chat ${model ?? request.modelLabel}`,
    { kind: otel.api.SpanKind.CLIENT, attributes: { [ATTR.operation]: "chat", [ATTR.purpose]: purpose } },
    parentContext(otel, spans, parent),
  );
  // Nothing charged yet reads as 0 spent (totalCostUsd starts null: unknown until priced).
  spans.model = { span, key, purpose, costBefore: run.totalCostUsd ?? (run.usage.requests === 0 ? 0 : null) };
  return spans.model;
}

/**
 * `request` with the AI SDK's telemetry on and one more integration, whose spans (redacted) nest
 * under the call's span. Per-call integrations replace the ones registered with the AI SDK's
 * registerTelemetry(): those are kept, so a host's own AI SDK telemetry goes on seeing Ubiquity's calls.
 */
function withTelemetry(otel: OtelModules, spans: RunSpans, span: Span, request: ModelRequest): ModelRequest {
  const tracer = childTracer(otel, spans.tracer, parentContext(otel, spans, span), spans.redact);
  const integration = new otel.OpenTelemetry({ tracer, agentSpanName: "functionId" });
  const previous = request.streamSettings?.telemetry;
  const registered =
    (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: Telemetry[] }).AI_SDK_TELEMETRY_INTEGRATIONS ?? [];
  const own = previous?.integrations === undefined ? registered : [previous.integrations].flat();
  const integrations = [...own, integration];
  return {
    ...request,
    streamSettings: {
      ...request.streamSettings,
      telemetry: {
        ...previous,
        isEnabled: true,
        recordInputs: spans.recordContent,
        recordOutputs: spans.recordContent,
        functionId: previous?.functionId ?? `ubiquity.${request.purpose ?? "turn"}`,
        integrations,
      },
    },
  };
}

/** A failed attempt: an `exception` event on the call's span, its message kept in case the call ends failed. */
export function recordModelError(context: TelemetryContext, info: ModelErrorInfo, run: RunContext): undefined {
  const spans = spansOf(context, run);
  if (!spans?.model) return undefined;
  const message = messageOf(spans, info.error instanceof Error ? info.error.message : String(info.error));
  spans.model.error = message;
  spans.model.span.addEvent("exception", {
    "exception.message": message,
    "exception.type": (info.error as Error)?.name ?? "Error",
    "ubiquity.attempt": info.attempt,
  });
  return undefined;
}

/** Close the call's span with the model that answered, its usage and what the call cost. */
export function closeModelSpan(context: TelemetryContext, response: ModelResponse, run: RunContext): void {
  const spans = spansOf(context, run);
  const open = spans?.model;
  if (!spans || !open) return;
  const u = response.usage;
  const cost =
    typeof run.totalCostUsd === "number" && typeof open.costBefore === "number"
      ? run.totalCostUsd - open.costBefore
      : undefined;
  open.span.setAttributes({
    [ATTR.responseModel]: splitLabel(response.modelLabel).model ?? response.modelLabel,
    [ATTR.finishReasons]: [response.finishReason],
    [ATTR.inputTokens]: u.inputTokens,
    [ATTR.outputTokens]: u.outputTokens,
    [ATTR.cacheReadTokens]: u.cacheReadTokens,
    [ATTR.cacheWriteTokens]: u.cacheWriteTokens,
    ...(cost !== undefined ? { [ATTR.costUsd]: cost } : {}),
  });
  open.span.end();
  spans.model = undefined;
}
