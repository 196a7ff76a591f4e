import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFleet, type Fleet } from "../../plugins/fleet/index";
import { redisMissing, startRedis } from "../helpers/redis-server";
import { postgresMissing, startPostgres } from "../helpers/postgres";
import { startWorkerProcess, type WorkerProcess } from "./helpers";

/** The queue on one engine: a throw-away Redis, or BullMQ's Postgres backend on a throw-away PostgreSQL. */
const engines = [
  {
    name: "BullMQ on Redis",
    missing: redisMissing,
    start: async () => {
      const r = await startRedis();
      return { url: r.url, stop: r.stop };
    },
  },
  {
    name: "BullMQ on its Postgres backend",
    missing: postgresMissing,
    start: async () => {
      const p = await startPostgres();
      return { url: p.connectionString, stop: p.stop };
    },
  },
];
if (redisMissing) console.warn(`test/fleet skipped on Redis: ${redisMissing}`);
if (postgresMissing) console.warn(`test/fleet skipped on Postgres: ${postgresMissing}`);

describe.each(engines)("fleet: submit, status, logs ($name)", ({ missing, start }) => {
  let queue: { url: string; stop(): Promise<void> };
  let dir: string;
  let fleet: Fleet;
  let worker: WorkerProcess;
  beforeAll(async () => {
    if (missing) return;
    queue = await start();
    dir = mkdtempSync(join(tmpdir(), "ubq-fleet-"));
    fleet = await createFleet({ connection: queue.url, store: join(dir, "sessions") });
    worker = startWorkerProcess({
      FLEET_QUEUE: queue.url,
      FLEET_STORE: join(dir, "sessions"),
      FLEET_STEPS_FILE: join(dir, "steps"),
      FLEET_PEEKS_FILE: join(dir, "peeks"),
      FLEET_STEPS: "3",
      FLEET_STEP_MS: "10",
    });
    await worker.waitFor(/ ready /, 60_000);
  });
  afterAll(async () => {
    await worker?.stop();
    await fleet?.close();
    await queue?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(missing)(
    "runs queued jobs to their result; status has turns, logs has the session's messages",
    async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(await fleet.submit({ prompt: `do run-${i}`, cwd: dir }));
      const runs = await fleet.wait(ids, { timeoutMs: 30_000 });
      expect(runs.map((r) => [r.state, r.outcome?.subtype, r.turns])).toEqual(
        ids.map(() => ["completed", "success", 4]),
      );
      expect(runs.map((r) => r.outcome?.result)).toEqual(["finished run-0", "finished run-1", "finished run-2"]);
      const steps = readFileSync(join(dir, "steps"), "utf8").trim().split("\n");
      expect(steps).toHaveLength(3);
      const records = [];
      for await (const record of fleet.logs(ids[1]!)) records.push(record);
      expect(records.map((r) => r.type)).toEqual([
        "user",
        "assistant",
        "tool_use",
        "tool_result",
        "assistant",
        "tool_use",
        "tool_result",
        "assistant",
        "tool_use",
        "tool_result",
        "assistant",
        "result",
      ]);
      expect(records[0]!.sessionId).toBe(runs[1]!.sessionId);
    },
  );

  it.skipIf(missing)("logs --follow streams a run from before it starts to its result, then ends", async () => {
    const id = await fleet.submit({ prompt: "do run-9", cwd: dir });
    const types: string[] = [];
    for await (const record of fleet.logs(id, { follow: true, intervalMs: 50 })) types.push(record.type);
    expect(types.at(0)).toBe("user");
    expect(types.at(-1)).toBe("result");
    expect(types.filter((t) => t === "tool_result")).toHaveLength(3);
  });
});
