/**
 * `--message-format claude`: the run's messages as Claude Code's `claude -p --output-format
 * json|stream-json` prints them (the Agent SDK's `SDKMessage` shapes), so a script written against
 * `claude -p` reads ours unchanged: `session_id`, `is_error`, `total_cost_usd`, `num_turns`,
 * `usage.input_tokens`, an `assistant` line whose `message.content` holds the text and `tool_use`
 * blocks, tool results as `user` lines of `tool_result` blocks, deltas as `stream_event` lines
 * whose `event` is an Anthropic stream event. Ubiquity's own shape (camelCase, `tool_use` and
 * `tool_result` messages) stays the default: it is the SDK's `Message`.
 */
import type { Message, Usage } from "../src/messages";
import { codexEarlyError } from "./codex-messages";

/** What `--message-format` takes. */
export const MESSAGE_FORMATS = ["ubiquity", "claude", "codex"] as const;
export type MessageFormat = (typeof MESSAGE_FORMATS)[number];

type Json = Record<string, unknown>;

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Every top-level key in snake_case (`sessionId` → `session_id`), values as they are. */
function snakeKeys(value: Json): Json {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), v]));
}

/**
 * Claude's usage object (the Anthropic API's field names and meaning: `input_tokens` are the input
 * tokens neither read from nor written to the cache, where Ubiquity's `inputTokens` count them all).
 */
function claudeUsage(usage: Partial<Usage> | undefined): Json {
  const cached = (usage?.cacheReadTokens ?? 0) + (usage?.cacheWriteTokens ?? 0);
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cached),
    output_tokens: usage?.outputTokens ?? 0,
    cache_creation_input_tokens: usage?.cacheWriteTokens ?? 0,
    cache_read_input_tokens: usage?.cacheReadTokens ?? 0,
  };
}

/** The fields every Claude message ends with. */
/**
 * A user message's parts as Claude Code's content blocks: an image (or a file of an image type) as
 * `{ type: "image", source }` with a base64 or URL source, a PDF as a `document`; a script reading
 * `--replay-user-messages` got the AI SDK's `{ type: "image", image, mediaType }` instead.
 */
function claudeBlocks(parts: NonNullable<Extract<Message, { type: "user" }>["content"]>): unknown[] {
  return parts.map((part) => {
    if (part.type === "text") return { type: "text", text: part.text };
    const data = part.type === "image" ? part.image : part.type === "file" ? part.data : undefined;
    const mediaType = typeof part.mediaType === "string" ? part.mediaType : undefined;
    const type =
      mediaType === "application/pdf"
        ? "document"
        : part.type === "image" || mediaType?.startsWith("image")
          ? "image"
          : undefined;
    const url =
      data instanceof URL ? data.href : typeof data === "string" && /^https?:\/\//.test(data) ? data : undefined;
    if (type && url) return { type, source: { type: "url", url } };
    const inline = typeof data === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(data) : null;
    if (type && inline) return { type, source: { type: "base64", media_type: inline[1], data: inline[2] } };
    if (type && typeof data === "string")
      return { type, source: { type: "base64", ...(mediaType ? { media_type: mediaType } : {}), data } };
    return part;
  });
}

function tail(m: { uuid: string; sessionId: string; parentToolUseId?: string }): Json {
  return { parent_tool_use_id: m.parentToolUseId ?? null, session_id: m.sessionId, uuid: m.uuid };
}

/** Whether a run used any tokens (its cost can then be unknown; without any it is 0). */
function usedTokens(usage: Partial<Usage> | undefined, modelUsage: Record<string, Usage> | undefined): boolean {
  return (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0) > 0 || Object.keys(modelUsage ?? {}).length > 0;
}

/** A `result` message in Claude's shape: `modelUsage` keeps Claude's own camelCase, with each model's `costUSD` (null when unknown). */
function claudeResult(m: Extract<Message, { type: "result" }>): Json {
  const { usage, modelUsage, modelCostUsd, permissionDenials, parentToolUseId, agentId: _agent, ...rest } = m;
  return {
    ...snakeKeys(rest),
    // Claude's own key: the time spent waiting for the model is not measured apart.
    duration_api_ms: m.durationMs,
    usage: claudeUsage(usage),
    // Claude's cost is always a number: a run that used no tokens (it failed before any answer) cost 0.
    total_cost_usd: m.totalCostUsd ?? (usedTokens(usage, modelUsage) ? null : 0),
    modelUsage: Object.fromEntries(
      Object.entries(modelUsage ?? {}).map(([model, u]) => [
        model,
        {
          // The same meaning as usage.input_tokens (neither read from nor written to the cache), as
          // claude prints it: counted in full, a script adding the cache fields counted them twice.
          inputTokens: claudeUsage(u).input_tokens,
          outputTokens: u.outputTokens,
          cacheReadInputTokens: u.cacheReadTokens,
          cacheCreationInputTokens: u.cacheWriteTokens,
          ...(modelCostUsd && model in modelCostUsd && { costUSD: modelCostUsd[model] }),
        },
      ]),
    ),
    permission_denials: (permissionDenials ?? []).map((d) => ({
      tool_name: d.toolName,
      tool_use_id: d.toolUseId,
      tool_input: d.toolInput,
    })),
    ...(m.isError ? { errors: [m.result] } : {}),
    // A run that ended on its StructuredOutput call wrote no text: claude's result is the value's JSON (what text output prints).
    ...(!m.result && m.structuredOutput !== undefined ? { result: JSON.stringify(m.structuredOutput) } : {}),
    ...(parentToolUseId ? { parent_tool_use_id: parentToolUseId } : {}),
  };
}

