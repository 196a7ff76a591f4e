/**
 * Replay a transcript as the conversation the model saw: user prompts (with the context that
 * went ahead of them), assistant text and tool calls, tool results as tool messages — starting
 * from the history stored with the last compaction, when there was one. The result is a
 * history every provider accepts:
 * - a tool call whose result is missing (a crash between the two) is left out, since providers
 *   reject a dangling call — and an assistant message left empty by that is dropped;
 * - subagent records (sidechains) and prompts that never reached the model are skipped;
 * - consecutive user messages are merged into one, which is exactly what the run sent when it
 *   resumed a session whose last prompt had no answer (see `takeTrailingPrompt`);
 * - consecutive assistant messages (the prompt between them was a corrupt line) are merged too,
 *   and a tool result whose call was lost is left out, like a call without its result.
 * Reasoning is not replayed: providers accept history without it, not with it unsigned.
 */
import type { AssistantModelMessage, ModelMessage, ToolModelMessage, UserModelMessage } from "ai";
import { capContent, DEFAULT_MAX_RESULT_CHARS, type ToolResultMessage } from "../../src/index";
import type { TranscriptRecord } from "./records";

type TextPart = { type: "text"; text: string };

/** The user message the loop builds for a prompt (same shape, so a replayed prefix stays byte-stable). */
export function userMessage(
  text: string,
  context: readonly string[] = [],
  parts?: Exclude<UserModelMessage["content"], string>,
): UserModelMessage {
  if (context.length === 0) return { role: "user", content: parts ?? text };
  return {
    role: "user",
    content: [
      ...context.map((t) => ({ type: "text" as const, text: t })),
      ...(parts ?? [{ type: "text" as const, text }]),
    ],
  };
}

/** The text parts of a user message, as strings. */
export function userTexts(message: UserModelMessage): string[] {
  if (typeof message.content === "string") return [message.content];
  return message.content.filter((p): p is TextPart => p.type === "text").map((p) => p.text);
}

function mergeUsers(a: UserModelMessage, b: UserModelMessage): UserModelMessage {
  const parts = (m: UserModelMessage) =>
    typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
  return { role: "user", content: [...parts(a), ...parts(b)] };
}

function mergeAssistants(a: AssistantModelMessage, b: AssistantModelMessage): AssistantModelMessage {
  const parts = (m: AssistantModelMessage) =>
    typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
  return { role: "assistant", content: [...parts(a), ...parts(b)] };
}

/** Options of `replay`. */
export interface ReplayOptions {
  /** Cap on one tool result as the model sees it (the tool's `maxResultChars`) [30000]. */
  maxResultChars?: (toolName: string) => number | undefined;
}

/** Turn transcript records into model messages (see the file comment for the rules). */
export function replay(records: readonly TranscriptRecord[], options: ReplayOptions = {}): ModelMessage[] {
  let main = records.filter((r) => r.message.agentId === undefined);
  const results = new Map<string, ToolResultMessage>();
  for (const r of main) if (r.message.type === "tool_result") results.set(r.message.toolUseId, r.message);

  const out: ModelMessage[] = [];
  const checkpoint = main.findLastIndex((r) => r.history !== undefined);
  if (checkpoint >= 0) {
    out.push(...main[checkpoint]!.history!);
    main = main.slice(checkpoint + 1);
  }
  const push = (message: ModelMessage) => {
    const last = out.at(-1);
    if (message.role === "user" && last?.role === "user") out[out.length - 1] = mergeUsers(last, message);
    // Two answers in a row: the prompt between them was lost (a corrupt line). One message
    // holds both, so the alternation every provider requires still holds.
    else if (message.role === "assistant" && last?.role === "assistant")
      out[out.length - 1] = mergeAssistants(last, message);
    else out.push(message);
  };
  for (const record of main) {
    const m = record.message;
    if (
      m.type === "system" &&
      m.subtype === "microcompact" &&
      Array.isArray(m.toolUseIds) &&
      typeof m.replacement === "string"
    ) {
      clearResults(out, new Set(m.toolUseIds), m.replacement);
    } else if (m.type === "system" && m.subtype === "hook_context" && Array.isArray(m.context)) {
      // A hook's context between tool calls and the next model call (the hooks plugin's message).
      push({ role: "user", content: m.context.map((text: unknown) => ({ type: "text", text: String(text) })) });
    } else if (m.type === "user") {
      if (record.blocked === undefined) push(userMessage(m.text, record.context, m.content));
    } else if (m.type === "assistant") {
      const content: Exclude<AssistantModelMessage["content"], string> = [];
      if (m.text) content.push({ type: "text", text: m.text });
      const tool: ToolModelMessage = { role: "tool", content: [] };
      for (const block of m.content) {
        if (block.type !== "tool_call") continue;
        const result = results.get(block.toolUseId);
        if (!result) continue;
        content.push({ type: "tool-call", toolCallId: block.toolUseId, toolName: block.toolName, input: block.input });
        const limit = options.maxResultChars?.(block.toolName) ?? DEFAULT_MAX_RESULT_CHARS;
        const value = capContent(result.output.content, limit);
        tool.content.push({
          type: "tool-result",
          toolCallId: block.toolUseId,
          toolName: block.toolName,
          output: result.output.isError ? { type: "error-text", value } : { type: "text", value },
        });
      }
      if (content.length === 0) continue;
      push({ role: "assistant", content });
      if (tool.content.length > 0) push(tool);
    }
  }
  // Providers want the conversation to open with the user.
  const first = out.findIndex((m) => m.role === "user");
  return first < 0 ? [] : out.slice(first);
}

/** Replace, in place, the output of the results of `ids` with `replacement` (what microcompaction did live). */
function clearResults(out: ModelMessage[], ids: ReadonlySet<string>, replacement: string): void {
  out.forEach((message, i) => {
    if (message.role !== "tool" || !message.content.some((p) => p.type === "tool-result" && ids.has(p.toolCallId)))
      return;
    out[i] = {
      ...message,
      content: message.content.map((part) => {
        if (part.type !== "tool-result" || !ids.has(part.toolCallId)) return part;
        const type =
          part.output.type === "error-text" || part.output.type === "error-json"
            ? ("error-text" as const)
            : ("text" as const);
        return { ...part, output: { type, value: replacement } };
      }),
    };
  });
}

/**
 * When a resumed history ends with a prompt that was never answered (the run crashed or the
 * model failed), remove it and return its text, so the caller can send it ahead of the new
 * prompt in ONE user message — two user messages in a row are not a valid alternation.
 */
export function takeTrailingPrompt(history: ModelMessage[]): string[] {
  const last = history.at(-1);
  if (last?.role !== "user") return [];
  history.pop();
  return userTexts(last);
}
