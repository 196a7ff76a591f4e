/**
 * The acceptance run: a parent calls two agents in one response. They run in parallel (both
 * have started before either reports), each returns only its final text, and the run's usage
 * and cost include theirs.
 */
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import agents from "ubiquity/plugins/agents";
import systemPrompt from "ubiquity/plugins/system-prompt";
import pricing from "ubiquity/plugins/pricing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { agentCall, agentOf, answered, echo } from "./helpers";

const PARENT_USAGE = { inputTokens: 100, outputTokens: 10 };
const CHILD_USAGE = { inputTokens: 7, outputTokens: 3 };

describe("acceptance: two agents in one response", () => {
  it("run in parallel, each returns only its final text, and the run's usage and cost include theirs", async () => {
    const model = scriptedModel(({ request }) => {
      const who = agentOf(request);
      if (who) {
        // A tool-calling turn with interim text, then the final reply.
        if (answered(request)) return { text: `${who} final`, usage: CHILD_USAGE };
        return { text: `${who} working`, toolCalls: [{ toolName: "Echo", input: { text: who } }], usage: CHILD_USAGE };
      }
      if (answered(request)) return { text: "parent done", usage: PARENT_USAGE };
      return { toolCalls: [agentCall("alpha", "call-a"), agentCall("beta", "call-b")], usage: PARENT_USAGE };
    });
    const messages: Message[] = await collect(
      summon("review everything", {
        model,
        presets: [],
        plugins: [systemPrompt(), pricing(), agents()],
        tools: [echo],
        modelPricing: { scripted: { input: 1, output: 2 } },
        marketPricing: false,
        agents: {
          alpha: { description: "First reviewer", prompt: "You are ALPHA." },
          beta: { description: "Second reviewer", prompt: "You are BETA." },
        },
      }),
    );
    const result = resultOf(messages);
    expect(result).toMatchObject({ isError: false, result: "parent done" });

    // Parallel: both subagents started (system/init) before either reported (result).
    const index = (pred: (m: Message) => boolean) => messages.findIndex(pred);
    const started = ["call-a", "call-b"].map((id) => index((m) => m.type === "system" && m.parentToolUseId === id));
    const firstReport = index((m) => m.type === "result" && m.agentId !== undefined);
    expect(started.every((i) => i >= 0 && i < firstReport)).toBe(true);

    // Only the final text comes back, as the Agent results the parent sees.
    const agentResults = ofType(messages, "tool_result").filter((m) => m.toolName === "Agent");
    expect(agentResults.map((m) => [m.toolUseId, m.output.content, m.agentId])).toEqual([
      ["call-a", "ALPHA final", undefined],
      ["call-b", "BETA final", undefined],
    ]);
    const parentSecond = JSON.stringify(model.requests.filter((r) => !agentOf(r)).at(-1)!.prompt);
    expect(parentSecond).toContain("ALPHA final");
    expect(parentSecond).not.toContain("ALPHA working");
    expect(parentSecond).not.toContain("echo: ALPHA");

    // Usage and cost: two parent responses plus two per subagent, all on the run's totals.
    expect(result.usage).toEqual({
      inputTokens: 2 * 100 + 4 * 7,
      outputTokens: 2 * 10 + 4 * 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      requests: 6,
      toolCalls: 4,
    });
    expect(result.modelUsage["scripted:scripted"]).toMatchObject({ inputTokens: 228, outputTokens: 32, requests: 6 });
    expect(result.totalCostUsd).toBeCloseTo((228 * 1 + 32 * 2) / 1_000_000, 12);

    // Each subagent reported its own share.
    const childResults = ofType(messages, "result").filter((m) => m.agentId !== undefined);
    expect(childResults.map((r) => r.usage.inputTokens)).toEqual([14, 14]);
  });
});
