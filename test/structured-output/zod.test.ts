/**
 * `outputSchema` with zod, through summon() and the default preset, on the scripted model: the
 * tool path (a model of no OpenAI provider) and the native path (a model whose provider id is
 * OpenAI's, or `outputMode: "native"`). Valid on the first try; an invalid value corrected on
 * the second, the model having seen the schema's error; giving up after the bound.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "ubiquity/testing";
import { offered, promptText, runWith } from "./helpers";

const Answer = z.object({ city: z.string(), population: z.number().int().positive() });
const good = { city: "Lyon", population: 522_000 };

describe("the StructuredOutput tool (a provider without native output)", () => {
  it("takes a valid value on the first try and ends the run there", async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: "StructuredOutput", input: good }] }]);
    const { result, messages } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.subtype).toBe("success");
    expect(result.isError).toBe(false);
    expect(result.structuredOutput).toEqual(good);
    expect(model.requests).toHaveLength(1);
    expect(offered(model.requests[0]!)).toContain("StructuredOutput");
    // The model is shown the schema as the tool's input schema, and no response format.
    const tool = model.requests[0]!.tools!.find((t) => t.name === "StructuredOutput") as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(Object.keys(tool.inputSchema.properties)).toEqual(["city", "population"]);
    expect(model.requests[0]!.responseFormat).toBeUndefined();
    const toolResult = messages.find((m) => m.type === "tool_result");
    expect(toolResult?.type === "tool_result" && toolResult.output.isError).toBe(false);
  });

  it("ends the run after the accepting call, also on the last turn maxTurns allows", async () => {
    const model = scriptedModel([{ text: "Here it is.", toolCalls: [{ toolName: "StructuredOutput", input: good }] }]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer, maxTurns: 1 });
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    expect(result.result).toBe("Here it is.");
    expect(result.numTurns).toBe(1);
  });

  it("sends an invalid value back with the schema's error; the corrected one is taken", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "StructuredOutput", input: { city: "Lyon", population: -3 } }] },
      { toolCalls: [{ toolName: "StructuredOutput", input: good }] },
    ]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    expect(model.requests).toHaveLength(2);
    const seen = promptText(model.requests[1]!);
    expect(seen).toContain("does not match the schema");
    expect(seen).toContain("population");
  });

  it("sends back a run that ended with text instead of the tool", async () => {
    const model = scriptedModel([
      "Lyon, about half a million.",
      { toolCalls: [{ toolName: "StructuredOutput", input: good }] },
    ]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.structuredOutput).toEqual(good);
    expect(promptText(model.requests[1]!)).toContain("Call the StructuredOutput tool now");
  });

  it("gives up after maxStructuredOutputRetries corrections with error_max_structured_output_retries", async () => {
    const bad = { toolCalls: [{ toolName: "StructuredOutput", input: { city: 7 } }] };
    const model = scriptedModel([bad, bad, bad, bad]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer, maxStructuredOutputRetries: 2 });
    expect(result.subtype).toBe("error_max_structured_output_retries");
    expect(result.isError).toBe(true);
    expect(result.result).toContain("after 3 attempts (maxStructuredOutputRetries: 2)");
    expect(result.structuredOutput).toBeUndefined();
    expect(model.requests).toHaveLength(3);
  });

  it("runs under every permission mode, also plan and dontAsk with allowedTools that do not name it", async () => {
    for (const extra of [
      { permissionMode: "plan" as const },
      { permissionMode: "dontAsk" as const, allowedTools: ["Read"] },
    ]) {
      const model = scriptedModel([{ toolCalls: [{ toolName: "StructuredOutput", input: good }] }]);
      const { result } = await runWith("which city?", { model, outputSchema: Answer, ...extra });
      expect(result.structuredOutput, JSON.stringify(extra)).toEqual(good);
    }
  });

  it("wraps a schema whose root is no object as { value } and gives back the bare value", async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: "StructuredOutput", input: { value: ["a", "b"] } }] }]);
    const { result } = await runWith("list", { model, outputSchema: z.array(z.string()) });
    expect(result.structuredOutput).toEqual(["a", "b"]);
  });
});

describe("the native response format (OpenAI models, or outputMode: native)", () => {
  const openai = (turns: Parameters<typeof scriptedModel>[0]) =>
    scriptedModel(turns, { provider: "openai.responses", modelId: "gpt-4o" });

  it("sends the schema as the response format and takes valid JSON text on the first try", async () => {
    const model = openai([JSON.stringify(good)]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    expect(result.result).toBe(JSON.stringify(good));
    const format = model.requests[0]!.responseFormat as {
      type: string;
      schema: { properties: Record<string, unknown> };
    };
    expect(format.type).toBe("json");
    expect(Object.keys(format.schema.properties)).toEqual(["city", "population"]);
    expect(offered(model.requests[0]!)).not.toContain("StructuredOutput");
  });

  it("corrects an answer that is no JSON, then one that fails the schema", async () => {
    const model = openai(["Lyon!", JSON.stringify({ city: "Lyon" }), JSON.stringify(good)]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    expect(promptText(model.requests[1]!)).toContain("not valid JSON");
    expect(promptText(model.requests[2]!)).toContain("does not match the required output schema");
    expect(promptText(model.requests[2]!)).toContain("population");
  });

  it("gives up after the bound (default 3 corrections: 4 answers)", async () => {
    const model = openai(["no", "no", "no", "no", "never played"]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.subtype).toBe("error_max_structured_output_retries");
    expect(result.isError).toBe(true);
    expect(model.requests).toHaveLength(4);
  });

  it("applies zod's output: a default filled in is in the value", async () => {
    const model = openai([JSON.stringify({ city: "Lyon" })]);
    const { result } = await runWith("which city?", {
      model,
      outputSchema: z.object({ city: z.string(), country: z.string().default("France") }),
      outputMode: "native",
    });
    expect(result.structuredOutput).toEqual({ city: "Lyon", country: "France" });
  });

  it("auto takes the tool for a schema OpenAI's strict mode would refuse (an optional field), or one whose root is no object", async () => {
    const optional = openai([{ toolCalls: [{ toolName: "StructuredOutput", input: { city: "Lyon" } }] }]);
    const { result } = await runWith("q", {
      model: optional,
      outputSchema: z.object({ city: z.string(), mayor: z.string().optional() }),
    });
    expect(result.structuredOutput).toEqual({ city: "Lyon" });
    expect(optional.requests[0]!.responseFormat).toBeUndefined();
    const list = openai([{ toolCalls: [{ toolName: "StructuredOutput", input: { value: [1] } }] }]);
    expect((await runWith("q", { model: list, outputSchema: z.array(z.number()) })).result.structuredOutput).toEqual([
      1,
    ]);
    expect(list.requests[0]!.responseFormat).toBeUndefined();
  });

  it("outputMode overrides the choice both ways", async () => {
    const native = scriptedModel([JSON.stringify(good)]);
    expect(
      (await runWith("q", { model: native, outputSchema: Answer, outputMode: "native" })).result.structuredOutput,
    ).toEqual(good);
    expect(native.requests[0]!.responseFormat).toMatchObject({ type: "json" });
    const tool = openai([{ toolCalls: [{ toolName: "StructuredOutput", input: good }] }]);
    expect(
      (await runWith("q", { model: tool, outputSchema: Answer, outputMode: "tool" })).result.structuredOutput,
    ).toEqual(good);
    expect(tool.requests[0]!.responseFormat).toBeUndefined();
  });
});

describe("a JSON Schema outputSchema", () => {
  const schema = {
    type: "object",
    properties: { ok: { type: "boolean" } },
    required: ["ok"],
    additionalProperties: false,
  };

  it("validates with the JSON Schema itself", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "StructuredOutput", input: { ok: "yes" } }] },
      { toolCalls: [{ toolName: "StructuredOutput", input: { ok: true } }] },
    ]);
    const { result } = await runWith("ok?", { model, outputSchema: schema });
    expect(result.structuredOutput).toEqual({ ok: true });
    expect(promptText(model.requests[1]!)).toContain("boolean");
  });
});

describe("a JSON Schema without $schema is judged as draft-07 with formats (as the MCP SDK 1.x's ajv did)", () => {
  it("a tuple `items` array and a `format` are checked", async () => {
    const schema = {
      type: "object",
      properties: {
        pair: { type: "array", items: [{ type: "number" }, { type: "string" }] },
        mail: { type: "string", format: "email" },
      },
      required: ["pair", "mail"],
    };
    const model = scriptedModel([
      { toolCalls: [{ toolName: "StructuredOutput", input: { pair: ["a", 1], mail: "x@example.com" } }] },
      { toolCalls: [{ toolName: "StructuredOutput", input: { pair: [1, "a"], mail: "not an address" } }] },
      { toolCalls: [{ toolName: "StructuredOutput", input: { pair: [1, "a"], mail: "x@example.com" } }] },
    ]);
    const { result } = await runWith("q", { model, outputSchema: schema });
    expect(result.structuredOutput).toEqual({ pair: [1, "a"], mail: "x@example.com" });
    expect(model.requests).toHaveLength(3);
  });
});

describe("a JSON Schema that cannot be used", () => {
  it("ends the run before any request, with an error naming outputSchema", async () => {
    const model = scriptedModel(["never played"]);
    const { result } = await runWith("q", { model, outputSchema: { type: "nope" } });
    expect(result.isError).toBe(true);
    expect(result.result).toContain("outputSchema is not a JSON Schema that can be compiled");
    expect(model.requests).toHaveLength(0);
  });

  it("a $schema line (zod's own draft 2020-12 output, say) is no obstacle", async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: "StructuredOutput", input: { n: 1 } }] }]);
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { n: { type: "number" } },
    };
    const { result } = await runWith("q", { model, outputSchema: schema });
    expect(result.structuredOutput).toEqual({ n: 1 });
    const tool = model.requests[0]!.tools!.find((t) => t.name === "StructuredOutput") as {
      inputSchema: Record<string, unknown>;
    };
    expect(tool.inputSchema.$schema).toBeUndefined();
  });
});

describe("a run without outputSchema", () => {
  it("is offered no StructuredOutput tool, no response format, and its result has no structuredOutput", async () => {
    const model = scriptedModel(["plain"]);
    const { result } = await runWith("hi", { model });
    expect(offered(model.requests[0]!)).not.toContain("StructuredOutput");
    expect(model.requests[0]!.responseFormat).toBeUndefined();
    expect(result.result).toBe("plain");
    expect("structuredOutput" in result).toBe(false);
  });
});
