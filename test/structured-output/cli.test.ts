/**
 * `ubiquity run --output-schema <file>` through the built bin, against the local provider servers:
 * with `--output-format json` the validated value is the result's `structuredOutput`; text output
 * prints the JSON. A schema file that is no JSON is a usage error naming the file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const schema = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"],
  additionalProperties: false,
};
const good = { city: "Lyon", population: 522000 };

function project(model: string, extra: Record<string, unknown> = {}) {
  const config = {
    ...extra,
    model,
    apiKey: "k",
    providerSettings: { baseURL: server!.baseURL },
    maxRetries: 0,
    persistSession: false,
    persistTodos: false,
    marketPricing: false,
  };
  return tempProject({
    ".ubiquityrc.json": JSON.stringify(config),
    "schema.json": JSON.stringify(schema),
    "broken.json": "{ not json",
  });
}

describe("ubiquity run --output-schema", () => {
  it("--output-format json: the value is in the result (OpenAI, native format; corrected once)", async () => {
    server = await startProviderServer(['{"city": "Lyon"}', JSON.stringify(good)]);
    const dir = project("openai:gpt-4o");
    const out = await runCli(["run", "--output-schema", "schema.json", "--output-format", "json", "which city?"], dir);
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as { subtype: string; structuredOutput: unknown };
    expect(result.subtype).toBe("success");
    expect(result.structuredOutput).toEqual(good);
    const body = server.requests[0]!.body as { text: { format: { type: string; schema: unknown } } };
    expect(body.text.format.type).toBe("json_schema");
    expect(body.text.format.schema).toMatchObject({ properties: { city: { type: "string" } } });
    expect(server.requests).toHaveLength(2);
  });

  it("text output prints the JSON (Anthropic, the StructuredOutput tool)", async () => {
    server = await startProviderServer([
      { text: "Here it is.", toolCalls: [{ name: "StructuredOutput", input: good }] },
    ]);
    const dir = project("anthropic:claude-sonnet-4-5");
    const out = await runCli(["run", "--output-schema", "schema.json", "which city?"], dir);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.trim().split("\n").at(-1)).toBe(JSON.stringify(good));
    const body = server.requests[0]!.body as { tools: { name: string }[] };
    expect(body.tools.map((t) => t.name)).toContain("StructuredOutput");
  });

  it("--output-mode tool: an OpenAI model gets the StructuredOutput tool instead of the native format; a bad mode is exit 2", async () => {
    server = await startProviderServer([{ toolCalls: [{ name: "StructuredOutput", input: good }] }]);
    const dir = project("openai:gpt-4o");
    const out = await runCli(
      ["run", "--output-schema", "schema.json", "--output-mode", "tool", "--output-format", "json", "which city?"],
      dir,
    );
    expect(out.code, out.stderr).toBe(0);
    expect((JSON.parse(out.stdout) as { structuredOutput: unknown }).structuredOutput).toEqual(good);
    const body = server.requests[0]!.body as { text?: { format?: { type: string } }; tools: { name: string }[] };
    expect(body.tools.map((t) => t.name)).toContain("StructuredOutput");
    expect(body.text?.format?.type).not.toBe("json_schema");
    const bad = await runCli(["run", "--output-schema", "schema.json", "--output-mode", "json", "hi"], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--output-mode must be one of auto, native, tool");
    expect(server.requests).toHaveLength(1);
  });

  it("fails the run with exit 1 and error_max_structured_output_retries when no valid value comes", async () => {
    server = await startProviderServer(["no", "still no"]);
    const dir = project("openai:gpt-4o", { maxStructuredOutputRetries: 1 });
    const out = await runCli(["run", "--output-schema", "schema.json", "--output-format", "json", "which city?"], dir);
    expect(out.code).toBe(1);
    const result = JSON.parse(out.stdout) as { subtype: string; isError: boolean; structuredOutput?: unknown };
    expect(result.subtype).toBe("error_max_structured_output_retries");
    expect(result.structuredOutput).toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it("a schema file that is no JSON is a usage error (exit 2) naming the file", async () => {
    server = await startProviderServer([]);
    const dir = project("openai:gpt-4o");
    const out = await runCli(["run", "--output-schema", "broken.json", "hi"], dir);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("broken.json: not valid JSON");
    expect(server.requests).toHaveLength(0);
  });
});
