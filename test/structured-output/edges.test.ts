/**
 * Attacks on structured output: two StructuredOutput calls in one response (the first accepted
 * value stands), other tools alongside it, a huge value, a schema with $ref under the { value }
 * wrapping, zod transforms, maxTurns 1, and a live session where each stretch is its own answer.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon, type Message, type ResultMessage } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { inbox } from "../live/helpers";
import { offered, promptText, quiet, runWith } from "./helpers";

const Answer = z.object({ city: z.string(), population: z.number().int().positive() });
const lyon = { city: "Lyon", population: 522_000 };
const nice = { city: "Nice", population: 342_000 };
const so = (input: unknown, id?: string) => ({ toolName: "StructuredOutput", input, ...(id ? { id } : {}) });

type WithOutput = ResultMessage & { structuredOutput?: unknown };

/** Every `$ref` in `schema` points at a node that exists in it (refs are resolved against the schema's root). */
function refsResolve(schema: Record<string, unknown>): string[] {
  const broken: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== "object" || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") {
        let target: unknown = schema;
        for (const seg of v.replace(/^#\/?/, "").split("/").filter(Boolean))
          target = (target as Record<string, unknown> | undefined)?.[seg];
        if (target === undefined) broken.push(v);
      } else walk(v);
    }
  };
  walk(schema);
  return broken;
}

describe("StructuredOutput called more than once", () => {
  it("two valid calls in one response: the first accepted value stands, the second is told it was not taken", async () => {
    const model = scriptedModel([{ toolCalls: [so(lyon, "a"), so(nice, "b")] }]);
    const { result, messages } = await runWith("which city?", { model, outputSchema: Answer });
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(lyon);
    expect(model.requests).toHaveLength(1);
    const second = messages.find((m) => m.type === "tool_result" && m.toolUseId === "b");
    expect(second?.type === "tool_result" && second.output.content).toMatch(/already/i);
  });

  it("an invalid call after an accepted one in the same response does not spend an attempt nor undo the answer", async () => {
    const model = scriptedModel([{ toolCalls: [so(lyon), so({ city: 1 })] }]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer, maxStructuredOutputRetries: 0 });
    expect(result).toMatchObject({ subtype: "success", structuredOutput: lyon });
  });

  it("with another tool alongside: that tool runs and is answered, then the run ends with the value (one request)", async () => {
    let ran = 0;
    const note = defineTool({
      name: "Note",
      description: "n",
      inputSchema: z.object({}),
      isReadOnly: true,
      execute: () => (ran++, "noted"),
    });
    const model = scriptedModel([{ toolCalls: [so(lyon), { toolName: "Note", input: {} }] }]);
    const { result, messages } = await runWith("which city?", { model, outputSchema: Answer, tools: [note] });
    expect(ran).toBe(1);
    expect(messages.filter((m) => m.type === "tool_result")).toHaveLength(2);
    expect(result).toMatchObject({ subtype: "success", structuredOutput: lyon });
    expect(model.requests).toHaveLength(1);
  });
});

