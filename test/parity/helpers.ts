/**
 * Shared helpers of the parity suite: runs through the default preset (what `summon()` gives a
 * user) with nothing persisted outside temp folders, and readers for the scripted model's requests.
 */
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { summon, type Message, type Options } from "ubiquity";
import { collect } from "../helpers/collect";

/** Drain a default-preset run in `cwd`, persisting nothing outside temp folders. */
export function run(prompt: string, options: Options): Promise<Message[]> {
  return collect(summon(prompt, { persistSession: false, persistTodos: false, marketPricing: false, ...options }));
}

/** The system prompt of a request, as one string. */
export function systemOf(request: LanguageModelV4CallOptions): string {
  return request.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
}

/** Names of the tools offered in a request. */
export function toolNames(request: LanguageModelV4CallOptions | undefined): string[] {
  return (request?.tools ?? []).map((t) => t.name);
}

/** The text of every tool result in a request's prompt, in order. */
export function toolResultsOf(request: LanguageModelV4CallOptions): string[] {
  const out: string[] = [];
  for (const m of request.prompt) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result") continue;
      const o = part.output as { type: string; value: unknown };
      out.push(typeof o.value === "string" ? o.value : JSON.stringify(o.value));
    }
  }
  return out;
}

/** The text of the user messages of a request, in order. */
export function userTextsOf(request: LanguageModelV4CallOptions): string[] {
  return request.prompt
    .filter((m) => m.role === "user")
    .map((m) => (m.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("\n"));
}

/** One scripted tool call. */
export const call = (toolName: string, input: unknown, id = `${toolName}-1`) => ({
  toolCalls: [{ toolName, input, id }],
});
