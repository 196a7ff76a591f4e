/**
 * `--message-format claude --include-partial-messages`: the deltas of one model response as the
 * Anthropic stream Claude Code prints them, whole: `message_start`, then per content block a
 * `content_block_start`, its `content_block_delta`s (each with the block's `index`) and a
 * `content_block_stop`, then `message_delta` (the stop reason) and `message_stop`. A script
 * written for `claude -p` learns a tool call's name from its `content_block_start` (as the Agent
 * SDK's streaming guide shows) and the end of a response from `message_stop`; deltas alone, all
 * at index 0, gave it neither.
 *
 * A tool call's input deltas carry its id but not its name, which the response's `assistant`
 * message brings: they are held until it arrives, then printed as the block's start, deltas and
 * stop (text and thinking blocks stream as they come).
 */
import { randomUUID } from "node:crypto";
import type { Message } from "../src/messages";
import { toClaudeMessage } from "./claude-messages";

type Json = Record<string, unknown>;
type Assistant = Extract<Message, { type: "assistant" }>;
type StreamDelta = Extract<Message, { type: "stream_event" }>["delta"];

/** One response being streamed: its message id, the open block and the held tool input. */
interface OpenResponse {
  id: string;
  index: number;
  block?: "text" | "thinking";
  toolInput: Map<string, string[]>;
}

const TEXT_BLOCK: Record<"text" | "thinking", Json> = {
  text: { type: "text", text: "" },
  thinking: { type: "thinking", thinking: "", signature: "" },
};

function deltaOf(delta: StreamDelta): Json {
  return delta.type === "reasoning"
    ? { type: "thinking_delta", thinking: delta.text }
    : { type: "text_delta", text: delta.text };
}

/**
 * A formatter for one output in Claude Code's shape: each message becomes its lines (none, one or
 * several). Stateful per response (and per subagent, whose responses interleave with the caller's).
 */
export function claudeFormatter({ replayUser = false } = {}): (m: Message) => Json[] {
  const open = new Map<string, OpenResponse>();
  let model = "";
  return (m) => {
    const key = m.parentToolUseId ?? "";
    const wrap = (event: Json): Json => ({
      type: "stream_event",
      event,
      parent_tool_use_id: m.parentToolUseId ?? null,
      session_id: m.sessionId,
      uuid: randomUUID(),
    });
    if (m.type === "system" && m.subtype === "init" && m.parentToolUseId === undefined) model = m.model ?? "";
    if (m.type === "stream_event") {
      const lines: Json[] = [];
      let response = open.get(key);
      if (!response) {
        response = { id: `msg_${randomUUID().replace(/-/g, "")}`, index: -1, toolInput: new Map() };
        open.set(key, response);
        const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
        const message = { id: response.id, type: "message", role: "assistant", model, content: [] };
        lines.push(
          wrap({ type: "message_start", message: { ...message, stop_reason: null, stop_sequence: null, usage } }),
        );
      }
      const closeBlock = () => {
        if (response!.block) lines.push(wrap({ type: "content_block_stop", index: response!.index }));
        response!.block = undefined;
      };
      const { delta } = m;
      if (delta.type === "tool_input") {
        closeBlock();
        const id = delta.toolUseId ?? "";
        response.toolInput.set(id, [...(response.toolInput.get(id) ?? []), delta.text]);
        return lines;
      }
      const kind = delta.type === "reasoning" ? "thinking" : "text";
      if (response.block !== kind) {
        closeBlock();
        response.index++;
        response.block = kind;
        lines.push(wrap({ type: "content_block_start", index: response.index, content_block: TEXT_BLOCK[kind] }));
      }
      lines.push(wrap({ type: "content_block_delta", index: response.index, delta: deltaOf(delta) }));
      return lines;
    }
    const response = open.get(key);
    open.delete(key);
    const shaped = toClaudeMessage(m, { replayUser });
    if (m.type !== "assistant" || !response) return shaped ? [shaped] : [];
    return [...endOf(response, m, wrap), withId(shaped!, response.id), ...stopOf(m, wrap)];
  };
}

/** The end of a streamed response's blocks: the open one stopped, each tool call's start, input and stop. */
function endOf(response: OpenResponse, m: Assistant, wrap: (event: Json) => Json): Json[] {
  const lines: Json[] = [];
  if (response.block) lines.push(wrap({ type: "content_block_stop", index: response.index }));
  for (const block of m.content) {
    if (block.type !== "tool_call") continue;
    const index = ++response.index;
    const start = { type: "tool_use", id: block.toolUseId, name: block.toolName, input: {} };
    lines.push(wrap({ type: "content_block_start", index, content_block: start }));
    for (const partial_json of response.toolInput.get(block.toolUseId) ?? [JSON.stringify(block.input ?? {})])
      lines.push(wrap({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }));
    lines.push(wrap({ type: "content_block_stop", index }));
  }
  return lines;
}

/** The response's `message_delta` (why it stopped, its output tokens) and `message_stop`. */
function stopOf(m: Assistant, wrap: (event: Json) => Json): Json[] {
  const delta = { stop_reason: m.stopReason ?? null, stop_sequence: null };
  return [
    wrap({ type: "message_delta", delta, usage: { output_tokens: m.usage?.outputTokens ?? 0 } }),
    wrap({ type: "message_stop" }),
  ];
}

/** The assistant line with the message id its stream events carried. */
function withId(line: Json, id: string): Json {
  return { ...line, message: { ...(line.message as Json), id } };
}
