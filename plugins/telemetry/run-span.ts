/**
 * The run's own span (`invoke_agent`): opened first thing at `session.start`, so every other span
 * of the run nests under it, and closed at `session.end` with the run's usage, cost and outcome.
 * The modules load at `kernel.ready` when telemetry is on, so the first run pays nothing extra.
 */
import { redactText, secretsOfRun, type ResultMessage, type RunContext, type TurnPrompt } from "../../src/index";
import { ATTR } from "./attributes";
import { endOpen, fail, parentContext, type RunSpans } from "./spans";
import {
  loadModules,
  settingOf,
  spansOf,
  splitLabel,
  type TelemetryContext,
  textMessages,
  traced,
  TRACER_NAME,
} from "./state";

/**
 * Open the run's span and keep the run's spans in its state. A subagent's run nests under the
 * tool call that started it; a root run under whatever the host made active.
 */
export async function openRunSpan(context: TelemetryContext, run: RunContext): Promise<void> {
  const on = settingOf(context);
  if (!on) return;
  const otel = await loadModules(context);
  const { trace, context: ctx, SpanKind } = otel.api;
  const spans: RunSpans = {
    run,
    tracer: on.tracer ?? trace.getTracer(TRACER_NAME),
    recordContent: on.recordContent,
    // Asked at each use: a secret learned during the run (an MCP server's token) counts too.
    redact: (text) => redactText(text, secretsOfRun(run)),
    tools: new Map(),
  };
  const parent = spansOf(context, run.parent);
  const toolSpan = run.agent && parent?.tools.get(run.agent.parentToolUseId)?.span;
  const parentCtx = parent ? parentContext(otel, parent, toolSpan || undefined) : ctx.active();
  const agentName = run.agent?.agentType ?? TRACER_NAME;
  const { provider, model } = splitLabel(run.modelLabel);
  spans.span = spans.tracer.startSpan(
    `invoke_agent ${agentName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR.operation]: "invoke_agent",
        [ATTR.agentName]: agentName,
        ...(run.agent ? { [ATTR.agentId]: run.agent.agentId } : {}),
        ...(provider ? { [ATTR.provider]: provider } : {}),
        ...(model ? { [ATTR.requestModel]: model } : {}),
      },
    },
    parentCtx,
  );
  context.run(run).spans = spans;
  context.state.runs.add(spans);
}

/**
 * Close the run's span: what is still open below it fails (the run ended first), then the span
 * gets the run's totals, its prompt and answer when content is recorded, and its outcome.
 */
export function closeRunSpan(context: TelemetryContext, run: RunContext, result: ResultMessage): void {
  const t = traced(context, run);
  if (!t) return;
  const [otel, spans] = t;
  context.state.runs.delete(spans);
  endOpen(otel, spans, result.isError ? result.result : "the run ended before this finished");
  const span = spans.span!;
  const u = run.usage;
  span.setAttributes({
    [ATTR.conversationId]: run.sessionId,
    [ATTR.inputTokens]: u.inputTokens,
    [ATTR.outputTokens]: u.outputTokens,
    [ATTR.cacheReadTokens]: u.cacheReadTokens,
    [ATTR.cacheWriteTokens]: u.cacheWriteTokens,
    [ATTR.numTurns]: result.numTurns,
    [ATTR.resultSubtype]: result.subtype,
    ...(typeof run.totalCostUsd === "number" ? { [ATTR.costUsd]: run.totalCostUsd } : {}),
  });
  if (spans.recordContent) {
    if (spans.prompt !== undefined)
      span.setAttribute(ATTR.inputMessages, spans.redact(textMessages("user", spans.prompt)));
    if (!result.isError) span.setAttribute(ATTR.outputMessages, spans.redact(textMessages("assistant", result.result)));
  }
  if (result.isError) fail(otel, spans, span, result.result, result.subtype);
  else span.end();
}

/** Keep the run's first user prompt (as the other taps left it), for the run span's input messages. */
export function keepPrompt(context: TelemetryContext, prompt: TurnPrompt, run: RunContext): TurnPrompt {
  const spans = spansOf(context, run);
  if (spans && prompt.source === "user" && spans.prompt === undefined) spans.prompt = prompt.text;
  return prompt;
}
