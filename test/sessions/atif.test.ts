/**
 * `ubiquity sessions export --format atif`: a stored session (a tool call, a subagent, a final
 * answer) written as Harbor's ATIF trajectory and validated with ajv against the ATIF v1.4
 * schema kept in test/fixtures/atif (its source and licence in the README there), plus what the
 * schema cannot say: step ids in order, every observation tied to a call of its step.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { toAtif, type AtifTrajectory } from "../../plugins/sessions/index";
import { collect, resultOf } from "../helpers/collect";
import { cli, tempDirs } from "./helpers";

const temp = tempDirs();
const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "fixtures", "atif", "atif-v1.4.schema.json"), "utf8"),
) as object;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
// ajv ships no format implementations without ajv-formats: ISO 8601 date-times, checked by Date.
ajv.addFormat(
  "date-time",
  (value: string) =>
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)),
);
const validate = ajv.compile(schema);

/** The schema's verdict, and the rules it cannot express. */
function check(t: AtifTrajectory): void {
  expect(validate(t), JSON.stringify(validate.errors)).toBe(true);
  expect(t.steps.map((s) => s.step_id)).toEqual(t.steps.map((_s, i) => i + 1));
  for (const step of t.steps) {
    const ids = new Set((step.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const r of step.observation?.results ?? []) expect(ids.has(r.source_call_id!)).toBe(true);
  }
}

async function seed() {
  const cwd = temp("ubq-atif-");
  const sessionDir = temp("ubq-atif-sessions-");
  const model = scriptedModel([
    { text: "Looking around.", toolCalls: [{ toolName: "Glob", input: { pattern: "*.md" }, id: "call_glob" }] },
    {
      toolCalls: [
        {
          toolName: "Agent",
          input: { subagent_type: "helper", description: "count files", prompt: "Count the files" },
          id: "call_agent",
        },
      ],
    },
    "There are no files.",
    "Nothing to do: the folder is empty.",
  ]);
  const messages = await collect(
    summon("tidy the docs", {
      model,
      cwd,
      sessionDir,
      permissionMode: "bypassPermissions",
      agents: { helper: { description: "Helps", prompt: "Help out" } },
    }),
  );
  return { sessionDir, cwd, result: resultOf(messages) };
}

describe("sessions export --format atif", () => {
  it("writes a trajectory valid against the ATIF v1.4 schema, with the calls, their results and the subagent", async () => {
    const { sessionDir, result } = await seed();
    const out = await cli(["sessions", "export", result.sessionId, "--session-dir", sessionDir, "--format", "atif"]);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const t = JSON.parse(out.stdout) as AtifTrajectory;
    check(t);
    expect(t).toMatchObject({
      schema_version: "ATIF-v1.4",
      session_id: result.sessionId,
      agent: { name: "ubiquity", model_name: "scripted:scripted" },
    });
    expect(t.steps.map((s) => [s.source, s.message])).toEqual([
      ["user", "tidy the docs"],
      ["agent", "Looking around."],
      ["agent", ""],
      ["agent", "Nothing to do: the folder is empty."],
    ]);
    expect(t.steps[1]!.tool_calls).toEqual([
      { tool_call_id: "call_glob", function_name: "Glob", arguments: { pattern: "*.md" } },
    ]);
    expect(t.steps[1]!.observation!.results).toEqual([{ source_call_id: "call_glob", content: expect.any(String) }]);
    const delegation = t.steps[2]!.observation!.results[0]!;
    expect(delegation.source_call_id).toBe("call_agent");
    expect(delegation.content).toContain("There are no files.");
    const ref = delegation.subagent_trajectory_ref![0]!;
    const sub = (t.extra!.subagent_trajectories as AtifTrajectory[])[0]!;
    check(sub);
    expect(sub.session_id).toBe(ref.session_id);
    // The ref also says where the embedded trajectory is (resolvable by path for v1.6 and v1.7 readers).
    expect(ref.trajectory_path).toBe("#/extra/subagent_trajectories/0");
    expect(sub.steps.map((s) => [s.source, s.message])).toEqual([
      ["user", "Count the files"],
      ["agent", "There are no files."],
    ]);
    expect(t.final_metrics).toMatchObject({
      total_prompt_tokens: result.usage.inputTokens,
      total_completion_tokens: result.usage.outputTokens,
      total_cached_tokens: result.usage.cacheReadTokens,
      total_steps: 4,
    });
    expect(t.extra!.result).toMatchObject({ subtype: "success", is_error: false });
  });

  it("the schema can fail: it refuses what ATIF forbids", () => {
    const bad = toAtif("s", []);
    expect(validate(bad)).toBe(true);
    expect(validate({ ...bad, steps: [{ step_id: 1, source: "user", message: "x", tool_calls: [] }] })).toBe(false);
    expect(validate({ ...bad, steps: [{ step_id: 1, source: "robot", message: "x" }] })).toBe(false);
    expect(validate({ ...bad, agent: { name: "ubiquity" } })).toBe(false);
    expect(validate({ ...bad, surprise: true })).toBe(false);
  });

  it("refuses a format it does not write, and an unknown session, naming the fix", async () => {
    const { sessionDir, result } = await seed();
    const format = await cli([
      "sessions",
      "export",
      result.sessionId,
      "--session-dir",
      sessionDir,
      "--format",
      "parquet",
    ]);
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
      /No stored session with id "00000000-0000-4000-8000-000000000000".*ubiquity sessions list --all/,
    );
  });
});
