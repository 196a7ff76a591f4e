/**
 * `ubiquity sessions export --format atif`: stored sessions (a plain exchange; tool calls with
 * results, one failing; a subagent, and a subagent's subagent; user images; tokens and cost)
 * written as Harbor's ATIF and checked as Harbor's Pydantic models check it (see
 * atif-validate.ts and test/fixtures/atif/README.md). Where Python, pydantic 2 and Harbor's
 * models are importable, the same exports also go through the models themselves.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type SummonOptions, type UserInput } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import type { AtifContentPart, AtifTrajectory, TranscriptRecord } from "../../plugins/sessions/index";
import { AtifExportError, toAtif } from "../../plugins/sessions/atif";
import { collect, resultOf } from "../helpers/collect";
import { png } from "../images/fixtures";
import { cli, tempDirs } from "./helpers";
import { harborErrors, schemaPath } from "./atif-validate";

const temp = tempDirs();
const image = png(2, 2).toString("base64");

/** Run a session to its end and export it through the CLI. */
async function exported(prompt: string | AsyncIterable<UserInput>, script: Script, extra: Partial<SummonOptions> = {}) {
  const cwd = temp("ubq-atif-");
  const sessionDir = temp("ubq-atif-sessions-");
  const model = scriptedModel(script);
  const result = resultOf(
    await collect(summon(prompt, { model, cwd, sessionDir, permissionMode: "bypassPermissions", ...extra })),
  );
  const out = await cli(["sessions", "export", result.sessionId, "--session-dir", sessionDir, "--format", "atif"]);
  expect(out.stderr).toBe("");
  expect(out.code).toBe(0);
  const t = JSON.parse(out.stdout) as AtifTrajectory;
  expect(harborErrors(t)).toEqual([]);
  return { t, result };
}

const helper = { helper: { description: "Helps", prompt: "Help out" } };

/** Each scenario runs once, for whichever test asks first (the check through Harbor's models asks for all). */
function once<T>(run: () => Promise<T>): () => Promise<T> {
  let done: Promise<T> | undefined;
  return () => (done ??= run());
}

const plain = once(() => exported("say hi", ["hi"]));
const withTools = once(() =>
  exported(
    "look around",
    [
      {
        text: "Looking.",
        toolCalls: [
          { toolName: "Glob", input: { pattern: "*.md" }, id: "call_glob" },
          { toolName: "Read", input: { file_path: "missing.txt" }, id: "call_read" },
        ],
        usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 600 },
      },
      { text: "Nothing there.", usage: { inputTokens: 1200, outputTokens: 10 } },
    ],
    { modelPricing: { scripted: { input: 10, output: 20, cacheRead: 1 } } },
  ),
);
const delegated = once(() =>
  exported(
    "tidy the docs",
    [
      {
        toolCalls: [
          {
            toolName: "Agent",
            input: { subagent_type: "helper", description: "count", prompt: "Count the files" },
            id: "call_agent",
          },
        ],
      },
      "There are no files.",
      "Nothing to do: the folder is empty.",
    ],
    { agents: helper },
  ),
);
const withImages = once(() => {
  async function* input(): AsyncIterable<UserInput> {
    yield {
      type: "user",
      text: "what are these?",
      content: [
        { type: "text", text: "what are these?" },
        { type: "image", image, mediaType: "image/png" },
        { type: "image", image: "https://example.com/cat.webp", mediaType: "image/webp" },
        { type: "image", image, mediaType: "image/bmp" },
      ],
    };
  }
  return exported(input(), ["two squares"], {
    modelCapabilities: { "scripted:scripted": { images: true } },
  });
});
const resumed = once(async () => {
  const cwd = temp("ubq-atif-");
  const sessionDir = temp("ubq-atif-sessions-");
  const pricing = { modelPricing: { scripted: { input: 10, output: 20 } } };
  const run = async (
    prompt: string,
    text: string,
    usage: { inputTokens: number; outputTokens: number },
    resume?: string,
  ) =>
    resultOf(
      await collect(
        summon(prompt, {
          model: scriptedModel([{ text, usage }]),
          cwd,
          sessionDir,
          ...pricing,
          ...(resume ? { resume } : {}),
        }),
      ),
    );
  const first = await run("one", "first", { inputTokens: 100, outputTokens: 10 });
  const second = await run("two", "second", { inputTokens: 300, outputTokens: 30 }, first.sessionId);
  const out = await cli(["sessions", "export", first.sessionId, "--session-dir", sessionDir]);
  expect(out.code, out.stderr).toBe(0);
  const t = JSON.parse(out.stdout) as AtifTrajectory;
  expect(harborErrors(t)).toEqual([]);
  return { t, first, second };
});

