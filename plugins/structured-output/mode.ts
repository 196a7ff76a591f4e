/**
 * Which path asks for the value. `native` sends the schema as the provider's response format
 * (the AI SDK's `Output.object`); `tool` offers the `StructuredOutput` tool. `auto` takes native
 * only where it works alongside the run's tools: OpenAI models (Responses and Chat) with an
 * object schema that OpenAI's strict mode (the provider's default) accepts — every property
 * required, no others allowed; an optional field would be a 400 there. Anthropic's SDK falls back to a forced tool call for models without native
 * output formats, which would stop the agent from calling its other tools; other providers
 * differ in what they enforce — so everything else takes the tool, which every tool-calling
 * model can use. `outputMode` overrides the choice.
 */
import type { RunContext } from "../../src/index";
import type { OutputMode } from "./options";
import type { CompiledSchema } from "./schema";

/** The path of a run whose model is `model`. */
export function chooseMode(
  wanted: OutputMode | undefined,
  model: RunContext["model"],
  compiled: CompiledSchema,
): "native" | "tool" {
  if (wanted === "native" || wanted === "tool") return wanted;
  const provider = (model as { provider?: string } | undefined)?.provider ?? "";
  return compiled.isObject && compiled.strict && /^openai(\.|$)/.test(provider) ? "native" : "tool";
}