describe("odd values and schemas", () => {
  // (≈2 MB would be ~500k tokens: past the kernel's runaway-stream cut at 256k output tokens, as it should be.)
  it("a large valid value (≈400 KB, ~100k tokens) arrives whole", async () => {
    const notes = Array.from({ length: 4_000 }, (_, i) => `note ${i} `.padEnd(100, "x"));
    const Big = z.object({ notes: z.array(z.string()) });
    const model = scriptedModel([{ toolCalls: [so({ notes })] }]);
    const { result } = await runWith("all notes", { model, outputSchema: Big });
    expect(result.subtype).toBe("success");
    expect((result.structuredOutput as { notes: string[] }).notes).toEqual(notes);
  });

  it("a JSON Schema with no object root and $defs/$ref: the wrapped schema offered to the model still resolves its refs", async () => {
    const schema = {
      type: "array",
      items: { $ref: "#/$defs/node" },
      $defs: {
        node: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
          required: ["name"],
        },
      },
    };
    const value = [{ name: "root", children: [{ name: "leaf" }] }];
    const model = scriptedModel([{ toolCalls: [so({ value })] }]);
    const { result } = await runWith("tree", { model, outputSchema: schema });
    expect(result).toMatchObject({ subtype: "success", structuredOutput: value });
    const tool = model.requests[0]!.tools!.find((t) => t.name === "StructuredOutput") as {
      inputSchema: Record<string, unknown>;
    };
    expect(refsResolve(tool.inputSchema)).toEqual([]);
  });

  it("a root-recursive schema ($ref: '#') with no object root stays recursive on itself once wrapped", async () => {
    const schema = { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#" } }] };
    const value = ["a", ["b", ["c"]]];
    const model = scriptedModel([{ toolCalls: [so({ value })] }]);
    const { result } = await runWith("nest", { model, outputSchema: schema });
    expect(result).toMatchObject({ subtype: "success", structuredOutput: value });
    const tool = model.requests[0]!.tools!.find((t) => t.name === "StructuredOutput") as {
      inputSchema: Record<string, unknown>;
    };
    // "#" would now mean the { value } wrapper; it must point at the wrapped schema.
    expect(JSON.stringify(tool.inputSchema)).not.toContain('"$ref":"#"');
    expect(refsResolve(tool.inputSchema)).toEqual([]);
  });

  it("a recursive zod schema validates nested values", async () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    }) as never;
    const value = { name: "a", children: [{ name: "b", children: [] }] };
    const model = scriptedModel([
      { toolCalls: [so({ name: "a", children: [{ name: 3, children: [] }] })] },
      { toolCalls: [so(value)] },
    ]);
    const { result } = await runWith("tree", { model, outputSchema: Node });
    expect(result).toMatchObject({ subtype: "success", structuredOutput: value });
    expect(promptText(model.requests[1]!)).toContain("children");
    const tool = model.requests[0]!.tools!.find((t) => t.name === "StructuredOutput") as {
      inputSchema: Record<string, unknown>;
    };
    expect(refsResolve(tool.inputSchema)).toEqual([]);
  });

  it("a zod transform: the value is the transform's output, the model is shown the input shape", async () => {
    const Schema = z.object({ when: z.string().transform((s) => new Date(s).getUTCFullYear()) });
    const model = scriptedModel([{ toolCalls: [so({ when: "2024-05-01T00:00:00Z" })] }]);
    const { result } = await runWith("when?", { model, outputSchema: Schema });
    expect(result.structuredOutput).toEqual({ when: 2024 });
    const tool = model.requests[0]!.tools!.find((t) => t.name === "StructuredOutput") as {
      inputSchema: { properties: { when: { type: string } } };
    };
    expect(tool.inputSchema.properties.when.type).toBe("string");
  });

  it("maxTurns 1 and an invalid value: the run ends with error_max_turns, no structuredOutput", async () => {
    const model = scriptedModel([{ toolCalls: [so({ city: 1 })] }, { toolCalls: [so(lyon)] }]);
    const { result } = await runWith("which city?", { model, outputSchema: Answer, maxTurns: 1 });
    expect(result.subtype).toBe("error_max_turns");
    expect(result.structuredOutput).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });
});

describe("a live session with outputSchema: each stretch is its own answer", () => {
  it("each stretch's result has the value of its own StructuredOutput call, and the tool is offered again", async () => {
    const model = scriptedModel([{ toolCalls: [so(lyon)] }, { toolCalls: [so(nice)] }]);
    const input = inbox();
    input.push("first city");
    const results: WithOutput[] = [];
    for await (const m of summon(input, {
      model,
      outputSchema: Answer,
      persistSession: false,
      persistTodos: false,
      marketPricing: false,
      logger: quiet,
    })) {
      if (m.type !== "result") continue;
      results.push(m as WithOutput);
      if (results.length === 1) input.push("second city");
      else input.end();
    }
    expect(results.map((r) => [r.subtype, r.structuredOutput])).toEqual([
      ["success", lyon],
      ["success", nice],
    ]);
    expect(offered(model.requests[1]!)).toContain("StructuredOutput");
  });

  it("a stretch that answers in text is corrected within that stretch; it does not keep the previous stretch's value", async () => {
    const model = scriptedModel([{ toolCalls: [so(lyon)] }, "Nice, I think.", { toolCalls: [so(nice)] }]);
    const input = inbox();
    input.push("first city");
    const results: WithOutput[] = [];
    for await (const m of summon(input, {
      model,
      outputSchema: Answer,
      persistSession: false,
      persistTodos: false,
      marketPricing: false,
      logger: quiet,
    })) {
      if (m.type !== "result") continue;
      results.push(m as WithOutput);
      if (results.length === 1) input.push("second city");
      else input.end();
    }
    expect(model.requests).toHaveLength(3);
    expect(promptText(model.requests[2]!)).toContain("Call the StructuredOutput tool now");
    expect(results.at(-1)).toMatchObject({ subtype: "success", structuredOutput: nice });
  });

  it("attempts are counted per stretch: a stretch that ran out does not doom the next", async () => {
    const bad = { toolCalls: [so({ city: 1 })] };
    const model = scriptedModel([bad, bad, { toolCalls: [so(nice)] }]);
    const input = inbox();
    input.push("first city");
    const results: WithOutput[] = [];
    const messages: Message[] = [];
    for await (const m of summon(input, {
      model,
      outputSchema: Answer,
      maxStructuredOutputRetries: 1,
      persistSession: false,
      persistTodos: false,
      marketPricing: false,
      logger: quiet,
    })) {
      messages.push(m);
      if (m.type !== "result") continue;
      results.push(m as WithOutput);
      if (results.length === 1) input.push("second city");
      else input.end();
    }
    expect(results.map((r) => r.subtype)).toEqual(["error_max_structured_output_retries", "success"]);
    expect(results[0]!.structuredOutput).toBeUndefined();
    expect(results[1]!.structuredOutput).toEqual(nice);
  });
});
