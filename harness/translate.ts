/**
 * Ubiquity's messages as the harness's stream parts, one turn at a time. A Ubiquity response is
 * a harness step: its deltas become text/reasoning blocks, its tool calls `tool-call` parts, the
 * answers of those calls `tool-result` parts, and the step ends (`finish-step`) once every call
 * of the response is answered. The stretch's `result` ends the turn (`finish`).
 */
import type { HarnessV1StreamPart } from "@ai-sdk/harness";
import type { JSONValue } from "@ai-sdk/provider";
import type { AssistantMessage, Message, ResultMessage, StopReason, Usage } from "../src/index";

import { ASK_USER, HARNESS_QUESTIONS, toHarnessQuestions } from "./questions";

type Emit = (part: HarnessV1StreamPart) => void;
type FinishReason = Extract<HarnessV1StreamPart, { type: "finish" }>["finishReason"];
type HarnessUsage = Extract<HarnessV1StreamPart, { type: "finish" }>["totalUsage"];

/** Ubiquity's usage as the AI SDK's (Ubiquity's input count already includes cached tokens). */
export function harnessUsage(u: Usage): HarnessUsage {
  return {
    inputTokens: {
      total: u.inputTokens,
      noCache: Math.max(0, u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens),
      cacheRead: u.cacheReadTokens,
      cacheWrite: u.cacheWriteTokens,
    },
    outputTokens: { total: u.outputTokens, text: undefined, reasoning: undefined },
  };
}

/** `b - a`, field by field: a stretch's own usage from the session totals a `result` carries. */
function usageSince(a: Usage, b: Usage): Usage {
  return {
    inputTokens: b.inputTokens - a.inputTokens,
    outputTokens: b.outputTokens - a.outputTokens,
    cacheReadTokens: b.cacheReadTokens - a.cacheReadTokens,
    cacheWriteTokens: b.cacheWriteTokens - a.cacheWriteTokens,
    requests: b.requests - a.requests,
    toolCalls: b.toolCalls - a.toolCalls,
  };
}

const REASONS: Record<StopReason, FinishReason["unified"]> = {
  end_turn: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  refusal: "content-filter",
  other: "other",
};

function finishReason(stop: StopReason | null): FinishReason {
  return stop ? { unified: REASONS[stop], raw: stop } : { unified: "other", raw: undefined };
}

const NO_USAGE: HarnessUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** How the translator classifies a tool call by its name. */
export interface ToolKinds {
  /** A tool the harness host executes (a `HarnessAgent` tool): its call is not provider-executed. */
  isHost(toolName: string): boolean;
  /** What the host submitted for a host tool's call (echoed as its result). */
  hostOutput(toolCallId: string): NonNullable<JSONValue> | undefined;
  /** A tool the harness declares in `builtinTools` (otherwise the call is marked `dynamic`). */
  isDeclared(toolName: string): boolean;
}

/** Translates the messages of one turn; `push` returns a stretch's `result`, and `finish`/`fail` end the turn. */
export class TurnTranslator {
  #emit: Emit;
  #block?: { kind: "text" | "reasoning"; id: string };
  #streamed = { text: false, reasoning: false };
  #unanswered = new Set<string>();
  #stepOpen = false;
  #stop: StopReason | null = null;
  #blocks = 0;
  #host = new Set<string>();

  constructor(
    emit: Emit,
    private readonly kinds: ToolKinds,
    private readonly usageBefore: Usage,
  ) {
    this.#emit = emit;
  }

  /** True when this turn already sent the `tool-call` of `toolUseId` (an approval request must follow its call). */
  announced(toolUseId: string): boolean {
    return this.#unanswered.has(toolUseId);
  }

  /** Ask the host to approve a call this turn announced. */
  approval(approvalId: string, toolCallId: string): void {
    this.#emit({ type: "tool-approval-request", approvalId, toolCallId });
  }

