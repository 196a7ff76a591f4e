import { afterEach, describe, expect, it, vi } from "vitest";
import { redactValue, secretsOf } from "ubiquity/plugin";
import { createKernel, definePlugin, defineTool, summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType } from "../helpers/collect";
import { z } from "zod";

describe("redaction", () => {
  it("masks secret-named keys and known secret strings, not token counts", () => {
    const value = {
      apiKey: "sk-live-123456",
      maxTokens: 4096,
      maxThinkingTokens: 1024,
      usage: { cacheReadTokens: 10 },
      providerSettings: {
        headers: { "x-api-key": "abcd1234", Authorization: "Bearer zzzz" },
        secretAccessKey: "aws-secret",
        region: "us-east-1",
      },
      note: "the key sk-live-123456 leaked into a message",
    };
    const out = redactValue(value, secretsOf({ apiKey: value.apiKey, providerSettings: value.providerSettings }));
    expect(out).toEqual({
      apiKey: "[redacted]",
      maxTokens: 4096,
      maxThinkingTokens: 1024,
      usage: { cacheReadTokens: 10 },
      providerSettings: {
        headers: { "x-api-key": "[redacted]", Authorization: "[redacted]" },
        secretAccessKey: "[redacted]",
        region: "us-east-1",
      },
      note: "the key [redacted] leaked into a message",
    });
  });

  it("finds secrets by shape, so a third-party plugin's own options are covered without the kernel naming them", () => {
    const secrets = secretsOf(
      {
        acme: { webhook: "https://bot:hunter2-pass@hooks.example.com/x", serviceToken: "tok-acme-7777", retries: 3 },
        servers: {
          one: { env: { ACME_API_KEY: "acme-key-1234", PATH: "/usr/bin" }, headers: { "X-Custom": "header-value-99" } },
        },
        notes: ["plain text stays"],
      },
      {},
    );
    // Secrets learned at run time count in every later call of the process (noteSecret), so what an
    // earlier file in this worker learned is in the list too: only what these options add is compared.
    const learned = new Set(secretsOf(undefined, {}));
    expect(secrets.filter((s) => !learned.has(s)).sort()).toEqual([
      "acme-key-1234",
      "header-value-99",
      "hunter2-pass",
      "tok-acme-7777",
    ]);
  });

  it("the kernel's logger masks a secret that only a plugin's option carries", () => {
    const lines: string[] = [];
    const log = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
    const plugin = definePlugin({
      name: "acme:notify",
      options: z.object({ acmeNotify: z.object({ token: z.string() }).optional() }),
      apply(kernel) {
        kernel.hooks.kernel.configResolved.tap("acme:notify", (options) =>
          kernel.logger.warn(`connecting with ${(options.acmeNotify as { token: string }).token}`),
        );
      },
    });
    createKernel({
      plugins: [plugin],
      acmeNotify: { token: "acme-secret-424242" },
      logger: { debug: log, info: log, warn: log, error: log },
    } as never);
    expect(lines).toEqual(["connecting with [redacted]"]);
  });
});

describe("tool results", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  it("a tool's output is masked with the run's secrets (options and environment) before the stream and the model see it", async () => {
    const leaky = defineTool({
      name: "Leak",
      description: "Prints what it was given.",
      inputSchema: z.object({}),
      execute: () => `apiKey=sk-opt-778899 env=${process.env.UBIQUITY_TEST_LEAK_API_KEY} plain=visible-text`,
    });
    // A third-party plugin's option: found by its shape, as the kernel knows no plugin's names.
    const acme = definePlugin({
      name: "acme:client",
      options: z.object({ acme: z.object({ apiKey: z.string() }).optional() }),
      apply() {},
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: "Leak", input: {} }] }, { text: "done" }]);
    vi.stubEnv("UBIQUITY_TEST_LEAK_API_KEY", "env-key-665544");
    const messages = await collect(
      summon("go", {
        model,
        tools: [leaky],
        presets: [],
        plugins: [acme],
        acme: { apiKey: "sk-opt-778899" },
      } as never),
    );
    const result = ofType(messages, "tool_result")[0]!;
    expect(result, JSON.stringify(messages.at(-1))).toBeDefined();
    expect(result.output.content).toBe("apiKey=[redacted] env=[redacted] plain=visible-text");
    const sent = JSON.stringify(model.requests[1]!.prompt);
    expect(sent).toContain("apiKey=[redacted] env=[redacted] plain=visible-text");
    expect(sent).not.toMatch(/sk-opt-778899|env-key-665544/);
  });
});

describe("events", () => {
  it("an event a third-party plugin emits reaches the event taps with the run's secrets masked (red team zl, ZL3)", async () => {
    const seen: unknown[] = [];
    // A plugin relaying a remote service's log line, which echoes the key it was given.
    const relay = definePlugin({
      name: "acme:relay",
      options: z.object({ acme: z.object({ apiKey: z.string() }).optional() }),
      apply(kernel) {
        kernel.hooks.turn.end.tap("acme:relay", (_turn, run) => {
          kernel.emit({ type: "acme.log", line: "auth ok with sk-acme-556677 for bob" } as never, run);
        });
        kernel.hooks.event.tap("acme:audit", (event) => {
          if ((event as { type: string }).type === "acme.log") seen.push(event);
        });
      },
    });
    await collect(
      summon("go", {
        model: scriptedModel([{ text: "done" }]),
        presets: [],
        plugins: [relay],
        acme: { apiKey: "sk-acme-556677" },
      } as never),
    );
    expect(seen).toEqual([{ type: "acme.log", line: "auth ok with [redacted] for bob" }]);
  });
});

describe("what the loop hands on", () => {
  it("a third-party plugin's session.end tap gets the result masked, and the stream ends with one result (red team zp)", async () => {
    const ended: string[] = [];
    const audit = definePlugin({
      name: "acme:audit",
      options: z.object({ acme: z.object({ apiKey: z.string() }).optional() }),
      apply(kernel) {
        kernel.hooks.session.end.tap("acme:audit", (_run, result) => void ended.push(JSON.stringify(result)));
      },
    });
    const messages = await collect(
      summon("go", {
        model: scriptedModel([{ text: "the key is sk-acme-998877, as asked" }]),
        presets: [],
        plugins: [audit],
        acme: { apiKey: "sk-acme-998877" },
      } as never),
    );
    expect(ended).toHaveLength(1);
    expect(ended[0]).toContain("the key is [redacted], as asked");
    expect(ended[0]).not.toContain("sk-acme-998877");
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
  });
});
