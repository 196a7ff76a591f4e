/**
 * Attacks on the spending cap: a live session's stretches share one ledger (a second message
 * never resets the spend), a retried request is not charged twice nor refused by its own
 * reservation, and settings files can tighten a cap but never loosen one.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callModel } from "ubiquity/plugin";
import { defineTool, summon, type Message, type ResultMessage } from "ubiquity";
import { z } from "zod";
import { scriptedModel } from "ubiquity/testing";
import settings from "ubiquity/plugins/settings";
import agents from "ubiquity/plugins/agents";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome } from "../helpers/temp-home";
import { inbox } from "../live/helpers";
import { budgetLayer, echo } from "./helpers";

const dirs = tempDirs();
const home = tempHome();

describe("a live session has one ledger", () => {
  it("the second stretch's request is checked against the first stretch's spend, not a fresh budget", async () => {
    // Stretch 1 spends 1100 tokens; stretch 2's request (~1000 counted + ~100 output) fits a fresh 2000 but not what is left.
    const model = scriptedModel([{ text: "one", usage: { inputTokens: 1000, outputTokens: 100 } }, "two (never sent)"]);
    const input = inbox();
    input.push("first");
    const results: ResultMessage[] = [];
    for await (const m of summon(input, {
      model,
      presets: [],
      plugins: budgetLayer(),
      maxTokens: 100,
      maxBudgetTokens: 2000,
      maxRetries: 0,
    })) {
      if (m.type !== "result") continue;
      results.push(m);
      if (results.length === 1) input.push("second");
      else input.end();
    }
    expect(results.map((r) => r.subtype)).toEqual(["success", "error_max_budget_tokens"]);
    expect(model.requests).toHaveLength(1);
    expect(results[1]!.budget?.spentTokens).toBe(1100);
  });

  it("control: a fresh session with the same second message fits the same cap", async () => {
    const model = scriptedModel(["two"]);
    const result = resultOf(
      await collect(
        summon("second", {
          model,
          presets: [],
          plugins: budgetLayer(),
          maxTokens: 100,
          maxBudgetTokens: 2000,
          maxRetries: 0,
        }),
      ),
    );
    expect(result.subtype).toBe("success");
  });
});

describe("setModel under maxBudgetUsd", () => {
  it("a switch to a model with no price is refused before its first request; the priced model's request went out", async () => {
    const model = scriptedModel(["one"], { modelId: "alpha" });
    const other = scriptedModel(["never"], { modelId: "beta" });
    const input = inbox();
    input.push("first");
    const session = summon(input, {
      model,
      presets: [],
      plugins: budgetLayer(),
      modelPricing: { alpha: { input: 1, output: 1 } },
      marketPricing: false,
      maxBudgetUsd: 10,
      maxTokens: 100,
      maxRetries: 0,
    });
    const results: ResultMessage[] = [];
    for await (const m of session) {
      if (m.type !== "result") continue;
      results.push(m);
      if (results.length === 1) {
        await session.setModel(other);
        input.push("second");
      } else input.end();
    }
    expect(results.map((r) => r.subtype)).toEqual(["success", "error_during_execution"]);
    expect(results[1]!.result).toContain("modelPricing");
    expect(other.requests).toHaveLength(0);
  });
});

describe("a retry after a 500", () => {
  it("is sent (its reservation does not block it) and the failed attempt costs nothing", async () => {
    const model = scriptedModel([
      { error: { status: 500 } },
      { text: "ok", usage: { inputTokens: 100, outputTokens: 10 } },
    ]);
    const messages: Message[] = await collect(
      summon("hi", {
        model,
        presets: [],
        plugins: budgetLayer(),
        tools: [echo],
        maxTokens: 100,
        maxBudgetTokens: 400,
        maxRetries: 1,
        retryMaxWaitMs: 20,
      }),
    );
    const result = resultOf(messages);
    expect(model.requests).toHaveLength(2);
    expect(result.subtype).toBe("success");
    expect(result.budget?.spentTokens).toBe(110);
  });
});

describe("settings files and the cap", () => {
  const write = (root: string, rel: string, data: object) => {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), JSON.stringify(data));
  };
  const runWith = async (cwd: string, trust: boolean, model = scriptedModel(["hello"])) => {
    const result = resultOf(
      await collect(
        summon("hi", {
          model,
          cwd,
          presets: [],
          plugins: [settings(), ...budgetLayer()],
          settingSources: ["user", "project", "local"],
          trust,
        }),
      ),
    );
    return { result, model };
  };

  it("a trusted project's larger maxBudgetTokens does not loosen the user's cap", async () => {
    const cwd = dirs();
    write(home(), ".ubiquity/settings.json", { maxBudgetTokens: 10 });
    write(cwd, ".ubiquity/settings.json", { maxBudgetTokens: 1_000_000 });
    const { result, model } = await runWith(cwd, true);
    expect(result.subtype).toBe("error_max_budget_tokens");
    expect(result.budget?.maxBudgetTokens).toBe(10);
    expect(model.requests).toHaveLength(0);
  });

  it("a trusted folder's local file does not loosen the user's maxBudgetUsd either", async () => {
    const cwd = dirs();
    write(home(), ".ubiquity/settings.json", { maxBudgetUsd: 0.000001 });
    write(cwd, ".ubiquity/settings.local.json", { maxBudgetUsd: 1000 });
    const model = scriptedModel(["hello"]);
    const result = resultOf(
      await collect(
        summon("hi", {
          model,
          cwd,
          presets: [],
          plugins: [settings(), ...budgetLayer()],
          settingSources: ["user", "project", "local"],
          trust: true,
          modelPricing: { scripted: { input: 10, output: 30 } },
          marketPricing: false,
        }),
      ),
    );
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.budget?.maxBudgetUsd).toBe(0.000001);
    expect(model.requests).toHaveLength(0);
  });

  it("a project may tighten the user's cap (trusted or not): the smaller cap applies", async () => {
    for (const trust of [true, false]) {
      const cwd = dirs();
      write(home(), ".ubiquity/settings.json", { maxBudgetTokens: 1_000_000 });
      write(cwd, ".ubiquity/settings.json", { maxBudgetTokens: 10 });
      const { result, model } = await runWith(cwd, trust);
      expect({ trust, subtype: result.subtype, cap: result.budget?.maxBudgetTokens }).toEqual({
        trust,
        subtype: "error_max_budget_tokens",
        cap: 10,
      });
      expect(model.requests).toHaveLength(0);
    }
  });

  it("an untrusted project's cap cannot loosen the user's cap, and a lone loose one is just a cap", async () => {
    const cwd = dirs();
    write(home(), ".ubiquity/settings.json", { maxBudgetTokens: 10 });
    write(cwd, ".ubiquity/settings.json", { maxBudgetTokens: 1_000_000 });
    const { result } = await runWith(cwd, false);
    expect(result.subtype).toBe("error_max_budget_tokens");
    expect(result.budget?.maxBudgetTokens).toBe(10);
  });

  it("an explicit option still beats every file (the host's code decides)", async () => {
    const cwd = dirs();
    write(home(), ".ubiquity/settings.json", { maxBudgetTokens: 10 });
    write(cwd, ".ubiquity/settings.json", { maxBudgetTokens: 20 });
    const model = scriptedModel(["hello"]);
    const result = resultOf(
      await collect(
        summon("hi", {
          model,
          cwd,
          presets: [],
          plugins: [settings(), ...budgetLayer()],
          settingSources: ["user", "project"],
          trust: true,
          maxBudgetTokens: 1_000_000,
        }),
      ),
    );
    expect(result.subtype).toBe("success");
  });
});

describe("one run's requests in flight at the same time", () => {
  it("two parallel tool calls that each make a model call (callModel on the same run) each reserve their worst case", async () => {
    // Turn 1 spends 110 tokens; each side call's worst case is ~1005 tokens: one fits under 1800, two do not.
    const ask = defineTool({
      name: "Ask",
      description: "Ask the model a side question.",
      inputSchema: z.object({ q: z.string() }),
      isReadOnly: true,
      isConcurrencySafe: true,
      async execute({ q }, ctx) {
        const run = ctx.run!;
        const { text } = await callModel(
          run,
          {
            model: run.model!,
            modelLabel: run.modelLabel!,
            instructions: "",
            messages: [{ role: "user", content: q }],
            maxOutputTokens: 1000,
          },
          { purpose: "compact" },
        );
        return text;
      },
    });
    const model = scriptedModel(({ index }) =>
      index === 0
        ? {
            toolCalls: [
              { toolName: "Ask", input: { q: "a" } },
              { toolName: "Ask", input: { q: "b" } },
            ],
            usage: { inputTokens: 100, outputTokens: 10 },
          }
        : { text: "side answer", delayMs: 50, usage: { inputTokens: 5, outputTokens: 5 } },
    );
    const result = resultOf(
      await collect(
        summon("go", {
          model,
          presets: [],
          plugins: budgetLayer(),
          tools: [ask],
          maxTokens: 100,
          maxBudgetTokens: 1800,
          maxRetries: 0,
        }),
      ),
    );
    // The turn and one side call went out; the second side call (in flight beside the first) did not.
    expect(model.requests).toHaveLength(2);
    expect(result.subtype).toBe("error_max_budget_tokens");
  });
});

describe("an interrupted request's reservation", () => {
  it("is not held against the next stretch: a subagent there fits the cap it would not fit beside a stale reservation", async () => {
    // Each request's worst case is ~1000 output tokens: a stale one from the interrupted stream plus the subagent's passes 1800.
    const model = scriptedModel(({ index, request }) => {
      const system = request.prompt
        .filter((m) => m.role === "system")
        .map((m) => String(m.content))
        .join("");
      if (index === 0) return { text: "never", delayMs: 20_000 };
      if (system.includes("You are WORKER.")) return { text: "sub done", usage: { inputTokens: 10, outputTokens: 10 } };
      if (request.prompt.at(-1)?.role === "tool")
        return { text: "parent done", usage: { inputTokens: 10, outputTokens: 10 } };
      return {
        toolCalls: [{ toolName: "Agent", input: { subagent_type: "worker", description: "w", prompt: "work" } }],
        usage: { inputTokens: 10, outputTokens: 10 },
      };
    });
    const input = inbox();
    input.push("first");
    const session = summon(input, {
      model,
      presets: [],
      plugins: [...budgetLayer(), agents()],
      agents: { worker: { description: "w", prompt: "You are WORKER." } },
      maxTokens: 1000,
      maxBudgetTokens: 1800,
      maxRetries: 0,
    });
    const poll = setInterval(() => {
      if (model.requests.length === 1) {
        clearInterval(poll);
        input.push({ type: "user", text: "delegate instead", interrupt: true });
      }
    }, 5);
    const results: ResultMessage[] = [];
    for await (const m of session) {
      if (m.type !== "result" || m.agentId !== undefined) continue;
      results.push(m);
      if (results.length === 2) input.end();
    }
    clearInterval(poll);
    expect(results.map((r) => r.subtype)).toEqual(["error_during_execution", "success"]);
    expect(results[1]!.result).toBe("parent done");
  });
});
