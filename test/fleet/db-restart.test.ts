/**
 * The fleet under a database restart (issue 37, failures 1, 3 and 4; builds 1 and 2). A real
 * Redis queue and a real PostgreSQL session store that a run's tool stops (fast shutdown: every
 * connection cut) and starts again only once the worker has seen the outage and paused — after the
 * store's outage bound in this test (1 s) — so runs going on fail their appends and jobs waiting
 * meet an unreachable store. Before:
 * jobs drained into `failed` (one attempt), and runs reported `success` without their result
 * stored. Now: the worker pauses while its store is down, a try whose result the store did not
 * take fails and is tried again after a backoff, resuming the session, and every job completes
 * once with its result stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { z } from "zod";
import { defineTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions, { type TranscriptRecord } from "ubiquity/plugins/sessions";
import sessionsPostgres, { PostgresSessionStore } from "ubiquity/plugins/sessions-postgres";
import { createFleet, startWorker, type Fleet, type FleetWorker } from "../../plugins/fleet/index";
import { finishedResult } from "../../plugins/fleet/in-flight";
import { redisMissing, startRedis } from "../helpers/redis-server";
import { postgresMissing, startPostgres, type TestPostgres } from "../helpers/postgres";

const missing = redisMissing ?? postgresMissing;
const textOf = (content: unknown) =>
  typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((p) => (p.type === "text" ? p.text : "")).join("\n");

describe.skipIf(missing !== undefined)("fleet: a PostgreSQL restart under running and waiting jobs", () => {
  let redis: { url: string; stop(): Promise<void> };
  let server: TestPostgres;
  let url: string;
  let dir: string;
  let fleet: Fleet;
  let worker: FleetWorker;
  const log: string[] = [];
  let restarted = false;

  beforeAll(async () => {
    redis = await startRedis();
    server = await startPostgres();
    url = await server.database();
    dir = mkdtempSync(join(tmpdir(), "ubq-fleet-restart-"));
    // One Step per run, then the answer; the first Step of run-0 restarts the database.
    const model = scriptedModel(({ request }) => {
      const tag =
        /run-\d+/.exec(
          request.prompt
            .filter((m) => m.role === "user")
            .map((m) => textOf(m.content))
            .join("\n"),
        )?.[0] ?? "run-?";
      if (request.prompt.some((m) => m.role === "tool")) return `finished ${tag}`;
      return { toolCalls: [{ id: `${tag}-${randomUUID().slice(0, 8)}`, toolName: "Step", input: { run: tag } }] };
    });
    const step = defineTool({
      name: "Step",
      description: "A side effect, counted.",
      inputSchema: z.object({ run: z.string() }),
      execute: async ({ run }) => {
        appendFileSync(join(dir, "steps"), `${run}\n`);
        if (run === "run-0" && !restarted) {
          restarted = true;
          await server.down();
          // Back only once the worker has seen the outage and paused (no race with a timer).
          void (async () => {
            while (!log.some((l) => /cannot be reached: taking no new jobs/.test(l)))
              await new Promise((r) => setTimeout(r, 50));
            await server.up();
          })();
        }
        return `${run} done`;
      },
    });
    fleet = await createFleet({ connection: redis.url, store: url, queueName: "restart", backoffMs: 500 });
    worker = await startWorker({
      connection: redis.url,
      store: url,
      storeOutageTimeoutMs: 1000,
      queueName: "restart",
      concurrency: 2,
      lockDuration: 10_000,
      allowCwd: [tmpdir()],
      config: { presets: [], plugins: [sessions(), sessionsPostgres()], model, tools: [step] },
      log: (line) => log.push(line),
    });
  });
  afterAll(async () => {
    await worker?.close();
    await fleet?.close();
    await server?.stop();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("every job completes once with its result stored; no step runs twice; the worker paused while the store was down", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await fleet.submit({ prompt: `do run-${i}`, cwd: dir }));
    const runs = await fleet.wait(ids, { timeoutMs: 90_000, intervalMs: 200 });
    expect(
      runs.map((r) => [r.state, r.outcome?.subtype]),
      JSON.stringify({ runs, log }),
    ).toEqual(ids.map(() => ["completed", "success"]));
    expect(runs.map((r) => r.outcome?.result)).toEqual(ids.map((_, i) => `finished run-${i}`));
    expect(restarted).toBe(true);
    // The store holds each run's end: its last record is the result the job completed with.
    const store = new PostgresSessionStore(url);
    try {
      for (const run of runs) {
        const stored = await store.get(run.sessionId);
        expect(finishedResult(stored?.records ?? [])?.result, `session of ${run.label}`).toBe(run.outcome?.result);
      }
    } finally {
      await store.close();
    }
    const steps = readFileSync(join(dir, "steps"), "utf8").trim().split("\n");
    expect(new Set(steps).size).toBe(steps.length);
    expect(log.some((l) => /the session store cannot be reached: taking no new jobs/.test(l))).toBe(true);
    expect(log.some((l) => /the session store is back: taking jobs again/.test(l))).toBe(true);
  }, 120_000);

  it("a job's fleet-job note is stored before its session's first record", async () => {
    const [id] = [await fleet.submit({ prompt: "do run-20", cwd: dir })];
    const [run] = await fleet.wait([id!], { timeoutMs: 30_000, intervalMs: 100 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ kind: string; body: { kind?: string; data?: { jobId?: string } } }>(
        "select kind, body from ubiquity_records where session_id = $1 order by seq",
        [run!.sessionId],
      );
      expect(rows[0]).toMatchObject({ kind: "note", body: { kind: "fleet-job", data: { jobId: id } } });
      expect(rows.slice(1).map((r) => r.kind)).not.toContain("note");
    } finally {
      await client.end();
    }
  });
});

describe("fleet: an aborted try's result", () => {
  const record = (message: Record<string, unknown>): TranscriptRecord => ({
    uuid: String(message.uuid),
    parentUuid: null,
    sessionId: "s",
    type: message.type as TranscriptRecord["type"],
    timestamp: "",
    cwd: "/",
    message: message as never,
  });
  it("is not the run's end: a worker that lost its lock and stored 'Run aborted.' leaves the run for the next worker to resume", () => {
    const prompt = record({ type: "user", uuid: "u1", sessionId: "s", text: "go" });
    const aborted = record({
      type: "result",
      uuid: "r1",
      sessionId: "s",
      subtype: "error_during_execution",
      isError: true,
      result: "Run aborted.",
    });
    const ended = record({
      type: "result",
      uuid: "r2",
      sessionId: "s",
      subtype: "error_max_turns",
      isError: true,
      result: "Reached the maximum number of turns (3)",
    });
    expect(finishedResult([prompt, aborted])).toBeUndefined();
    // The worker aborts with a reason, which the kernel's result names.
    const lockLost = record({ ...(aborted.message as object), uuid: "r3", result: "Run aborted: lock lost" });
    expect(finishedResult([prompt, lockLost])).toBeUndefined();
    expect(finishedResult([prompt, ended])?.subtype).toBe("error_max_turns");
  });
});
