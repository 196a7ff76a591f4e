/**
 * `ubiquity:telemetry`: OpenTelemetry spans for a run, in the GenAI semantic conventions. With
 * `telemetry: true` (the global tracer provider) or `telemetry: { tracer }`, each run is an
 * `invoke_agent` span (a subagent's nests under its Agent tool call's span), each turn a `turn`
 * span, each model call a `chat` span with the AI SDK's own spans inside it, each tool call an
 * `execute_tool` span (duration, permission verdict, error) and each compaction a `compact` span,
 * with token and cost attributes. Content (prompts, outputs, tool inputs and results) is recorded
 * only with `recordContent: true`, and always redacted. Nothing of OpenTelemetry is imported
 * unless telemetry is on: the packages load when the kernel gets ready.
 */
import type { Span } from "@opentelemetry/api";
import type { Telemetry } from "ai";
// Taps that open spans run first on their hook (`order: "first"`), taps that read outcomes last.
import {
  redactText,
  secretsOf,
  type CompactState,
  type KernelEvent,
  type ModelRequest,
  type RunContext,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { ATTR } from "./attributes";
import { loadOtel, type OtelModules } from "./load";
import { telemetryOptions, telemetrySetting } from "./options";
import { endOpen, fail, messageOf, parentContext, type RunSpans } from "./spans";
import { childTracer } from "./tracer";

export const NAME = "ubiquity:telemetry";
/** The instrumentation scope of the spans. */
export const TRACER_NAME = "ubiquity";

interface KernelState {
  otel?: OtelModules;
  loading?: Promise<OtelModules>;
  /** Runs with spans open, to find a run from a firehose message. */
  runs: Set<RunSpans>;
}

const now = () => performance.timeOrigin + performance.now();

function splitLabel(label: string | null | undefined): { provider?: string; model?: string } {
  if (!label) return {};
  const at = label.indexOf(":");
  return at < 0 ? { model: label } : { provider: label.slice(0, at), model: label.slice(at + 1) };
}

const textMessages = (role: string, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify([{ role, parts: [{ type: "text", content: text }], ...extra }]);

/** The telemetry plugin. */
export const telemetryPlugin = definePlugin({
  name: NAME,
  options: telemetryOptions,
  state: (): KernelState => ({ runs: new Set() }),
  runState: () => ({}) as { spans?: RunSpans },
  apply(kernel, context) {
    // Read when a hook runs, never during apply (apply only taps).
    const ks = (): KernelState => context.state;
    const setting = () => telemetrySetting(context.options);
    const load = () => (ks().loading ??= loadOtel().then((m) => (ks().otel = m)));
    const spansOf = (run: RunContext | undefined): RunSpans | undefined => (run ? context.run(run).spans : undefined);
    /** The run's spans and the modules, when this run is traced. */
    const traced = (run: RunContext): [OtelModules, RunSpans] | undefined => {
      const spans = spansOf(run);
      const otel = ks().otel;
      return spans && otel ? [otel, spans] : undefined;
    };

    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      if (setting()) await load();
    });

    kernel.hooks.session.start.tapPromise({ name: NAME, order: "first" }, async (run) => {
      const on = setting();
      if (!on) return;
      const otel = await load();
      const { trace, context: ctx, SpanKind } = otel.api;
      const secrets = secretsOf(run.options);
      const spans: RunSpans = {
        run,
        tracer: on.tracer ?? trace.getTracer(TRACER_NAME),
        recordContent: on.recordContent,
        redact: (text) => redactText(text, secrets),
        tools: new Map(),
      };
      // A subagent's run nests under the tool call that started it; a root run under whatever the host made active.
      const parent = spansOf(run.parent);
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
      ks().runs.add(spans);
    });

    kernel.hooks.session.end.tapPromise(NAME, async (run, result) => {
      const t = traced(run);
      if (!t) return;
      const [otel, spans] = t;
      ks().runs.delete(spans);
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
        if (!result.isError)
          span.setAttribute(ATTR.outputMessages, spans.redact(textMessages("assistant", result.result)));
      }
      if (result.isError) fail(otel, spans, span, result.result, result.subtype);
      else span.end();
    });

    kernel.hooks.turn.prompt.tap({ name: NAME, order: "last" }, (prompt, run) => {
      const spans = spansOf(run);
      if (spans && prompt.source === "user" && spans.prompt === undefined) spans.prompt = prompt.text;
      return prompt;
    });

    // turn.system runs once per turn, first thing: the turn's span opens there and closes at turn.end.
    kernel.hooks.turn.system.tap({ name: NAME, order: "first" }, (sections, run) => {
      const t = traced(run);
      if (!t) return sections;
      const [otel, spans] = t;
      if (spans.turn) spans.turn.end();
      const turn = run.numTurns + 1;
      spans.turn = spans.tracer.startSpan(
        "turn",
        { attributes: { [ATTR.turn]: turn } },
        parentContext(otel, spans, spans.span),
      );
      return sections;
    });

    kernel.hooks.turn.end.tap(NAME, (info, run) => {
      const spans = spansOf(run);
      if (!spans?.turn) return;
      spans.turn.setAttributes({
        [ATTR.toolCalls]: info.toolResults.length,
        ...(info.assistant.stopReason ? { [ATTR.stopReason]: info.assistant.stopReason } : {}),
      });
      spans.turn.end();
      spans.turn = undefined;
    });

    kernel.hooks.model.request.tap({ name: NAME, order: "last" }, (request: ModelRequest, run) => {
      const t = traced(run);
      if (!t) return request;
      const [otel, spans] = t;
      const purpose = request.purpose ?? "turn";
      const key = `${purpose}:${request.call}`;
      const { provider, model } = splitLabel(request.modelLabel);
      if (spans.model && spans.model.key !== key) {
        fail(otel, spans, spans.model.span, spans.model.error ?? "superseded by another model call", "model_error");
        spans.model = undefined;
      }
      if (!spans.model) {
        // A summary's call belongs to its compaction: the compaction span opens with it.
        if (purpose === "compact" && !spans.compaction) {
          spans.compaction = spans.tracer.startSpan(
            "compact",
            { startTime: spans.tierStart ?? now() },
            parentContext(otel, spans),
          );
        }
        const parent = purpose === "compact" ? spans.compaction : undefined;
        const span = spans.tracer.startSpan(
          `chat ${model ?? request.modelLabel}`,
          { kind: otel.api.SpanKind.CLIENT, attributes: { [ATTR.operation]: "chat", [ATTR.purpose]: purpose } },
          parentContext(otel, spans, parent),
        );
        // Nothing charged yet reads as 0 spent (totalCostUsd starts null: unknown until priced).
        spans.model = { span, key, purpose, costBefore: run.totalCostUsd ?? (run.usage.requests === 0 ? 0 : null) };
      }
      const { span } = spans.model;
      // A fallback rebuilds the request for another model: the span names the model last asked.
      span.setAttributes({
        ...(provider ? { [ATTR.provider]: provider } : {}),
        ...(model ? { [ATTR.requestModel]: model } : {}),
        ...(request.maxOutputTokens !== undefined ? { [ATTR.requestMaxTokens]: request.maxOutputTokens } : {}),
        ...(request.temperature !== undefined ? { [ATTR.requestTemperature]: request.temperature } : {}),
      });
      const tracer = childTracer(otel, spans.tracer, parentContext(otel, spans, span), spans.redact);
      const integration = new otel.OpenTelemetry({ tracer, agentSpanName: "functionId" });
      const previous = request.streamSettings?.telemetry;
      // Per-call integrations replace the ones registered with the AI SDK's registerTelemetry():
      // those are kept, so a host's own AI SDK telemetry goes on seeing Ubiquity's calls.
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
            functionId: previous?.functionId ?? `ubiquity.${purpose}`,
            integrations,
          },
        },
      };
    });

    kernel.hooks.model.error.tap({ name: NAME, order: "first" }, (info, run) => {
      const spans = spansOf(run);
      if (!spans?.model) return undefined;
      const message = messageOf(spans, info.error instanceof Error ? info.error.message : String(info.error));
      spans.model.error = message;
      spans.model.span.addEvent("exception", {
        "exception.message": message,
        "exception.type": (info.error as Error)?.name ?? "Error",
        "ubiquity.attempt": info.attempt,
      });
      return undefined;
    });

    kernel.hooks.model.response.tap({ name: NAME, order: "last" }, (response, run) => {
      const spans = spansOf(run);
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
    });

    // The kernel fires context.compacted once every tier ran: each tier's times (and a summary's
    // span) are kept as its report appears, at the first tap, between the tiers and at the last.
    const tierDone = (compact: CompactState, run: RunContext) => {
      const spans = spansOf(run);
      if (!spans) return compact;
      spans.tiers ??= new Map();
      for (const info of compact.compactions ?? [])
        if (!spans.tiers.has(info)) spans.tiers.set(info, { start: spans.tierStart ?? now(), end: now() });
      spans.tierStart = now();
      return compact;
    };
    kernel.hooks.context.compact.tap({ name: NAME, order: "first" }, tierDone);
    kernel.hooks.context.compact.tap(
      { name: NAME, after: "ubiquity:compaction-micro", before: "ubiquity:compaction-summarize" },
      tierDone,
    );
    kernel.hooks.context.compact.tap({ name: NAME, order: "last" }, (compact, run) => {
      const t = traced(run);
      if (!t) return compact;
      const [otel, spans] = t;
      const before = new Set(spans.tiers?.keys());
      tierDone(compact, run);
      const fresh = (compact.compactions ?? []).filter((info) => !before.has(info));
      // A summary that was written but not applied (it failed, or came out too long).
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
    });
    kernel.hooks.context.compacted.tap(NAME, (info, run) => {
      const t = traced(run);
      if (!t) return;
      const [otel, spans] = t;
      const tier = spans.tiers?.get(info);
      spans.tiers?.delete(info);
      const span =
        tier?.span ??
        spans.tracer.startSpan("compact", { startTime: tier?.start ?? now() }, parentContext(otel, spans));
      span.updateName(`compact ${info.tier}`);
      span.setAttributes({
        [ATTR.compactionTier]: info.tier,
        [ATTR.tokensBefore]: info.tokensBefore,
        [ATTR.tokensAfter]: info.tokensAfter,
        [ATTR.compactionApplied]: true,
      });
      span.end(tier?.end);
    });

    kernel.hooks.tool.beforeCall.tap({ name: NAME, order: "first" }, (before, call) => {
      const t = traced(call.run);
      if (!t) return before;
      const [otel, spans] = t;
      const span = spans.tracer.startSpan(
        `execute_tool ${call.toolName}`,
        {
          attributes: {
            [ATTR.operation]: "execute_tool",
            [ATTR.toolName]: call.toolName,
            [ATTR.toolCallId]: call.toolUseId,
            [ATTR.toolType]: "function",
          },
        },
        parentContext(otel, spans),
      );
      spans.tools.set(call.toolUseId, { span });
      return before;
    });

    kernel.hooks.tool.permission.tap({ name: NAME, order: "last" }, (verdict, call) => {
      const tool = spansOf(call.run)?.tools.get(call.toolUseId);
      if (!tool) return verdict;
      tool.verdict = verdict.behavior;
      tool.span.setAttributes({
        [ATTR.permissionVerdict]: verdict.behavior,
        ...(verdict.rule ? { [ATTR.permissionRule]: verdict.rule } : {}),
        ...(verdict.decidedBy ? { [ATTR.permissionDecidedBy]: verdict.decidedBy } : {}),
      });
      if (spansOf(call.run)!.recordContent)
        tool.span.setAttribute(ATTR.toolArguments, spansOf(call.run)!.redact(JSON.stringify(call.input)));
      return verdict;
    });

    kernel.hooks.tool.denied.tap(NAME, (denial, call) => {
      const tool = spansOf(call.run)?.tools.get(call.toolUseId);
      if (tool) tool.denied = denial.message;
    });

    // Every tool_use gets exactly one tool_result, on every path: the result ends the call's span.
    kernel.hooks.event.tap(NAME, (event: KernelEvent, run) => {
      if (event.type !== "message" || event.message.type !== "tool_result") return;
      const otel = ks().otel;
      const spans = spansOf(run);
      if (!otel || !spans) return;
      const message = event.message;
      let tool = spans.tools.get(message.toolUseId);
      spans.tools.delete(message.toolUseId);
      // Refused before the funnel's hooks (unknown tool, invalid input): a span for the time it took.
      const span: Span =
        tool?.span ??
        spans.tracer.startSpan(
          `execute_tool ${message.toolName}`,
          {
            startTime: now() - message.durationMs,
            attributes: {
              [ATTR.operation]: "execute_tool",
              [ATTR.toolName]: message.toolName,
              [ATTR.toolCallId]: message.toolUseId,
              [ATTR.toolType]: "function",
            },
          },
          parentContext(otel, spans),
        );
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
    });
  },
});

export default telemetryPlugin;
export { loadOtel, TelemetryUnavailableError, type ImportModule } from "./load";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
