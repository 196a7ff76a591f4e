/**
 * One ledger: a subagent's requests and a compaction summary count against the root run's
 * budget, against a real OpenAI-format server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import agents from "ubiquity/plugins/agents";
import systemPrompt from "ubiquity/plugins/system-prompt";
import compactionSummarize from "ubiquity/plugins/compaction-summarize";
import { ofType } from "../helpers/collect";
import { cost, PRICE, run } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const base = () => ({
  model: "openai:budget-model",
  apiKey: "k",
  providerSettings: { baseURL: server!.baseURL },
  modelPricing: { "budget-model": PRICE },
  maxTokens: 1000,
});

describe("a subagent's spend counts against the parent's budget", () => {
  // Parent request 1 delegates ($0.0115); the subagent's request 2 calls a tool ($0.0415); its
  // request 3 would pass the cap: $0.053 spent + ~$0.04 input + $0.03 output > $0.11. The
  // parent's own next request (~$0.0105 + $0.03) would still fit: only the one ledger's
  // refusal stops it.
  const parent1 = { inputTokens: 1000, outputTokens: 50 };
  const child1 = { inputTokens: 4000, outputTokens: 50 };
  const script = () => [
    {
      toolCalls: [{ name: "Agent", input: { subagent_type: "worker", description: "work", prompt: "do the work" } }],
      usage: parent1,
    },
    { toolCalls: [{ name: "Echo", input: { text: "child" } }], usage: child1 },
    { text: "child done (never sent)" },
    { text: "parent done (never sent)" },
  ];
  const agentsOption = { worker: { description: "does work", prompt: "You are WORKER.", tools: ["Echo"] } };

  it("the subagent's request that would pass the cap is never sent, and the parent ends with error_max_budget_usd", async () => {
    server = await startProviderServer(script());
    const { result, messages } = await run("delegate", {
      ...base(),
      plugins: [systemPrompt(), agents()],
      agents: agentsOption,
      maxBudgetUsd: 0.11,
    });
    expect(server.requests).toHaveLength(2);
    // The subagent's own result (in the parent's stream) and the Agent tool's answer name the budget.
    const agentResult = ofType(messages, "tool_result").find((m) => m.toolName === "Agent")!;
    expect(agentResult.output.isError).toBe(true);
    expect(agentResult.output.content).toContain("error_max_budget_usd");
    // The parent does not carry on: its next request is refused too.
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.result).toContain("maxBudgetUsd (now $0.11");
    expect(result.budget?.spentUsd).toBeCloseTo(cost(parent1) + cost(child1), 12);
    expect(result.budget?.spentTokens).toBe(1050 + 4050);
    // The subagent's refused request is the one recorded.
    expect(result.budget?.refused?.estimateUsd).toBeGreaterThan(0.11 - cost(parent1) - cost(child1));
    expect(result.numTurns).toBe(1);
  });

  it("with room, the same run finishes: all four requests go out and the spend is the tree's", async () => {
    server = await startProviderServer(script());
    const { result } = await run("delegate", {
      ...base(),
      plugins: [systemPrompt(), agents()],
      agents: agentsOption,
      maxBudgetUsd: 1,
    });
    expect(server.requests).toHaveLength(4);
    expect(result.subtype).toBe("success");
    expect(result.budget?.spentUsd).toBeCloseTo(result.totalCostUsd!, 12);
  });
});

describe("parallel subagents", () => {
  it("a request in flight reserves its worst case: the second subagent's first request does not fit beside the first's", async () => {
    // Parent request 1 ($0.0115) starts two subagents at once; each first request's worst case is
    // ~$0.031 (its output bound). The first fits under $0.06; the second would only fit if the
    // first's reservation were forgotten.
    server = await startProviderServer([
      {
        toolCalls: [
          { name: "Agent", input: { subagent_type: "worker", description: "a", prompt: "task a" } },
          { name: "Agent", input: { subagent_type: "worker", description: "b", prompt: "task b" } },
        ],
        usage: { inputTokens: 1000, outputTokens: 50 },
      },
      // The first subagent's request stays in flight (headers, then nothing) until requestTimeoutMs
      // fails it, so the second is checked while it is in flight whatever the timing.
      { fault: "stall-after-headers" },
      { text: "never sent" },
      { text: "never sent" },
    ]);
    const { result, messages } = await run("delegate", {
      ...base(),
      plugins: [systemPrompt(), agents()],
      agents: { worker: { description: "d", prompt: "You are WORKER.", tools: [] } },
      maxBudgetUsd: 0.06,
      requestTimeoutMs: 1000,
    });
    expect(server.requests).toHaveLength(2);
    const outcomes = ofType(messages, "tool_result")
      .filter((m) => m.toolName === "Agent")
      .map((m) => m.output);
    // One was refused beside the other's reservation; the other timed out on the stalled server.
    expect(
      outcomes.filter(
        (o) => o.content.includes("reserved by requests in flight") && o.content.includes("error_max_budget_usd"),
      ),
    ).toHaveLength(1);
    expect(outcomes.filter((o) => o.content.includes("requestTimeoutMs"))).toHaveLength(1);
    expect(result.subtype).toBe("error_max_budget_usd");
  });
});

describe("a request that failed for good", () => {
  it("gives its reservation back (model.error, then the subagent's session.end): the parent's next request still fits", async () => {
    // Parent request 1 ($0.0115); the subagent's request fails (400, not retried); the parent's
    // request 2 (~$0.0105 + $0.03) fits under $0.06 only without the failed call's ~$0.031.
    server = await startProviderServer([
      {
        toolCalls: [{ name: "Agent", input: { subagent_type: "worker", description: "a", prompt: "task a" } }],
        usage: { inputTokens: 1000, outputTokens: 50 },
      },
      { status: 400, message: "bad request" },
      { text: "parent done" },
    ]);
    const { result } = await run("delegate", {
      ...base(),
      plugins: [systemPrompt(), agents()],
      agents: { worker: { description: "d", prompt: "You are WORKER.", tools: [] } },
      maxBudgetUsd: 0.06,
    });
    expect(server.requests).toHaveLength(3);
    expect(result.subtype).toBe("success");
    expect(result.result).toBe("parent done");
  });
});

describe("a subagent model with no known price under maxBudgetUsd", () => {
  it("the subagent does not start (no request of its model is sent); the parent is told why and goes on", async () => {
    server = await startProviderServer([
      { toolCalls: [{ name: "Agent", input: { subagent_type: "pricey", description: "work", prompt: "do it" } }] },
      "parent done",
    ]);
    const { result, messages } = await run("delegate", {
      ...base(),
      plugins: [systemPrompt(), agents()],
      agents: { pricey: { description: "d", prompt: "You are PRICEY.", model: "anthropic:budget-unpriced" } },
      maxBudgetUsd: 1,
    });
    expect(server.requests.map((r) => r.family)).toEqual(["openai-responses", "openai-responses"]);
    const agentResult = ofType(messages, "tool_result").find((m) => m.toolName === "Agent")!;
    expect(agentResult.output.isError).toBe(true);
    expect(agentResult.output.content).toContain("anthropic:budget-unpriced has no known price");
    expect(agentResult.output.content).toContain("modelPricing");
    expect(result.subtype).toBe("success");
  });
});

describe("a compaction summary's spend counts", () => {
  // maxContextTokens 2000 → compaction triggers above 1400 tokens with a 400-token summary
  // (maxTokens 400). Turn 1 reports 1500 input tokens ($0.0153); the summary costs $0.013; the
  // turn after it would carry ~1500 input + 400 output ($0.027): $0.0553 > $0.05. Without the
  // summary's $0.013 it would fit ($0.0423).
  const turn1 = { inputTokens: 1500, outputTokens: 10 };
  const summary = { inputTokens: 1000, outputTokens: 100 };
  const options = () => ({
    ...base(),
    plugins: [compactionSummarize()],
    maxTokens: 400,
    maxContextTokens: 2000,
    compactKeepRecent: 0,
  });
  // A summary longer than what it replaces is not applied, so the history (and its count) stays.
  const script = () => [
    { toolCalls: [{ name: "Echo", input: { text: "one" } }], usage: turn1 },
    { text: "S".repeat(1200), usage: summary },
    { text: "done" },
  ];

  it("the turn after the summary would pass the cap only because of the summary's cost, and is not sent", async () => {
    server = await startProviderServer(script());
    const { result } = await run("work", { ...options(), maxBudgetUsd: 0.05 });
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("summar");
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.budget?.spentUsd).toBeCloseTo(cost(turn1) + cost(summary), 12);
  });

  it("a summary request that would itself pass the cap is not sent either", async () => {
    server = await startProviderServer(script());
    // Turn 1 spends $0.0153; the summary's worst case (~$0.013) does not fit under $0.025.
    const { result } = await run("work", { ...options(), maxBudgetUsd: 0.025 });
    expect(server.requests).toHaveLength(1);
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.budget?.spentUsd).toBeCloseTo(cost(turn1), 12);
  });
});
