/**
 * A run resumed from the store after its worker stopped mid-call: the calls whose result was
 * stored are replayed, never run again; the in-flight read-only call runs again; the in-flight
 * call that is not read-only is answered "interrupted, state unknown". The session is made by a
 * real run, then cut after its tool_use records (what a SIGKILL during the calls leaves).
 */
import { describe, expect, it } from "vitest";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineTool } from "../../plugins/_kits/authoring/index";
import { scriptedModel } from "../../src/testing/index";
import defaultPreset from "../../presets/default";
import { SessionStore, isStaleWriterError } from "../../plugins/sessions/index";
import { inFlightCalls } from "../../plugins/fleet/in-flight";
import { interruptedMessage } from "../../plugins/fleet/run-plugin";
import { runJob, takeOver } from "../../plugins/fleet/run-job";
import { jsonlStore } from "../../plugins/fleet/store";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

function tools(dir: string) {
  const input = z.object({ n: z.number() });
  const side =
    (file: string) =>
    async ({ n }: { n: number }, ctx: { toolUseId: string }) => {
      appendFileSync(join(dir, file), `${ctx.toolUseId} ${n}\n`);
      return `${file} ${n} done`;
    };
  return [
    defineTool({
      name: "Peek",
      description: "read-only",
      inputSchema: input,
      isReadOnly: true,
      execute: side("peeks"),
    }),
    defineTool({ name: "Step", description: "a side effect", inputSchema: input, execute: side("steps") }),
  ];
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);

