/**
 * `reasoning`: one option, mapped by each provider package from the AI SDK's portable setting to
 * its own wire field — checked in the request body each fake provider server receives (OpenAI
 * Responses and Chat, Anthropic, Google). Then by phase (plan / work / verify), per subagent,
 * and `setReasoning()` on a live session.
 */
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin, summon, type Message, type SummonOptions } from "ubiquity";
import { startProviderServer, type FakeProviderServer, type FakeScript } from "ubiquity/testing";
import { inbox } from "../live/helpers";
import { tempDir } from "../tools/helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function drain(prompt: Parameters<typeof summon>[0], options: SummonOptions): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of summon(prompt, options)) out.push(m);
  return out;
}

async function serve(script: FakeScript) {
  server = await startProviderServer(script);
  return {
    apiKey: "k",
    providerSettings: { baseURL: server.baseURL },
    persistSession: false,
    maxRetries: 0,
    cwd: tempDir(),
  } as const;
}

type Body = Record<string, unknown> & {
  reasoning?: { effort?: string };
  generationConfig?: { thinkingConfig?: Record<string, unknown> };
};
const bodies = () => server!.requests.map((r) => r.body as Body);

describe("reasoning on each provider's wire format", () => {
  it("OpenAI Responses: reasoning.effort", async () => {
    const base = await serve(() => "ok");
    await drain("x", { ...base, model: "openai:gpt-5.1", reasoning: "low" });
    await drain("x", { ...base, model: "openai:gpt-5.1", reasoning: "none" });
    expect(bodies().map((b) => b.reasoning?.effort)).toEqual(["low", "none"]);
  });

  it("OpenAI Chat Completions: reasoning_effort", async () => {
    const base = await serve(() => "ok");
    await drain("x", { ...base, model: "openai.chat:gpt-5.1", reasoning: "high" });
    expect(bodies()[0]!.reasoning_effort).toBe("high");
  });

  it("Anthropic: a thinking budget under max_tokens, or thinking disabled", async () => {
    const base = await serve(() => "ok");
    await drain("x", { ...base, model: "anthropic:claude-sonnet-4-5", reasoning: "high" });
    await drain("x", { ...base, model: "anthropic:claude-sonnet-4-5", reasoning: "none" });
    const [high, none] = bodies() as { thinking: { type: string; budget_tokens?: number }; max_tokens: number }[];
    expect(high!.thinking.type).toBe("enabled");
    expect(high!.thinking.budget_tokens).toBeGreaterThan(0);
    expect(high!.thinking.budget_tokens!).toBeLessThan(high!.max_tokens);
    expect(none!.thinking).toEqual({ type: "disabled" });
  });

  it("Google: thinkingConfig (a budget on 2.5, a level on 3)", async () => {
    const base = await serve(() => "ok");
    await drain("x", { ...base, model: "google:gemini-2.5-pro", reasoning: "low" });
    await drain("x", { ...base, model: "google:gemini-3-pro-preview", reasoning: "high" });
    const [budget, level] = bodies().map((b) => b.generationConfig?.thinkingConfig);
    expect(budget!.thinkingBudget).toBeGreaterThan(0);
    expect(level!.thinkingLevel).toBe("high");
  });

  it("sends nothing of its own when unset (the provider's default)", async () => {
    const base = await serve(() => "ok");
    await drain("x", { ...base, model: "openai:gpt-5.1" });
    expect(bodies()[0]!.reasoning).toBeUndefined();
  });

  it("refuses a level it does not know at the config line", async () => {
    const base = await serve(() => "ok");
    const messages = await drain("x", { ...base, model: "openai:gpt-5.1", reasoning: "extreme" as never });
    expect(messages.at(-1)).toMatchObject({
      type: "result",
      isError: true,
      result: expect.stringMatching(/reasoning/),
    });
    expect(server!.requests).toHaveLength(0);
  });
});

describe("reasoning by phase, per subagent, live", () => {
  it("a schedule: plan for the prompt's answer, work after tool results, verify after a stop check sent it back", async () => {
    const base = await serve(
      (_r, i) =>
        [
          { toolCalls: [{ name: "Glob", input: { pattern: "*" }, id: "c1" }] },
          "done",
          { toolCalls: [{ name: "Glob", input: { pattern: "*.ts" }, id: "c2" }] },
          "verified",
        ][i] ?? "extra",
    );
    let sentBack = false;
    const verifier = definePlugin(() => ({
      name: "test:send-back-once",
      apply(kernel) {
        kernel.hooks.turn.stop.tap("test:send-back-once", () =>
          sentBack ? undefined : ((sentBack = true), { continueWith: "run the checks" }),
        );
      },
    }));
    const messages = await drain("x", {
      ...base,
      model: "openai:gpt-5.1",
      reasoning: { plan: "high", work: "low", verify: "medium" },
      plugins: [verifier()],
    });
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "verified" });
    expect(bodies().map((b) => b.reasoning?.effort)).toEqual(["high", "low", "medium", "medium"]);
  });

  it("a subagent's definition sets its own level over the parent's", async () => {
    const base = await serve(
      (_r, i) =>
        [
          {
            toolCalls: [
              {
                name: "Agent",
                input: { subagent_type: "quick", description: "look", prompt: "look around" },
                id: "a1",
              },
            ],
          },
          "sub done",
          "parent done",
        ][i] ?? "extra",
    );
    const messages = await drain("x", {
      ...base,
      model: "openai:gpt-5.1",
      reasoning: "high",
      permissionMode: "bypassPermissions",
      agents: { quick: { description: "Quick looks", prompt: "Look quickly", reasoning: "none" } },
    });
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "parent done" });
    expect(bodies().map((b) => b.reasoning?.effort)).toEqual(["high", "none", "high"]);
  });

  it("setReasoning() changes a live session's level from its next request, and refuses an unknown level", async () => {
    const base = await serve(() => "ok");
    const input = inbox();
    input.push("one");
    const session = summon(input, { ...base, model: "openai:gpt-5.1", reasoning: "low" });
    let results = 0;
    for await (const m of session) {
      if (m.type !== "result") continue;
      results++;
      if (results === 1) {
        await expect(session.setReasoning("huge" as never)).rejects.toThrow(
          /not a reasoning level; use one of none, minimal/,
        );
        await session.setReasoning("xhigh");
        input.push("two");
      } else if (results === 2) {
        await session.setReasoning(undefined);
        input.push("three");
      } else input.end();
    }
    // gpt-5.1 has no xhigh: the OpenAI package maps it to its highest effort.
    expect(bodies().map((b) => b.reasoning?.effort)).toEqual(["low", "high", "low"]);
  });
});
