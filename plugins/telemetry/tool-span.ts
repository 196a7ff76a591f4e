/**
 * A tool call's `execute_tool` span: opened at `tool.beforeCall` (first tap), given the permission
 * verdict at `tool.permission` (last tap: the final one) and a denial's message at `tool.denied`.
 * Every tool_use gets exactly one tool_result, on every path, so the result on the `event`
 * firehose ends the span.
 */
import type { Span } from "@opentelemetry/api";
import type {
  BeforeCall,
  KernelEvent,
  PermissionDenial,
  PermissionVerdict,
  RunContext,
  ToolCall,
  ToolResultMessage,
} from "../../src/index";
import { ATTR } from "./attributes";
import type { OtelModules } from "./load";
import { fail, parentContext, type RunSpans } from "./spans";
import { now, spansOf, type TelemetryContext, traced } from "./state";

/** The attributes every tool span starts with. */
function toolAttributes(toolName: string, toolUseId: string) {
  return {
    [ATTR.operation]: "execute_tool",
    [ATTR.toolName]: toolName,
    [ATTR.toolCallId]: toolUseId,
    [ATTR.toolType]: "function",
  };
}

/** Open the call's span under the turn's. */
export function openToolSpan(context: TelemetryContext, before: BeforeCall, call: ToolCall): BeforeCall {
  const t = traced(context, call.run);
  if (!t) return before;
  const [otel, spans] = t;
  const span = spans.tracer.startSpan(
    `execute_tool ${call.toolName}`,
    { attributes: toolAttributes(call.toolName, call.toolUseId) },
    parentContext(otel, spans),
  );
  spans.tools.set(call.toolUseId, { span });
  return before;
}

/** The final verdict (and the rule and who decided), and the input when content is recorded. */
export function recordVerdict(
  context: TelemetryContext,
  verdict: PermissionVerdict,
  call: ToolCall,
): PermissionVerdict {
  const tool = spansOf(context, call.run)?.tools.get(call.toolUseId);
  if (!tool) return verdict;
  tool.verdict = verdict.behavior;
  tool.span.setAttributes({
    [ATTR.permissionVerdict]: verdict.behavior,
    ...(verdict.rule ? { [ATTR.permissionRule]: verdict.rule } : {}),
    ...(verdict.decidedBy ? { [ATTR.permissionDecidedBy]: verdict.decidedBy } : {}),
  });
  if (spansOf(context, call.run)!.recordContent)
    tool.span.setAttribute(ATTR.toolArguments, spansOf(context, call.run)!.redact(JSON.stringify(call.input)));
  return verdict;
}

/** A denied call: its span ends failed with the denial's message. */
export function recordDenial(context: TelemetryContext, denial: PermissionDenial, call: ToolCall): void {
  const tool = spansOf(context, call.run)?.tools.get(call.toolUseId);
  if (tool) tool.denied = denial.message;
}

/** A tool result ends its call's span: denied, failed or done, with its duration (and the result when content is recorded). */
export function closeToolSpan(context: TelemetryContext, event: KernelEvent, run: RunContext | undefined): void {
  if (event.type !== "message" || event.message.type !== "tool_result") return;
  const otel = context.state.otel;
  const spans = spansOf(context, run);
  if (!otel || !spans) return;
  const message = event.message;
  let tool = spans.tools.get(message.toolUseId);
  spans.tools.delete(message.toolUseId);
  const span = tool?.span ?? refusedCallSpan(otel, spans, message);
  tool ??= { span };
  span.setAttributes({
    [ATTR.toolDurationMs]: message.durationMs,
    ...(tool.verdict ? { [ATTR.permissionDecision]: tool.denied !== undefined ? "deny" : "allow" } : {}),
  });
  if (spans.recordContent) span.setAttribute(ATTR.toolResult, spans.redact(message.output.content));
  if (tool.denied !== undefined)
    fail(otel, spans, span, tool.denied, "permission_denied", { [ATTR.permissionDecision]: "deny" });
  else if (message.output.isError) fail(otel, spans, span, message.output.content, "tool_error");
  else span.end();
}

/** A call refused before the funnel's hooks (unknown tool, invalid input): a span for the time it took. */
function refusedCallSpan(otel: OtelModules, spans: RunSpans, message: ToolResultMessage): Span {
  return spans.tracer.startSpan(
    `execute_tool ${message.toolName}`,
    { startTime: now() - message.durationMs, attributes: toolAttributes(message.toolName, message.toolUseId) },
    parentContext(otel, spans),
  );
}