/** The `event` of a `stream_event` line: a content block delta as the Anthropic stream has it. */
function streamEvent(delta: { type: string; text: string }): Json | undefined {
  if (delta.type === "text")
    return { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: delta.text } };
  if (delta.type === "reasoning")
    return { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: delta.text } };
  if (delta.type === "tool_input")
    return { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: delta.text } };
  return undefined;
}

/**
 * One message in Claude Code's shape, or undefined when Claude prints nothing for it: the prompt's
 * own `user` message (Claude echoes it only with `--replay-user-messages`) and `tool_use` (its call
 * is a block of the `assistant` message before it).
 */
export function toClaudeMessage(m: Message, { replayUser = false } = {}): Json | undefined {
  // A subagent's own init and result stay inside it: claude prints one of each per run, and a
  // subagent's work only as assistant and user lines naming the Agent call (parent_tool_use_id);
  // a script taking the first result line would otherwise read the subagent's answer.
  if (m.parentToolUseId !== undefined && ((m.type === "system" && m.subtype === "init") || m.type === "result"))
    return undefined;
  switch (m.type) {
    case "system": {
      if (m.subtype === "compact_boundary")
        return {
          type: "system",
          subtype: "compact_boundary",
          compact_metadata: { trigger: m.trigger, pre_tokens: m.tokensBefore },
          ...tail(m),
        };
      if (m.subtype !== "init") return { ...snakeKeys(m as unknown as Json), ...tail(m) };
      const { extra, agentId: _a, parentToolUseId: _p, uuid: _u, sessionId: _s, ...rest } = m;
      const mcp = (extra?.mcpServers ?? []) as { name: string; status: string }[];
      const names = (value: unknown) => (Array.isArray(value) ? value.filter((v) => typeof v === "string") : []);
      return {
        ...rest,
        session_id: m.sessionId,
        mcp_servers: mcp.map((s) => ({ name: s.name, status: s.status })),
        slash_commands: names(extra?.slashCommands),
        skills: names(extra?.skills),
        agents: names(extra?.agents),
        // Claude's `plugins` are the Claude Code plugins that loaded ({ name, path }), not our kernel's plugins.
        plugins: Array.isArray(extra?.claudePlugins) ? extra.claudePlugins : [],
        apiKeySource: "none",
        output_style: "default",
        uuid: m.uuid,
      };
    }
    case "user":
      // Claude marks the echo (the Agent SDK's SDKUserMessageReplay): a reader tells it from a tool result's user line.
      return replayUser
        ? {
            type: "user",
            message: { role: "user", content: m.content ? claudeBlocks(m.content) : m.text },
            ...tail(m),
            isReplay: true,
          }
        : undefined;
    case "assistant":
      return {
        type: "assistant",
        message: {
          id: `msg_${m.uuid.replace(/-/g, "")}`,
          type: "message",
          role: "assistant",
          model: m.model,
          content: m.content.map((b) =>
            b.type === "text"
              ? { type: "text", text: b.text }
              : b.type === "reasoning"
                ? { type: "thinking", thinking: b.text, signature: "" }
                : { type: "tool_use", id: b.toolUseId, name: b.toolName, input: b.input },
          ),
          stop_reason: m.stopReason,
          stop_sequence: null,
          usage: claudeUsage(m.usage),
        },
        ...tail(m),
      };
    case "tool_use":
      return undefined;
    case "tool_result":
      return {
        type: "user",
        message: {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: m.toolUseId, content: m.output.content, is_error: m.output.isError },
          ],
        },
        ...tail(m),
      };
    case "stream_event": {
      const event = streamEvent(m.delta);
      return event ? { type: "stream_event", event, ...tail(m) } : undefined;
    }
    case "result":
      return claudeResult(m);
    default:
      return { ...snakeKeys(m as unknown as Json), ...tail(m as { uuid: string; sessionId: string }) };
  }
}

/** The JSON object a usage or configuration error prints on stdout before a run starts, in either shape. */
export function earlyErrorResult(format: MessageFormat, subtype: string, text: string, exitCode: number): Json {
  if (format === "codex") return codexEarlyError(text, exitCode);
  return format === "claude"
    ? { type: "result", subtype, is_error: true, result: text, errors: [text], exit_code: exitCode }
    : { type: "result", subtype, isError: true, result: text, exitCode };
}
