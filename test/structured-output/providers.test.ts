/**
 * Structured output against the local provider servers, behind the real `@ai-sdk/openai` and
 * `@ai-sdk/anthropic` packages: which path each request took is read from the recorded request
 * body (OpenAI's `text.format` / `response_format`, Anthropic's `output_config.format`, or the
 * StructuredOutput tool among the tools), and the value from the result.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { runWith } from "./helpers";

const Answer = z.object({ city: z.string(), population: z.number() });
const good = { city: "Lyon", population: 522000 };

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const on = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  apiKey: "k",
  providerSettings: { baseURL: server!.baseURL },
  maxRetries: 0,
  outputSchema: Answer,
  ...extra,
});
/** A JSON Schema object as the wire formats carry it. */
interface WireSchema {
  properties: Record<string, unknown>;
}
/** An offered tool: Anthropic's (`name`, `input_schema`) or OpenAI's (`function.name`). */
interface WireTool {
  name?: string;
  input_schema?: WireSchema;
  function?: { name?: string };
}
/** The parts of a request body these tests read (OpenAI Responses and Chat Completions, Anthropic). */
interface Body {
  tools?: WireTool[];
  text?: { format: { schema: WireSchema } };
  response_format?: unknown;
  output_config?: { format?: unknown };
  input?: unknown;
  messages?: unknown[];
}
const bodies = () => server!.requests.map((r) => r.body as Body);
const toolNames = (body: Body): (string | undefined)[] => (body.tools ?? []).map((t) => t.name ?? t.function?.name);

describe("an OpenAI-format server: the native response format", () => {
  it("Responses API: the schema goes as text.format json_schema; a corrected answer is taken", async () => {
    server = await startProviderServer([JSON.stringify({ city: "Lyon" }), JSON.stringify(good)]);
    const { result } = await runWith("which city?", on("openai:gpt-4o"));
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    const [first, second] = bodies();
    expect(first!.text?.format).toMatchObject({ type: "json_schema", name: "final_answer" });
    expect(Object.keys(first!.text!.format.schema.properties)).toEqual(["city", "population"]);
    // What OpenAI's strict mode (the provider's default) accepts: every property required, no others.
    expect(first!.text?.format).toMatchObject({
      strict: true,
      schema: { required: ["city", "population"], additionalProperties: false },
    });
    expect(toolNames(first!)).not.toContain("StructuredOutput");
    expect(toolNames(first!)).toContain("Read"); // the run's tools stay offered alongside the format
    expect(JSON.stringify(second!.input)).toContain("does not match the required output schema");
  });

  it("Chat Completions: the schema goes as response_format json_schema", async () => {
    server = await startProviderServer([JSON.stringify(good)]);
    const { result } = await runWith("which city?", on("openai.chat:gpt-4o"));
    expect(result.structuredOutput).toEqual(good);
    expect(bodies()[0]!.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "final_answer" } });
  });
});

describe("an Anthropic-format server", () => {
  it("auto: the StructuredOutput tool, and no output format", async () => {
    server = await startProviderServer([
      { toolCalls: [{ name: "StructuredOutput", input: { city: "Lyon", population: "many" } }] },
      { toolCalls: [{ name: "StructuredOutput", input: good }] },
    ]);
    const { result } = await runWith("which city?", on("anthropic:claude-sonnet-4-5"));
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    const [first, second] = bodies();
    expect(first!.output_config?.format).toBeUndefined();
    expect(toolNames(first!)).toContain("StructuredOutput");
    const tool = first!.tools?.find((t) => t.name === "StructuredOutput");
    expect(Object.keys(tool!.input_schema!.properties)).toEqual(["city", "population"]);
    // The refusal went back as the tool's error result.
    const results = JSON.stringify(second!.messages?.at(-1));
    expect(results).toContain("tool_result");
    expect(results).toContain("does not match the schema");
    expect(server!.requests).toHaveLength(2);
  });

  it("outputMode native: the schema goes as output_config.format (a model with native structured outputs)", async () => {
    server = await startProviderServer([JSON.stringify(good)]);
    const { result } = await runWith("which city?", on("anthropic:claude-sonnet-4-5", { outputMode: "native" }));
    expect(result.structuredOutput).toEqual(good);
    const body = bodies()[0]!;
    expect(body.output_config?.format).toMatchObject({ type: "json_schema" });
    expect(toolNames(body)).not.toContain("StructuredOutput");
    expect(toolNames(body)).toContain("Read");
  });
});
