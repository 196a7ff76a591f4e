/**
 * The tracer handed to the AI SDK's OpenTelemetry integration for one model call. The
 * integration starts its root span under the active context, which the kernel's call path
 * cannot set (it needs a context manager and a callback around `streamText`); this tracer gives
 * a span started without a parent span the model-call span as its parent, so the AI SDK's
 * spans nest inside it whether or not a context manager is registered. Every string it records
 * goes through the run's redaction.
 */
import type { Attributes, Context, Span, SpanOptions, Tracer } from "@opentelemetry/api";
import type { OtelModules } from "./load";

type Redact = (text: string) => string;

function redactAttribute(value: unknown, redact: Redact): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? redact(v) : v));
  return value;
}

/** `attributes` with every string value redacted. */
export function redactAttributes(attributes: Attributes | undefined, redact: Redact): Attributes | undefined {
  if (!attributes) return attributes;
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    out[key] = redactAttribute(value, redact) as Attributes[string];
  return out;
}

/** `span`, with what is recorded on it redacted. */
function redactingSpan(span: Span, redact: Redact): Span {
  const wrapped: Span = Object.create(span) as Span;
  Object.assign(wrapped, {
    setAttribute: (key: string, value: unknown) => (
      span.setAttribute(key, redactAttribute(value, redact) as never), wrapped
    ),
    setAttributes: (attributes: Attributes) => (span.setAttributes(redactAttributes(attributes, redact)!), wrapped),
    addEvent: (name: string, attributes?: unknown, time?: unknown) => (
      span.addEvent(
        name,
        typeof attributes === "object" &&
          attributes !== null &&
          !(attributes instanceof Date) &&
          !Array.isArray(attributes)
          ? redactAttributes(attributes as Attributes, redact)
          : (attributes as never),
        time as never,
      ),
      wrapped
    ),
    setStatus: (status: { code: number; message?: string }) => (
      span.setStatus({ ...status, message: status.message === undefined ? undefined : redact(status.message) }), wrapped
    ),
    recordException: (exception: unknown, time?: unknown) => {
      const e = exception as { message?: unknown; stack?: unknown };
      const safe =
        typeof exception === "string"
          ? redact(exception)
          : {
              name: (exception as { name?: string })?.name,
              message: typeof e?.message === "string" ? redact(e.message) : undefined,
            };
      span.recordException(safe as never, time as never);
    },
    spanContext: () => span.spanContext(),
    isRecording: () => span.isRecording(),
    updateName: (name: string) => (span.updateName(name), wrapped),
    end: (time?: unknown) => span.end(time as never),
  });
  return wrapped;
}

/** A tracer whose parentless spans start under `parent`, recording through `redact`. */
export function childTracer(otel: OtelModules, tracer: Tracer, parent: Context, redact: Redact): Tracer {
  const { trace, context } = otel.api;
  const start = (name: string, options: SpanOptions | undefined, ctx: Context | undefined): Span => {
    const base = ctx !== undefined && trace.getSpan(ctx) !== undefined ? ctx : parent;
    const span = tracer.startSpan(
      name,
      options && { ...options, attributes: redactAttributes(options.attributes, redact) },
      base,
    );
    return redactingSpan(span, redact);
  };
  return {
    startSpan: (name, options, ctx) => start(name, options, ctx),
    startActiveSpan: ((name: string, ...rest: unknown[]) => {
      const fn = rest.pop() as (span: Span) => unknown;
      const [options, ctx] = rest as [SpanOptions | undefined, Context | undefined];
      const span = start(name, options, ctx);
      return context.with(trace.setSpan(ctx ?? parent, span), fn, undefined, span);
    }) as Tracer["startActiveSpan"],
  };
}
