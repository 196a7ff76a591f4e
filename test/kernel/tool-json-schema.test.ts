import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon } from "ubiquity";
import { toolJsonSchema } from "../../src/index";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";

const given = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { path: { type: "string", description: "A path" } },
  required: ["path"],
};

function withJsonSchema() {
  const tool = defineTool({
    name: "Remote",
    description: "A tool whose schema arrived as JSON Schema.",
    inputSchema: z.record(z.string(), z.unknown()),
    execute: () => "ok",
  });
  tool.jsonSchema = given;
  return tool;
}

describe("toolJsonSchema", () => {
  it("passes a tool's own jsonSchema through as given, without $schema", () => {
    const { $schema: _, ...rest } = given;
    expect(toolJsonSchema(withJsonSchema())).toEqual(rest);
    expect(given.$schema).toBeDefined(); // the tool's own object is left alone
  });

  it("derives the schema from the zod inputSchema otherwise", () => {
    const tool = defineTool({
      name: "Local",
      description: "d",
      inputSchema: z.object({ n: z.number() }),
      execute: () => "ok",
    });
    expect(toolJsonSchema(tool)).toMatchObject({
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
    });
  });

  it("is what the model is offered", async () => {
    const model = scriptedModel(["done"]);
    await collect(summon("hi", { presets: [], model, tools: [withJsonSchema()] }));
    const offered = model.requests[0]!.tools?.find((t) => t.name === "Remote") as { inputSchema?: unknown } | undefined;
    const { $schema: _, ...rest } = given;
    expect(offered?.inputSchema).toEqual(rest);
  });
});