describe("sessions export --format atif", () => {
  it("a plain exchange: one user step, one agent step, valid ATIF-v1.7", async () => {
    const { t, result } = await plain();
    expect(t).toMatchObject({
      schema_version: "ATIF-v1.7",
      session_id: result.sessionId,
      trajectory_id: result.sessionId,
      agent: { name: "ubiquity", model_name: "scripted:scripted" },
    });
    expect(t.steps).toMatchObject([
      { step_id: 1, source: "user", message: "say hi" },
      { step_id: 2, source: "agent", message: "hi", model_name: "scripted:scripted", llm_call_count: 1 },
    ]);
    expect(t.subagent_trajectories).toBeUndefined();
  });

  it("tool calls with their results, a failed one marked, and the run's tokens and cost", async () => {
    const { t, result } = await withTools();
    const step = t.steps[1]!;
    expect(step.tool_calls).toEqual([
      { tool_call_id: "call_glob", function_name: "Glob", arguments: { pattern: "*.md" } },
      { tool_call_id: "call_read", function_name: "Read", arguments: { file_path: "missing.txt" } },
    ]);
    const [glob, read] = step.observation!.results;
    expect(glob).toEqual({ source_call_id: "call_glob", content: expect.any(String) });
    expect(read).toMatchObject({ source_call_id: "call_read", extra: { is_error: true } });
    expect(step.extra).toMatchObject({ stop_reason: "tool_use", failed_tool_calls: ["call_read"] });
    // Each agent step carries its own request's tokens; the steps add up to final_metrics.
    expect(step.metrics).toEqual({ prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 600 });
    expect(t.steps[2]!.metrics).toEqual({ prompt_tokens: 1200, completion_tokens: 10, cached_tokens: 0 });
    expect(result.totalCostUsd).not.toBeNull();
    expect(t.final_metrics).toEqual({
      total_prompt_tokens: 2200,
      total_completion_tokens: 60,
      total_cached_tokens: 600,
      total_cost_usd: result.totalCostUsd,
      total_steps: 3,
      extra: expect.objectContaining({ requests: 2, tool_calls: 2 }),
    });
  });

  it("a resumed session: every run's steps, and final_metrics the sum of the runs' totals", async () => {
    const { t, first, second } = await resumed();
    expect(second.sessionId).toBe(first.sessionId);
    expect(t.steps.map((s) => s.message)).toEqual(["one", "first", "two", "second"]);
    expect(t.final_metrics).toMatchObject({
      total_prompt_tokens: 400,
      total_completion_tokens: 40,
      total_cost_usd: first.totalCostUsd! + second.totalCostUsd!,
      total_steps: 4,
      extra: { runs: 2, requests: 2 },
    });
  });

  it("a subagent: its trajectory embedded under subagent_trajectories, referenced by trajectory_id", async () => {
    const { t, result } = await delegated();
    const delegation = t.steps[1]!.observation!.results[0]!;
    expect(delegation.source_call_id).toBe("call_agent");
    expect(delegation.content).toContain("There are no files.");
    const [ref] = delegation.subagent_trajectory_ref!;
    const [sub] = t.subagent_trajectories!;
    expect(ref!.trajectory_id).toBe(sub!.trajectory_id);
    expect(ref!.trajectory_path).toBeUndefined();
    expect(sub).toMatchObject({ schema_version: "ATIF-v1.7", session_id: result.sessionId });
    expect(sub!.trajectory_id).not.toBe(t.trajectory_id);
    expect(sub!.steps.map((s) => [s.source, s.message])).toEqual([
      ["user", "Count the files"],
      ["agent", "There are no files."],
    ]);
    expect(t.extra).not.toHaveProperty("subagent_trajectories");
  });

  it("a user's images: the message as content parts, each image inline or by URL", async () => {
    const { t } = await withImages();
    // The parts as the model got them (the kernel's own text part ahead of the user's, as stored).
    const parts = t.steps[0]!.message as AtifContentPart[];
    expect(parts[0]).toEqual({ type: "text", text: "what are these?" });
    expect(parts.filter((p) => p.type === "image")).toEqual([
      { type: "image", source: { media_type: "image/png", path: `data:image/png;base64,${image}` } },
      { type: "image", source: { media_type: "image/webp", path: "https://example.com/cat.webp" } },
    ]);
    expect(parts.at(-1)).toEqual({ type: "text", text: expect.stringContaining("image (image/bmp) not exported") });
  });

  it("refuses a format it does not write, and an unknown session, naming the fix", async () => {
    const sessionDir = temp("ubq-atif-sessions-");
    const format = await cli(["sessions", "export", "x", "--session-dir", sessionDir, "--format", "parquet"]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("--format parquet: sessions export writes atif");
    const missing = await cli([
      "sessions",
      "export",
      "00000000-0000-4000-8000-000000000000",
      "--session-dir",
      sessionDir,
    ]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(
      /No stored session with id "00000000-0000-4000-8000-000000000000".*sessions list --all/,
    );
  });
});

/** A document to break on purpose, one field at a time. */
// biome-ignore lint/suspicious/noExplicitAny: the mutations below reach anywhere in the document
type Loose = Record<string, any>;

/** Records of a session whose subagent started a subagent of its own. */
function nestedRecords(): TranscriptRecord[] {
  const at = "2026-01-01T00:00:00.000Z";
  const base = { uuid: "u", sessionId: "s" };
  const messages = [
    { ...base, type: "user", text: "go" },
    {
      ...base,
      type: "assistant",
      text: "",
      model: "m",
      stopReason: "tool_use",
      content: [{ type: "tool_call", toolUseId: "a1", toolName: "Agent", input: {} }],
    },
    { ...base, agentId: "A", parentToolUseId: "a1", type: "user", text: "outer" },
    {
      ...base,
      agentId: "A",
      parentToolUseId: "a1",
      type: "assistant",
      text: "",
      model: "m",
      stopReason: "tool_use",
      content: [{ type: "tool_call", toolUseId: "b1", toolName: "Agent", input: {} }],
    },
    { ...base, agentId: "B", parentToolUseId: "b1", type: "user", text: "inner" },
    {
      ...base,
      agentId: "B",
      parentToolUseId: "b1",
      type: "assistant",
      text: "deep",
      model: "m",
      stopReason: "end_turn",
      content: [],
    },
    {
      ...base,
      agentId: "A",
      parentToolUseId: "a1",
      type: "assistant",
      text: "outer done",
      model: "m",
      stopReason: "end_turn",
      content: [],
    },
    { ...base, type: "assistant", text: "done", model: "m", stopReason: "end_turn", content: [] },
  ];
  return messages.map((message, i) => ({
    uuid: `r${i}`,
    parentUuid: null,
    sessionId: "s",
    type: message.type as TranscriptRecord["type"],
    timestamp: at,
    cwd: "/tmp",
    message: message as unknown as TranscriptRecord["message"],
  }));
}

/** A session that was compacted once, with the history the model kept. */
function compacted(): AtifTrajectory {
  const records = nestedRecords().slice(0, 2);
  const at = "2026-01-01T00:00:01.000Z";
  const history = [
    { role: "user", content: "Summary of the conversation so far: the user said go." },
    { role: "assistant", content: [{ type: "text", text: "Understood." }] },
  ];
  records.push({
    uuid: "c",
    parentUuid: null,
    sessionId: "s",
    type: "system",
    timestamp: at,
    cwd: "/tmp",
    message: { type: "system", subtype: "compact_boundary", tokensBefore: 900, tokensAfter: 120, trigger: "auto" },
    history,
  } as unknown as TranscriptRecord);
  const t = toAtif("s", records, { agentVersion: "1" });
  expect(harborErrors(t)).toEqual([]);
  return t;
}

describe("toAtif", () => {
  it("embeds a subagent's subagent in the trajectory of the subagent that started it", () => {
    const t = toAtif("s", nestedRecords(), { agentVersion: "1" });
    expect(harborErrors(t)).toEqual([]);
    const [outer] = t.subagent_trajectories!;
    expect(outer!.trajectory_id).toBe("s:A");
    expect(outer!.subagent_trajectories!.map((s) => s.trajectory_id)).toEqual(["s:B"]);
    expect(outer!.steps[1]!.observation!.results[0]!.subagent_trajectory_ref![0]!.trajectory_id).toBe("s:B");
  });

  it("a compaction: a system step whose observation is the context the model kept (ATIF's replace boundary)", () => {
    const t = compacted();
    const step = t.steps.at(-1)!;
    expect(step).toMatchObject({
      source: "system",
      message: "The conversation was compacted from 900 to 120 tokens (auto).",
      extra: { context_management: { type: "compaction", boundary: "replace" }, tokens_before: 900 },
    });
    expect(step.observation!.results[0]!.content).toBe(
      "[user]\nSummary of the conversation so far: the user said go.\n\n[assistant]\nUnderstood.",
    );
  });

  it("keeps the context placed ahead of a prompt beside it, and leaves out a prompt that never reached the model", () => {
    const records = nestedRecords();
    records[0]!.context = ["remember the milk"];
    records.push({ ...records[0]!, uuid: "blocked", context: undefined, blocked: "not today" });
    const t = toAtif("s", records, { agentVersion: "1" });
    expect(harborErrors(t)).toEqual([]);
    expect(t.steps[0]).toMatchObject({ source: "user", message: "go", extra: { context: ["remember the milk"] } });
    expect(t.steps).toHaveLength(3);
  });

  it("refuses a session with no step, as ATIF needs one", () => {
    expect(() => toAtif("s", [])).toThrow(AtifExportError);
    expect(() => toAtif("s", [])).toThrow(/no step to export/);
  });
});

describe("the validator refuses what Harbor's models refuse", () => {
  const valid = () => toAtif("s", nestedRecords(), { agentVersion: "1" }) as unknown as Loose;

  it.each<[string, (t: Loose) => void]>([
    ["an unknown root field (extra=forbid)", (t) => (t.surprise = true)],
    ["an unknown step field", (t) => (t.steps[0].mood = "good")],
    ["a version Harbor does not know", (t) => (t.schema_version = "ATIF-v2.0")],
    ["an agent without a version", (t) => delete t.agent.version],
    ["no steps", (t) => (t.steps = [])],
    ["an unknown source", (t) => (t.steps[0].source = "robot")],
    ["a step id out of order", (t) => (t.steps[1].step_id = 5)],
    ["tool calls on a user step", (t) => (t.steps[0].tool_calls = [])],
    ["a model name on a user step", (t) => (t.steps[0].model_name = "m")],
    ["a bad timestamp", (t) => (t.steps[0].timestamp = "yesterday")],
    ["a result naming no call of its step", (t) => (t.steps[1].observation.results[0].source_call_id = "zz")],
    ["an embedded subagent without trajectory_id", (t) => delete t.subagent_trajectories[0].trajectory_id],
    [
      "a ref to no embedded trajectory",
      (t) => (t.steps[1].observation.results[0].subagent_trajectory_ref[0].trajectory_id = "nope"),
    ],
    [
      "an image part carrying text",
      (t) => (t.steps[0].message = [{ type: "image", text: "x", source: { media_type: "image/png", path: "a.png" } }]),
    ],
    [
      "an image type ATIF does not list",
      (t) => (t.steps[0].message = [{ type: "image", source: { media_type: "image/bmp", path: "a.bmp" } }]),
    ],
  ])("%s", (_name, mutate) => {
    const t = valid();
    expect(harborErrors(t)).toEqual([]);
    mutate(t);
    expect(harborErrors(t)).not.toEqual([]);
  });
});

// Harbor's own models, when this machine can import them (HARBOR_PYTHONPATH may point at a Harbor checkout's src).
const python = { ...process.env, PYTHONPATH: process.env.HARBOR_PYTHONPATH ?? process.env.PYTHONPATH ?? "" };
const harborImportable =
  spawnSync("python3", ["-c", "import harbor.models.trajectories"], { env: python, stdio: "ignore" }).status === 0;
const script = join(import.meta.dirname, "..", "fixtures", "atif", "harbor_models.py");

describe.skipIf(!harborImportable)("Harbor's Pydantic models themselves", () => {
  it("accept every export above and refuse a broken one; the committed schema is theirs", async () => {
    const dir = temp("ubq-atif-py-");
    const documents = [
      ...(await Promise.all([plain(), withTools(), resumed(), delegated(), withImages()])).map((e) => e.t),
      compacted(),
      toAtif("s", nestedRecords(), { agentVersion: "1" }),
    ];
    const files = documents.map((_t, i) => join(dir, `export-${i}.json`));
    for (const [i, t] of documents.entries()) writeFileSync(files[i]!, JSON.stringify(t));
    const broken = toAtif("s", nestedRecords(), { agentVersion: "1" }) as unknown as Loose;
    delete broken.subagent_trajectories[0].trajectory_id;
    const brokenFile = join(dir, "broken.json");
    writeFileSync(brokenFile, JSON.stringify(broken));
    const run = spawnSync("python3", [script, ...files, brokenFile], { env: python, encoding: "utf8" });
    for (const file of files) expect(run.stdout).toContain(`valid ${file}\n`);
    expect(run.stdout).toMatch(new RegExp(`invalid ${brokenFile}: .*trajectory_id is required`));
    expect(run.status).toBe(1);
    const generated = JSON.parse(execFileSync("python3", [script, "--schema"], { env: python, encoding: "utf8" }));
    expect(generated).toEqual(JSON.parse(readFileSync(schemaPath, "utf8")));
  });
});
