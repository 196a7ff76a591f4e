/** `session/load`: a stored transcript told again to the client as the updates it would have seen. */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { TranscriptRecord } from "../../plugins/sessions/records";
import { planOf, toolKind, toolLocations, toolTitle } from "./tool-calls";

/**
 * The updates of a stored conversation (the main agent's; a subagent's work is in its Agent call's
 * result). A record of the wrong shape (a hand-edited or damaged transcript) is passed over.
 */
export function replayUpdates(records: readonly TranscriptRecord[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const isText = (v: unknown): v is string => typeof v === "string" && v !== "";
  for (const { message: m } of records) {
    if (m.agentId !== undefined) continue;
    if (m.type === "user") {
      if (isText(m.text))
        updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: m.text } });
    } else if (m.type === "assistant") {
      if (!Array.isArray(m.content)) continue;
      for (const block of m.content as unknown[] as Partial<Record<string, unknown>>[]) {
        if (typeof block !== "object" || block === null) continue;
        if (block.type === "text" && isText(block.text))
          updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
        else if (block.type === "reasoning" && isText(block.text))
          updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.text } });
        else if (block.type === "tool_call" && isText(block.toolUseId) && isText(block.toolName))
          updates.push(toolCallUpdate(block.toolUseId, block.toolName, block.input, cwd));
      }
    } else if (m.type === "tool_result") {
      const output = m.output as Partial<typeof m.output> | null;
      if (!isText(m.toolUseId) || typeof output?.content !== "string") continue;
      updates.push(
        ...toolResultUpdates(m.toolUseId, String(m.toolName), {
          content: output.content,
          isError: output.isError === true,
          metadata: typeof output.metadata === "object" && output.metadata !== null ? output.metadata : {},
        }),
      );
    }
  }
  return updates;
}

/** A tool call the model asked for, as the client first hears of it. */
export function toolCallUpdate(toolUseId: string, toolName: string, input: unknown, cwd: string): SessionUpdate {
  const args = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  return {
    sessionUpdate: "tool_call",
    toolCallId: toolUseId,
    title: toolTitle(toolName, args, cwd),
    kind: toolKind(toolName),
    status: "pending",
    rawInput: input,
    locations: toolLocations(args, cwd),
  };
}

/** A tool call's end: its status and text (a diff first, when given), and the plan when it was TodoWrite. */
export function toolResultUpdates(
  toolUseId: string,
  toolName: string,
  output: { content: string; isError: boolean; metadata: Record<string, unknown> },
  diff?: { path: string; oldText: string | null; newText: string },
): SessionUpdate[] {
  const text = { type: "content" as const, content: { type: "text" as const, text: output.content } };
  const updates: SessionUpdate[] = [
    {
      sessionUpdate: "tool_call_update",
      toolCallId: toolUseId,
      status: output.isError ? "failed" : "completed",
      content: diff && !output.isError ? [{ type: "diff", ...diff }, text] : [text],
    },
  ];
  const plan = toolName === "TodoWrite" && !output.isError ? planOf(output.metadata) : undefined;
  if (plan) updates.push({ sessionUpdate: "plan", entries: plan });
  return updates;
}
