/**
 * Content on spans: none unless `recordContent` (prompts, outputs, tool inputs and results may
 * hold secrets), and with it every recorded string — the AI SDK's own spans included — goes
 * through the run's redaction.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { collect, resultOf } from "../helpers/collect";
import { memoryTracing, tree } from "./helpers";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

const SECRET = "sk-telemetry-secret-0123456789abcdef";
const WORD = "zanzibar";

/** Every string a span carries: attribute values, event attributes, the status message. */
function stringsOf(span: ReadableSpan): string[] {
  const values = [
    ...Object.values(span.attributes),
    ...span.events.flatMap((e) => Object.values(e.attributes ?? {})),
    span.status.message,
  ];
  return values.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is string => typeof v === "string");
}

async function run(recordContent: boolean | undefined) {
  const dir = temp("ubq-telemetry-content-");
  writeFileSync(join(dir, "config.txt"), `token=${SECRET}\n${WORD} settings\n`);
  const { tracer, settled } = memoryTracing();
  const model = scriptedModel([
    { toolCalls: [{ toolName: "Read", input: { file_path: join(dir, "config.txt") }, id: "read-1" }] },
    { text: `the ${WORD} file holds ${SECRET}` },
  ]);
  const telemetry = recordContent === undefined ? { tracer } : { tracer, recordContent };
  const messages = await collect(
    summon(`read config.txt about ${WORD}; my key is ${SECRET}`, {
      model,
      apiKey: SECRET,
      cwd: dir,
      persistSession: false,
      marketPricing: false,
      telemetry,
    }),
  );
  expect(resultOf(messages).isError).toBe(false);
  return tree(await settled());
}

describe("content on spans", () => {
  it("is off by default: no message, argument or result attributes, and no prompt or output text anywhere", async () => {
    const t = await run(undefined);
    expect(t.spans.length).toBeGreaterThan(8);
    for (const span of t.spans) {
      for (const key of [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
      ]) {
        expect(span.attributes[key], `${span.name} ${key}`).toBeUndefined();
      }
      for (const value of stringsOf(span)) {
        expect(value, span.name).not.toContain(WORD);
        expect(value, span.name).not.toContain(SECRET);
      }
    }
  });

  it("with recordContent: prompts, outputs, tool inputs and results are on the spans, with secrets redacted everywhere", async () => {
    const t = await run(true);
    const all = t.spans.flatMap(stringsOf);
    expect(
      all.some((v) => v.includes(SECRET)),
      "a secret reached a span",
    ).toBe(false);
    const root = t.one("invoke_agent ubiquity");
    expect(String(root.attributes["gen_ai.input.messages"])).toContain(
      `read config.txt about ${WORD}; my key is [redacted]`,
    );
    expect(String(root.attributes["gen_ai.output.messages"])).toContain(`the ${WORD} file holds [redacted]`);
    const read = t.one("execute_tool Read");
    expect(String(read.attributes["gen_ai.tool.call.arguments"])).toContain("config.txt");
    expect(String(read.attributes["gen_ai.tool.call.result"])).toContain("token=[redacted]");
    // The AI SDK recorded the conversation on its own spans, through the same redaction.
    const sdk = t.spans.filter(
      (s) =>
        s.attributes["ubiquity.model.purpose"] === undefined && s.attributes["gen_ai.input.messages"] !== undefined,
    );
    expect(sdk.length, t.outline()).toBeGreaterThan(0);
    expect(sdk.some((s) => String(s.attributes["gen_ai.input.messages"]).includes("my key is [redacted]"))).toBe(true);
  });
});
