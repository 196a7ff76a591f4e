/** Shared pieces of the context-management tests: stand-in tools, plugin lists, prompt readers. */
import { z } from "zod";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { defineTool, type Message } from "ubiquity";
import type { Logger, Tool, ToolKind } from "ubiquity/plugin";
import pricing from "ubiquity/plugins/pricing";
import compactionMicro from "ubiquity/plugins/compaction-micro";
import compactionSummarize from "ubiquity/plugins/compaction-summarize";

/** A read-only tool named `name` that answers with `size` characters (default 100). */
const KINDS: Record<string, ToolKind> = {
  Read: "read",
  Write: "edit",
  Edit: "edit",
  Bash: "execute",
  Glob: "search",
  Grep: "search",
};

export function sizedTool(name: string, description = `${name} (test stand-in)`): Tool {
  return defineTool({
    name,
    description,
    inputSchema: z.object({ size: z.number().optional(), tag: z.string().optional() }),
    isReadOnly: true,
    isConcurrencySafe: true,
    // Stand-ins for the built-ins declare the built-ins' kinds (microcompaction clears by kind).
    kind: KINDS[name],
    execute: ({ size, tag }) => `${tag ?? name}:${"x".repeat(size ?? 100)}`,
  });
}

/** A scripted tool call of a sized tool. */
export const call = (toolName: string, size = 100, tag?: string) => ({
  toolName,
  input: { size, ...(tag ? { tag } : {}) },
});

/** The compaction tiers with pricing (the summary's cost needs it). */
export const compactionPlugins = () => [pricing(), compactionMicro(), compactionSummarize()];

/** A logger that keeps every line. */
export function capturingLogger(): Logger & { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  const fmt = (args: unknown[]) =>
    args.map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(" ");
  return {
    lines,
    warnings,
    debug: (...a: unknown[]) => void lines.push(`debug ${fmt(a)}`),
    info: (...a: unknown[]) => void lines.push(`info ${fmt(a)}`),
    warn: (...a: unknown[]) => {
      lines.push(`warn ${fmt(a)}`);
      warnings.push(fmt(a));
    },
    error: (...a: unknown[]) => void lines.push(`error ${fmt(a)}`),
  };
}

type PromptMessage = LanguageModelV4CallOptions["prompt"][number];

/** The tool results of a recorded request: toolName, toolCallId and output text. */
export function toolResults(
  request: LanguageModelV4CallOptions,
): { toolName: string; toolCallId: string; text: string }[] {
  const out: { toolName: string; toolCallId: string; text: string }[] = [];
  for (const m of request.prompt) {
    if (m.role !== "tool") continue;
    for (const p of m.content) {
      if (p.type !== "tool-result") continue;
      const value = (p.output as { value?: unknown }).value;
      out.push({
        toolName: p.toolName,
        toolCallId: p.toolCallId,
        text: typeof value === "string" ? value : JSON.stringify(value),
      });
    }
  }
  return out;
}

/** Tool-call ids of the assistant messages of a recorded request. */
export function toolCallIds(request: LanguageModelV4CallOptions): string[] {
  return request.prompt.flatMap((m: PromptMessage) =>
    m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])) : [],
  );
}

/** All text of a recorded request's messages of `role`. */
export function textOf(request: LanguageModelV4CallOptions, role: PromptMessage["role"]): string {
  return request.prompt
    .filter((m) => m.role === role)
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("\n"),
    )
    .join("\n");
}

/** Messages of one system subtype. */
export function systemMessages<S extends "compact_boundary" | "microcompact">(messages: Message[], subtype: S) {
  return messages.filter(
    (m): m is Extract<Message, { type: "system"; subtype: S }> => m.type === "system" && m.subtype === subtype,
  );
}
