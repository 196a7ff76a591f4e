/** The OpenTelemetry SDK's in-memory exporter behind a tracer, and ways to read the span tree it caught. */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/**
 * A tracer whose spans land in `exporter`. `settled()` waits until every started span has ended:
 * the AI SDK ends its own spans as its stream winds down, which may come a moment after the run's
 * last message.
 */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  let open = 0;
  const counter: SpanProcessor = {
    onStart: () => void open++,
    onEnd: () => void open--,
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({ spanProcessors: [counter, new SimpleSpanProcessor(exporter)] });
  const settled = async (timeoutMs = 60_000) => {
    for (const start = Date.now(); open > 0; ) {
      if (Date.now() - start > timeoutMs) throw new Error(`${open} span(s) never ended`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return exporter;
  };
  return { tracer: provider.getTracer("test"), exporter, provider, settled };
}

/** The finished spans with lookups by id, name and parent. */
export function tree(exporter: InMemorySpanExporter) {
  const spans = exporter.getFinishedSpans();
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s] as const));
  const parentOf = (s: ReadableSpan) => (s.parentSpanContext ? byId.get(s.parentSpanContext.spanId) : undefined);
  const named = (name: string | RegExp) =>
    spans.filter((s) => (typeof name === "string" ? s.name === name : name.test(s.name)));
  const one = (name: string | RegExp) => {
    const found = named(name);
    if (found.length !== 1)
      throw new Error(`expected one span named ${name}, found ${found.length}: ${spans.map((s) => s.name).join(", ")}`);
    return found[0]!;
  };
  const childrenOf = (s: ReadableSpan) => spans.filter((c) => parentOf(c) === s);
  const ancestors = (s: ReadableSpan) => {
    const out: ReadableSpan[] = [];
    for (let p = parentOf(s); p; p = parentOf(p)) out.push(p);
    return out;
  };
  /** Each span as `name <- parent name`, indented by depth, for failure messages. */
  const outline = () => spans.map((s) => `${"  ".repeat(ancestors(s).length)}${s.name}`).join("\n");
  return { spans, byId, parentOf, named, one, childrenOf, ancestors, outline };
}