describe("fleet: resuming a session whose worker stopped mid-call", () => {
  it("re-runs only the in-flight read-only call; the other gets an interrupted result; completed calls never run again", async () => {
    const dir = temp();
    const sessions = join(dir, "sessions");
    const model = scriptedModel([
      { toolCalls: [{ id: "done-1", toolName: "Step", input: { n: 1 } }] },
      {
        toolCalls: [
          { id: "peek-2", toolName: "Peek", input: { n: 2 } },
          { id: "step-3", toolName: "Step", input: { n: 3 } },
        ],
      },
      "first worker's answer (never stored)",
    ]);
    const config = {
      presets: [defaultPreset],
      model,
      tools: tools(dir),
      permissionMode: "bypassPermissions",
      marketPricing: false,
    };
    const job = { prompt: "go", cwd: dir, sessionId: "s-1" };
    const context = {
      job,
      jobId: "1",
      attempt: 0,
      config,
      store: jsonlStore(sessions),
      workdir: dir,
      worker: "w1",
      signal: new AbortController().signal,
      progress: () => {},
      allowCwd: [dir],
    };
    await runJob(context);

    // Cut the transcript after the second response's tool_use records: the worker died during those calls.
    const { path, records } = (await new SessionStore({ dir: sessions }).get("s-1"))!;
    const cut = records.findIndex((r) => r.message.type === "tool_result" && r.message.toolUseId === "peek-2");
    writeFileSync(path, `${readFileSync(path, "utf8").split("\n").slice(0, cut).join("\n")}\n`);
    const stored = (await new SessionStore({ dir: sessions }).get("s-1"))!.records;
    expect(inFlightCalls(stored).map((c) => c.toolUseId)).toEqual(["peek-2", "step-3"]);
    const before = { steps: lines(join(dir, "steps")).length, peeks: lines(join(dir, "peeks")).length };

    const second = scriptedModel(["resumed answer"]);
    const outcome = await runJob({ ...context, attempt: 1, worker: "w2", config: { ...config, model: second } });
    expect([outcome.subtype, outcome.result]).toEqual(["success", "resumed answer"]);

    // Step 1 (completed) and Step 3 (in flight, not read-only) never ran again; Peek 2 ran again.
    expect(lines(join(dir, "steps")).length).toBe(before.steps);
    expect(lines(join(dir, "peeks")).length).toBe(before.peeks + 1);
    const tool = second.requests[0]!.prompt.filter((m) => m.role === "tool").flatMap(
      (m) => m.content as { toolCallId: string; output: { type: string; value: string } }[],
    );
    expect(tool.map((p) => [p.toolCallId, p.output.type])).toEqual([
      ["done-1", "text"],
      ["peek-2", "text"],
      ["step-3", "error-text"],
    ]);
    expect(tool[1]!.output.value).toBe("peeks 2 done");
    expect(tool[2]!.output.value).toBe(interruptedMessage({ toolUseId: "step-3", toolName: "Step", input: { n: 3 } }));

    // The store now answers every call once, and holds one result: the resumed run's.
    const after = (await new SessionStore({ dir: sessions }).get("s-1"))!.records;
    const results = after.flatMap((r) => (r.message.type === "tool_result" ? [r.message.toolUseId] : []));
    expect(results).toEqual(["done-1", "peek-2", "step-3"]);
    expect(
      after.filter((r) => r.type === "result").map((r) => r.message.type === "result" && r.message.result),
    ).toEqual(["resumed answer"]);
    expect(after.map((r) => r.parentUuid)).toEqual([null, ...after.slice(0, -1).map((r) => r.uuid)]);
  });

  it("a session whose result is stored is not run again", async () => {
    const dir = temp();
    const sessions = join(dir, "sessions");
    const config = {
      presets: [defaultPreset],
      model: scriptedModel(["only answer"]),
      tools: tools(dir),
      marketPricing: false,
    };
    const context = {
      job: { prompt: "go", cwd: dir, sessionId: "s-2" },
      jobId: "2",
      attempt: 0,
      config,
      store: jsonlStore(sessions),
      workdir: dir,
      worker: "w1",
      signal: new AbortController().signal,
      progress: () => {},
      allowCwd: [dir],
    };
    await runJob(context);
    const again = scriptedModel([]);
    const outcome = await runJob({ ...context, attempt: 1, config: { ...config, model: again } });
    expect([outcome.subtype, outcome.result, again.requests.length]).toEqual(["success", "only answer", 0]);
  });

  it("a takeover makes the store refuse the lost worker's next append at once (before the new run writes anything)", async () => {
    const dir = temp();
    const sessions = join(dir, "sessions");
    const config = {
      presets: [defaultPreset],
      model: scriptedModel([{ toolCalls: [{ id: "c1", toolName: "Peek", input: { n: 1 } }] }, "x"]),
      tools: tools(dir),
      marketPricing: false,
    };
    const store = jsonlStore(sessions);
    const context = {
      job: { prompt: "go", cwd: dir, sessionId: "s-3" },
      jobId: "3",
      attempt: 0,
      config,
      store,
      workdir: dir,
      worker: "w1",
      signal: new AbortController().signal,
      progress: () => {},
      allowCwd: [dir],
    };
    await runJob(context);
    // Make the stored session end mid-run (drop the result), as a lost worker leaves it.
    const { path, records } = (await new SessionStore({ dir: sessions }).get("s-3"))!;
    writeFileSync(path, `${readFileSync(path, "utf8").trim().split("\n").slice(0, -1).join("\n")}\n`);
    const tip = records.at(-2)!;
    expect((await takeOver({ ...context, attempt: 1, worker: "w2" })).resumed).toBe(true);
    // The lost worker still expects `tip` to be last: refused.
    const late = { ...tip, uuid: "late-1", parentUuid: tip.uuid };
    const refused = await store.append(late, path, tip.uuid).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isStaleWriterError(refused)).toBe(true);
    expect((await store.records("s-3")).map((r) => r.uuid)).not.toContain("late-1");
  });

  it("a run whose lease is gone stops before its next tool call runs (result error_lost_lease)", async () => {
    const dir = temp();
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", toolName: "Step", input: { n: 1 } }] },
      { toolCalls: [{ id: "c2", toolName: "Step", input: { n: 2 } }] },
      "x",
    ]);
    const config = {
      presets: [defaultPreset],
      model,
      tools: tools(dir),
      permissionMode: "bypassPermissions",
      marketPricing: false,
    };
    let checks = 0;
    // The lock holds for the first request and the first call, then is another worker's.
    const lease = async () => ++checks <= 2;
    const context = {
      job: { prompt: "go", cwd: dir, sessionId: "s-4" },
      jobId: "4",
      attempt: 0,
      config,
      store: jsonlStore(join(dir, "sessions")),
      workdir: dir,
      worker: "w1",
      signal: new AbortController().signal,
      progress: () => {},
      allowCwd: [dir],
      lease,
    };
    const outcome = await runJob(context);
    expect(outcome.subtype).toBe("error_lost_lease");
    expect(lines(join(dir, "steps")).map((l) => l.split(" ")[0])).toEqual(["c1"]);
  });
});