  /** End the turn after a successful `result`. */
  finish(result: ResultMessage): void {
    this.#emit({
      type: "finish",
      finishReason: finishReason(result.stopReason),
      totalUsage: harnessUsage(usageSince(this.usageBefore, result.usage)),
    });
  }

  /** End the turn with an error (a failed stretch, or the host's abort). */
  fail(error: unknown): void {
    this.#emit({ type: "error", error });
  }

  /** Translate one message of the session; the stretch's `result` is returned once translated. */
  push(m: Message): ResultMessage | undefined {
    // A subagent's messages stay inside its Agent call (the call's result carries its answer).
    if (m.agentId !== undefined) return undefined;
    switch (m.type) {
      case "stream_event":
        if (m.delta.type === "text" || m.delta.type === "reasoning") this.#delta(m.delta.type, m.delta.text);
        return undefined;
      case "assistant":
        // An interrupted response is in the conversation for the model; the host sees its own abort.
        if (m.interrupted) this.#streamed = { text: false, reasoning: false };
        else this.#assistant(m);
        return undefined;
      case "tool_result":
        // A host tool's result is echoed as the host gave it (HarnessAgent shows the echo).
        this.#emit({
          type: "tool-result",
          toolCallId: m.toolUseId,
          toolName: m.toolName === ASK_USER ? HARNESS_QUESTIONS : m.toolName,
          result: (this.#host.has(m.toolUseId) ? this.kinds.hostOutput(m.toolUseId) : undefined) ?? m.output.content,
          ...(m.output.isError ? { isError: true } : {}),
        });
        this.#unanswered.delete(m.toolUseId);
        if (this.#unanswered.size === 0) this.#endStep();
        return undefined;
      case "system":
        if (m.subtype === "compact_boundary") {
          this.#emit({
            type: "compaction",
            trigger: m.trigger,
            summary: "",
            tokensBefore: m.tokensBefore,
            tokensAfter: m.tokensAfter,
          });
        }
        return undefined;
      case "result":
        this.#closeBlock();
        this.#endStep();
        return m;
      default:
        // user (the prompt itself, queued messages entering), tool_use (the call already went out with its response)
        return undefined;
    }
  }

  #delta(kind: "text" | "reasoning", text: string) {
    if (!text) return;
    this.#stepOpen = true;
    if (this.#block?.kind !== kind) {
      this.#closeBlock();
      this.#block = { kind, id: `${kind}-${++this.#blocks}` };
      this.#emit({ type: kind === "text" ? "text-start" : "reasoning-start", id: this.#block.id });
    }
    this.#streamed[kind] = true;
    this.#emit({ type: kind === "text" ? "text-delta" : "reasoning-delta", id: this.#block.id, delta: text });
  }

  #closeBlock() {
    if (!this.#block) return;
    const { kind, id } = this.#block;
    this.#emit({ type: kind === "text" ? "text-end" : "reasoning-end", id });
    this.#block = undefined;
  }

  #assistant(m: AssistantMessage) {
    // A model that did not stream its deltas: the whole blocks, once.
    for (const block of m.content) {
      if (block.type === "reasoning" && !this.#streamed.reasoning) this.#delta("reasoning", block.text);
    }
    if (!this.#streamed.text) this.#delta("text", m.text);
    this.#closeBlock();
    this.#streamed = { text: false, reasoning: false };
    this.#stepOpen = true;
    this.#stop = m.stopReason;
    for (const block of m.content) {
      if (block.type !== "tool_call") continue;
      // AskUserQuestion is the harness's client-executed `askUserQuestions`: the host answers it.
      const asks = block.toolName === ASK_USER;
      const host = asks || this.kinds.isHost(block.toolName);
      if (host) this.#host.add(block.toolUseId);
      this.#unanswered.add(block.toolUseId);
      this.#emit({
        type: "tool-call",
        toolCallId: block.toolUseId,
        toolName: asks ? HARNESS_QUESTIONS : block.toolName,
        input: JSON.stringify(asks ? toHarnessQuestions(block.input) : (block.input ?? {})),
        ...(host ? {} : { providerExecuted: true }),
        ...(host || this.kinds.isDeclared(block.toolName) ? {} : { dynamic: true }),
      });
    }
    if (this.#unanswered.size === 0) this.#endStep();
  }

  #endStep() {
    if (!this.#stepOpen) return;
    this.#stepOpen = false;
    this.#emit({ type: "finish-step", finishReason: finishReason(this.#stop), usage: NO_USAGE });
  }
}
