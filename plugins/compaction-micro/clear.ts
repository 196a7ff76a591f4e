/**
 * Microcompaction proper: the content of older results of pure-observation tools is replaced in
 * place with a marker. No model call and no summary; the transcript keeps its shape, so every
 * call still has its result. Tools whose results carry state the model is expected to keep
 * tracking (TodoWrite, Agent, Skill, anything from MCP) are never touched: clearing them would
 * silently rewrite what the model believes about the task.
 */
import type { ModelMessage, ToolModelMessage } from "ai";
import type { Tool, ToolKind } from "../../src/index";
import { estimateTokens } from "../_kits/compaction/index";

/** Kinds of tools whose results are observation the tool can give again, and so safe to clear once they are old. */
export const CLEARABLE_KINDS: ReadonlySet<ToolKind> = new Set<ToolKind>(["read", "search", "edit", "execute"]);

/** The names of the tools in `tools` whose results may be cleared (their kind is clearable). */
export const clearableTools = (tools: readonly Tool[]): ReadonlySet<string> =>
  new Set(tools.filter((t) => t.kind !== undefined && CLEARABLE_KINDS.has(t.kind)).map((t) => t.name));

/** What a cleared result says instead of its content. */
export const CLEARED_MARKER = "[Old tool result content cleared to save context; run the tool again if you need it]";

/** The outcome of one microcompaction pass. */
export interface Microcompaction {
  /** The history with old results cleared (a new array; untouched messages are shared). */
  messages: ModelMessage[];
  /** How many results were cleared. */
  cleared: number;
  /** The tool calls whose results were cleared, oldest first. */
  toolUseIds: string[];
  /** Estimated tokens saved (characters / 4). */
  tokensSaved: number;
}

type ResultPart = Extract<ToolModelMessage["content"][number], { type: "tool-result" }>;

function isCleared(part: ResultPart): boolean {
  return (part.output.type === "text" || part.output.type === "error-text") && part.output.value === CLEARED_MARKER;
}

function clearedOutput(part: ResultPart): ResultPart["output"] {
  const type = part.output.type === "error-text" || part.output.type === "error-json" ? "error-text" : "text";
  return { type, value: CLEARED_MARKER };
}

/** Clear every eligible result except the newest `keepRecent` eligible ones and those answering the latest response. */
export function microcompact(
  history: readonly ModelMessage[],
  keepRecent: number,
  clearable: ReadonlySet<string>,
): Microcompaction {
  // Positions of eligible results, oldest first: [message index, part index].
  const eligible: [number, number][] = [];
  history.forEach((message, i) => {
    if (message.role !== "tool") return;
    message.content.forEach((part, j) => {
      if (part.type === "tool-result" && clearable.has(part.toolName)) eligible.push([i, j]);
    });
  });
  // Results answering the latest response are ones the model has not seen yet: never cleared,
  // even with keepRecent 0 (clearing them would hide the call the model just made).
  const latest = history.findLastIndex((m) => m.role === "assistant");
  const old = eligible.slice(0, Math.max(0, eligible.length - keepRecent)).filter(([i]) => i < latest);
  const byMessage = new Map<number, Set<number>>();
  for (const [i, j] of old) {
    const part = (history[i] as ToolModelMessage).content[j] as ResultPart;
    if (!isCleared(part)) (byMessage.get(i) ?? byMessage.set(i, new Set()).get(i)!).add(j);
  }
  if (byMessage.size === 0) return { messages: [...history], cleared: 0, toolUseIds: [], tokensSaved: 0 };

  let cleared = 0;
  const toolUseIds: string[] = [];
  let tokensSaved = 0;
  const messages = history.map((message, i) => {
    const parts = byMessage.get(i);
    if (!parts) return message;
    const tool = message as ToolModelMessage;
    return {
      ...tool,
      content: tool.content.map((part, j) => {
        if (!parts.has(j) || part.type !== "tool-result") return part;
        const output = clearedOutput(part);
        cleared++;
        toolUseIds.push(part.toolCallId);
        tokensSaved += Math.max(
          0,
          estimateTokens(part.output.type === "execution-denied" ? part.output.reason : part.output.value) -
            estimateTokens(CLEARED_MARKER),
        );
        return { ...part, output };
      }),
    };
  });
  return { messages, cleared, toolUseIds, tokensSaved };
}
