/**
 * The offline `test` model with a structured result asked for (`--json-schema`, `outputSchema`):
 * it answers with a value made from the schema, so a newcomer trying the feature without a key
 * sees where a real model's value lands instead of a retries error (newcomer trial s, left open).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineTool, summon } from "ubiquity";
import { z } from "zod";
import { exampleOf } from "../../src/testing/test-model";
import { collect, resultOf } from "../helpers/collect";

const BIN = join(import.meta.dirname, "..", "..", "bin", "ubiquity.mjs");

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 9 },
    count: { type: "integer", minimum: 3 },
    ratio: { type: "number", exclusiveMinimum: 0 },
    tags: { type: "array", items: { type: "string" }, minItems: 2 },
    kind: { enum: ["a", "b"] },
    fixed: { const: 7 },
    when: { type: "string", format: "date-time" },
    nested: { type: "object", properties: { ok: { type: "boolean" }, note: { type: ["string", "null"] } } },
    either: { anyOf: [{ type: "integer" }, { type: "string" }] },
  },
  required: ["name", "count", "ratio", "tags", "kind", "fixed", "when", "nested", "either"],
};

describe("the offline test model and structured output", () => {
  it("makes a value each keyword of the schema accepts", () => {
    expect(exampleOf(SCHEMA)).toEqual({
      name: "example!!",
      count: 3,
      ratio: 1,
      tags: ["example", "example"],
      kind: "a",
      fixed: 7,
      when: "1970-01-01T00:00:00.000Z",
      nested: { ok: false, note: "example" },
      either: 0,
    });
    expect(exampleOf({ type: "object", properties: { a: { default: 5 } } })).toEqual({ a: 5 });
    expect(exampleOf(undefined)).toBeNull();
  });

  it("summon() with a zod outputSchema ends in success with the made value", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-test-model-so-")));
    const Answer = z.object({ city: z.string(), population: z.number().int().positive() });
    const result = resultOf(
      await collect(summon("which city?", { model: "test", cwd, outputSchema: Answer, persistSession: false })),
    );
    expect(result).toMatchObject({ subtype: "success", isError: false, structuredOutput: { city: "example" } });
    expect(Answer.safeParse(result.structuredOutput).success).toBe(true);
  });

  it.each([[[]], [["--output-mode", "native"]]])("`ubiquity run --model test --json-schema` succeeds %j", (extra) => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-test-model-so-")));
    const out = spawnSync(
      process.execPath,
      [
        BIN,
        "run",
        "--model",
        "test",
        "--json-schema",
        JSON.stringify(SCHEMA),
        ...extra,
        "--output-format",
        "json",
        "hi",
      ],
      { cwd, encoding: "utf8", env: { PATH: process.env.PATH, HOME: cwd, TERM: "dumb" } },
    );
    expect(out.status, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ subtype: "success", structuredOutput: { kind: "a", fixed: 7, count: 3 } });
  });

  it("`use <Tool>` calls a tool of the run by name: with the JSON given, or a value made from its schema (trial x, finding 9)", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-test-model-use-")));
    const seen: unknown[] = [];
    const Weather = defineTool({
      name: "Weather",
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).optional() }),
      isReadOnly: true,
      execute: (input) => {
        seen.push(input);
        return `sunny in ${input.city}`;
      },
    });
    const run = async (prompt: string) =>
      resultOf(await collect(summon(prompt, { model: "test", cwd, tools: [Weather], persistSession: false })));
    const given = await run('call weather {"city":"Paris","days":2}');
    expect(given.isError, given.result).toBe(false);
    expect(given.result).toContain("Weather returned:\nsunny in Paris");
    const made = await run("use Weather");
    expect(made.result).toContain("sunny in example");
    expect(seen).toEqual([{ city: "Paris", days: 2 }, { city: "example" }]);
    // Words that name no tool of the run are the prompt, as before.
    expect((await run("use the force")).result).toContain('Offline test model: you said "use the force"');
  });
});
