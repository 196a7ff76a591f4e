import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { z } from "zod";
import { defineTool } from "ubiquity";

/** The system prompt of a model request, as one string. */
export function systemOf(request: LanguageModelV4CallOptions): string {
  return request.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
}

/** Names of the tools offered in a model request. */
export function toolNames(request: LanguageModelV4CallOptions): string[] {
  return (request.tools ?? []).map((t) => t.name);
}

/** True when the request's last message is a tool result (the model is being answered). */
export function answered(request: LanguageModelV4CallOptions): boolean {
  return request.prompt.at(-1)?.role === "tool";
}

/** Which agent (by a `You are NAME.` prompt) a request belongs to; undefined for the parent. */
export function agentOf(request: LanguageModelV4CallOptions): string | undefined {
  return /You are ([A-Z0-9]+)\./.exec(systemOf(request))?.[1];
}

/** A concurrency-safe tool that echoes its text. */
export const echo = defineTool({
  name: "Echo",
  description: "Echo the text back.",
  inputSchema: z.object({ text: z.string() }),
  isReadOnly: true,
  isConcurrencySafe: true,
  execute: ({ text }) => `echo: ${text}`,
});

/** An Agent call for a scripted turn. */
export const agentCall = (type: string, id: string, prompt = `task for ${type}`) => ({
  toolName: "Agent",
  id,
  input: { subagent_type: type, description: `${type} task`, prompt },
});
