/** Shared bits of the structured-output tests: a quiet logger, the text a request carried, a run's result. */
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { summon, type Message, type SummonOptions } from "ubiquity";
import { collect, resultOf } from "../helpers/collect";

export const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Every text a scripted request's prompt carried (user texts, tool results), as one string. */
export function promptText(request: LanguageModelV4CallOptions): string {
  return JSON.stringify(request.prompt);
}

/** The tool names a scripted request offered. */
export function offered(request: LanguageModelV4CallOptions): string[] {
  return (request.tools ?? []).map((t) => t.name);
}

/** Run with the default preset and no files (sessions off), return the messages and the result. */
export async function runWith(prompt: string, options: SummonOptions) {
  const messages: Message[] = await collect(
    summon(prompt, { persistSession: false, persistTodos: false, marketPricing: false, logger: quiet, ...options }),
  );
  return { messages, result: resultOf(messages) as ReturnType<typeof resultOf> & { structuredOutput?: unknown } };
}
