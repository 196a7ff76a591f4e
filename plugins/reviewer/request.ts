/**
 * The review request of one call, built from the run: the user's prompts (of the top-level run:
 * a subagent's prompt was written by a model) and the recent conversation — the model's words
 * and the calls it made — never a tool's output, which may carry text written to steer the
 * reviewer.
 */
import type { ModelMessage } from "ai";
import type { PermissionVerdict, ToolCall } from "../../src/index";
import { getPermissionsApi } from "../permissions/api";
import type { ReviewRequest } from "./api";

const MAX_PROMPT_CHARS = 2000;
const MAX_PROMPTS = 3;
const MAX_TURNS = 12;
const MAX_LINE_CHARS = 600;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

function texts(message: ModelMessage): string[] {
  if (typeof message.content === "string") return [message.content];
  return (message.content as { type: string; text?: string }[])
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text!);
}

/** The text of the user's prompts in `history`, latest last. */
export function userIntent(history: readonly ModelMessage[]): string[] {
  return history
    .filter((m) => m.role === "user")
    .map((m) => texts(m).join("\n").trim())
    .filter(Boolean)
    .slice(-MAX_PROMPTS)
    .map((t) => clip(t, MAX_PROMPT_CHARS));
}

/** The recent conversation of `history`: the model's text and its calls (name and input), no tool output. */
export function conversationOf(history: readonly ModelMessage[]): string[] {
  const lines: string[] = [];
  for (const m of history.slice(-MAX_TURNS * 2)) {
    if (m.role !== "assistant") continue;
    if (typeof m.content === "string") {
      if (m.content.trim()) lines.push(`assistant: ${clip(m.content.trim(), MAX_LINE_CHARS)}`);
      continue;
    }
    for (const part of m.content as { type: string; text?: string; toolName?: string; input?: unknown }[]) {
      if (part.type === "text" && part.text?.trim()) lines.push(`assistant: ${clip(part.text.trim(), MAX_LINE_CHARS)}`);
      if (part.type === "tool-call")
        lines.push(`assistant called ${part.toolName}: ${clip(JSON.stringify(part.input ?? {}), MAX_LINE_CHARS)}`);
    }
  }
  return lines.slice(-MAX_TURNS);
}

/** The request for `call`, whose permission verdict asked. */
export function reviewRequestOf(call: ToolCall, verdict: PermissionVerdict): ReviewRequest {
  let top = call.run;
  while (top.parent) top = top.parent;
  return {
    toolName: call.toolName,
    input: structuredClone(call.input),
    reason: verdict.message ?? `${call.toolName} needs approval.`,
    intent: userIntent(top.history),
    conversation: conversationOf(call.run.history),
    cwd: call.run.cwd,
    permissionMode: getPermissionsApi(call.run.kernel).modeOf(call.run),
  };
}
