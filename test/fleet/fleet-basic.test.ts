import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFleet, type Fleet } from "../../plugins/fleet/index";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";
import { startWorkerProcess, type WorkerProcess } from "./helpers";

const missing = redisMissing;
if (missing) console.warn(`test/fleet skipped: ${missing}`);

describe.skipIf(missing)("fleet: submit, status, logs", () => {
  let redis: TestRedis;
  let dir: string;
  let fleet: Fleet;
  let worker: WorkerProcess;
  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "ubq-fleet-"));
    fleet = await createFleet({ connection: redis.url, store: join(dir, "sessions") });
    worker = startWorkerProcess({
      FLEET_QUEUE: redis.url,
      FLEET_STORE: join(dir, "sessions"),
      FLEET_STEPS_FILE: join(dir, "steps"),
      FLEET_PEEKS_FILE: join(dir, "peeks"),
      FLEET_STEPS: "3",
      FLEET_STEP_MS: "10",
    });
    await worker.waitFor(/ready/);
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await fleet?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs queued jobs to their result; status has turns, logs has the session's messages", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await fleet.submit({ prompt: `do run-${i}`, cwd: dir }));
    const runs = await fleet.wait(ids, { timeoutMs: 30_000 });
    expect(runs.map((r) => [r.state, r.outcome?.subtype, r.turns])).toEqual(ids.map(() => ["completed", "success", 4]));
    expect(runs.map((r) => r.outcome?.result)).toEqual(["finished run-0", "finished run-1", "finished run-2"]);
    const steps = readFileSync(join(dir, "steps"), "utf8").trim().split("\n");
    expect(steps).toHaveLength(3);
    const records = [];
    for await (const record of fleet.logs(ids[1]!)) records.push(record);
    expect(records.map((r) => r.type)).toEqual(["user", "assistant", "tool_use", "tool_result", "assistant", "tool_use", "tool_result", "assistant", "tool_use", "tool_result", "assistant", "result"]);
    expect(records[0]!.sessionId).toBe(runs[1]!.sessionId);
  }, 60_000);
});
