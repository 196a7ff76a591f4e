/**
 * Where each explicit-cache provider takes its marker. The two disagree, which is why
 * `cachePrompt` is not one setting: Anthropic takes `cache_control` breakpoints on blocks
 * (system prompt, tool definitions, messages) and caches the prefix up to each; Bedrock's
 * Converse API takes a `cachePoint` block inside the message content. Markers go on copies:
 * the run's history and the kernel's cached tool entries are never mutated, so a breakpoint
 * set for one request does not linger into the next.
 */
import type { ModelMessage, SystemModelMessage, ToolSet } from "ai";
import type { ModelRequest } from "../../src/index";

/** Provider options of a message, a tool or a call. */
type ProviderOptions = Record<string, Record<string, unknown>>;

/** The cache families: who takes which marker; `undefined` = the provider caches on its own. */
export type CacheFamily = "anthropic" | "bedrock";

/** The family of a model from its AI SDK provider id (`anthropic.messages`, `amazon-bedrock`, ...). */
export function cacheFamily(provider: string): CacheFamily | undefined {
  // Anthropic's Messages API, also as served by Vertex and Bedrock (`vertex.anthropic.messages`).
  if (provider.startsWith("anthropic") || provider.includes(".anthropic")) return "anthropic";
  if (provider.startsWith("amazon-bedrock") || provider.startsWith("bedrock")) return "bedrock";
  return undefined;
}

/** Anthropic's `cacheControl` for a `cachePrompt` value. */
export function anthropicCacheControl(ttl: "5m" | "1h"): { type: "ephemeral"; ttl?: "1h" } {
  // 5 minutes is the API's default; leaving it unsaid keeps the body as small as it was.
  return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

function withOption<T extends { providerOptions?: ProviderOptions }>(
  target: T,
  provider: string,
  key: string,
  value: unknown,
): T {
  const options = (target.providerOptions ?? {}) as ProviderOptions;
  return { ...target, providerOptions: { ...options, [provider]: { ...options[provider], [key]: value } } };
}

/** `messages` with the message at `index` marked (a copy; the others are shared). */
function markMessage(
  messages: ModelMessage[],
  index: number,
  provider: string,
  key: string,
  value: unknown,
): ModelMessage[] {
  if (index < 0) return messages;
  const copy = [...messages];
  copy[index] = withOption(messages[index]!, provider, key, value);
  return copy;
}

/** The system prompt as a system message carrying `cacheControl`; unchanged when empty. */
function markInstructions(
  instructions: ModelRequest["instructions"],
  cacheControl: unknown,
): ModelRequest["instructions"] {
  const message: SystemModelMessage =
    typeof instructions === "string" ? { role: "system", content: instructions } : instructions;
  if (!message.content) return instructions;
  return withOption(message, "anthropic", "cacheControl", cacheControl);
}

/** The tool set with the last tool (the end of the tool block) carrying `cacheControl`. */
function markTools(tools: ToolSet, cacheControl: unknown): ToolSet {
  const names = Object.keys(tools);
  const last = names.at(-1);
  if (last === undefined) return tools;
  return { ...tools, [last]: withOption(tools[last]!, "anthropic", "cacheControl", cacheControl) };
}

/**
 * Anthropic: breakpoints on the tool block, the system prompt and the newest message. The last
 * one moves forward with every request, so request n reads everything through request n−1 from
 * cache and writes only what is new.
 */
export function anthropicBreakpoints(request: ModelRequest, ttl: "5m" | "1h"): ModelRequest {
  const cacheControl = anthropicCacheControl(ttl);
  return {
    ...request,
    tools: markTools(request.tools, cacheControl),
    instructions: markInstructions(request.instructions, cacheControl),
    messages: markMessage(request.messages, request.messages.length - 1, "anthropic", "cacheControl", cacheControl),
  };
}

/**
 * Bedrock: one cache point at the end of the user prompt. It covers the system prompt, the tool
 * definitions and the request itself — the part that does not change while the agent works
 * through its turns.
 */
export function bedrockCachePoint(request: ModelRequest): ModelRequest {
  const index = request.messages.findLastIndex((m) => m.role === "user");
  return { ...request, messages: markMessage(request.messages, index, "bedrock", "cachePoint", { type: "default" }) };
}
