/**
 * The local check of an MCP tool's input refuses only what the server's validator refuses too.
 * The schemas are Playwright MCP 0.0.86's as it lists them (shortened descriptions): zod's JSON
 * Schema output, where a defaulted field is required and objects are closed.
 */
import { describe, expect, it } from "vitest";
import { jsonSchemaInput } from "../../plugins/mcp/input-schema";
import { lenientInputSchema } from "../../plugins/mcp/lenient-schema";

const DIALECT = "https://json-schema.org/draft/2020-12/schema";
const screenshot = {
  type: "object",
  properties: {
    element: { type: "string" },
    target: { type: "string" },
    type: { type: "string", enum: ["png", "jpeg", "webp"] },
    filename: { type: "string" },
    fullPage: { type: "boolean" },
    scale: { default: "css", type: "string", enum: ["css", "device"] },
  },
  required: ["scale"],
  $schema: DIALECT,
  additionalProperties: false,
};
const networkRequests = {
  type: "object",
  properties: {
    static: { default: false, type: "boolean" },
    filter: { type: "string" },
    all: { type: "boolean" },
    filename: { type: "string" },
  },
  required: ["static"],
  $schema: DIALECT,
  additionalProperties: false,
};
const drop = {
  type: "object",
  properties: {
    target: { type: "string" },
    paths: { type: "array", items: { type: "string" } },
    data: { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "string" } },
  },
  required: ["target"],
  $schema: DIALECT,
  additionalProperties: false,
};

const check = (schema: Record<string, unknown>, input: unknown) => {
  const uncompilable: unknown[] = [];
  const result = jsonSchemaInput(schema, (e) => uncompilable.push(e)).safeParse(input);
  return { ok: result.success, message: result.success ? "" : result.error.issues[0]!.message, uncompilable };
};

describe("MCP input schemas, as lenient as the server", () => {
  it("Playwright calls the server takes pass: defaulted fields left out, unknown keys added", () => {
    expect(check(screenshot, {})).toMatchObject({ ok: true, uncompilable: [] });
    expect(check(networkRequests, {})).toMatchObject({ ok: true });
    expect(check(screenshot, { fullPage: true, ref: "e12" })).toMatchObject({ ok: true });
    expect(check(drop, { target: "e3", data: { "text/plain": "hi" } })).toMatchObject({ ok: true });
  });

  it("what the server refuses too is still refused here, with ajv's words", () => {
    expect(check(screenshot, { scale: "huge" })).toMatchObject({
      ok: false,
      message: expect.stringContaining("must be equal to one of the allowed values"),
    });
    expect(check(drop, {})).toMatchObject({
      ok: false,
      message: expect.stringContaining("must have required property 'target'"),
    });
    expect(check(drop, { target: "e3", data: { "text/plain": 1 } })).toMatchObject({
      ok: false,
      message: expect.stringContaining("must be string"),
    });
  });

  it("a schema that does not compile checks nothing and says why", () => {
    const broken = { type: "object", properties: { x: { $ref: "#/$defs/missing" } } };
    const result = check(broken, { x: 1 });
    expect(result.ok).toBe(true);
    expect(result.uncompilable).toHaveLength(1);
  });

  it("the lenient form leaves the server's schema untouched and keeps data (defaults, enums) as they are", () => {
    const copy = structuredClone(screenshot);
    const lenient = lenientInputSchema(screenshot);
    expect(screenshot).toEqual(copy);
    expect(lenient).toEqual({ type: "object", properties: screenshot.properties, required: [] });
    const nested = lenientInputSchema({
      type: "object",
      properties: {
        o: { type: "object", properties: { a: { default: 1 } }, required: ["a", "b"], additionalProperties: false },
      },
      default: { required: ["kept"] },
    });
    expect(nested).toEqual({
      type: "object",
      properties: { o: { type: "object", properties: { a: { default: 1 } }, required: ["b"] } },
      default: { required: ["kept"] },
    });
  });
});
