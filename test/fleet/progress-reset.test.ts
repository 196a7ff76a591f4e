/**
 * A job's progress (the run's turns and cost so far, which the job's next try adds to its own)
 * through a queue connection reset. Before: the write was fire-and-forget and its failure
 * ignored, so a reset lost it and a takeover would count less than the run spent. Now: a failed
 * write is tried again, and the run waits for its progress before its next tool call or model
 * request. The queue is BullMQ's Postgres backend on a real PostgreSQL; the fault is a real
 * connection reset, injected by a trigger that has the server end the backend writing the first
 * progress (a sequence counts the tries: it is not rolled back with the write).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { z } from "zod";
import { defineTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions from "ubiquity/plugins/sessions";
import { createFleet, startWorker, type Fleet, type FleetWorker } from "../../plugins/fleet/index";
import { progressWriter } from "../../plugins/fleet/progress";
import { postgresMissing, startPostgres, type TestPostgres } from "../helpers/postgres";

const CUT_FIRST_PROGRESS = `
  create sequence public.progress_writes;
  create function public.cut_progress() returns trigger language plpgsql as $$
  begin
    if new.progress->>'turns' = '1' and nextval('public.progress_writes') = 1 then
      perform pg_terminate_backend(pg_backend_pid());
      raise exception 'terminating connection due to administrator command' using errcode = 'admin_shutdown';
    end if;
    return new;
  end $$;
  create trigger cut_progress before update of progress on bullmq.job
    for each row execute function public.cut_progress();`;

describe.skipIf(postgresMissing !== undefined)("fleet: a job's progress through a queue connection reset", () => {
  let server: TestPostgres;
  let dir: string;
  let fleet: Fleet;
  let worker: FleetWorker;
  let admin: pg.Client;
  const log: string[] = [];
  /** What `fleet status` said when the run's tool ran (after its first model response). */
  const seen: { turns: number; costUsd: number | null | undefined }[] = [];
  let jobId = "";

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database();
    dir = mkdtempSync(join(tmpdir(), "ubq-fleet-progress-"));
    fleet = await createFleet({ connection: url, store: join(dir, "sessions"), queueName: "progress" });
    const peek = defineTool({
      name: "Peek",
      description: "Read the job's status.",
      inputSchema: z.object({}),
      execute: async () => {
        const [run] = await fleet.status([jobId]);
        seen.push({ turns: run!.turns, costUsd: run!.costUsd });
        return "peeked";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ id: "p1", toolName: "Peek", input: {} }] }, "done"]);
    worker = await startWorker({
      connection: url,
      store: join(dir, "sessions"),
      queueName: "progress",
      allowCwd: [dir],
      config: { presets: [], plugins: [sessions()], model, tools: [peek] },
      log: (line) => log.push(line),
    });
    // The worker made BullMQ's schema: the fault goes on its jobs table.
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(CUT_FIRST_PROGRESS);
  });
  afterAll(async () => {
    await worker?.close();
    await fleet?.close();
    await admin?.end();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the progress whose write was cut is written again before the run's next tool call", async () => {
    jobId = await fleet.submit({ prompt: "go", cwd: dir });
    const [run] = await fleet.wait([jobId], { timeoutMs: 60_000, intervalMs: 100 });
    expect([run!.state, run!.outcome?.result], JSON.stringify(log)).toEqual(["completed", "done"]);
    // The fault happened: the first write was cut, and written again.
    const { rows } = await admin.query<{ n: string }>("select last_value as n from progress_writes");
    expect(Number(rows[0]!.n), JSON.stringify({ log, seen })).toBeGreaterThanOrEqual(2);
    expect(seen.map((s) => s.turns)).toEqual([1]);
  });
});

describe("the progress writer", () => {
  it("writes one at a time, the newest last; a failed write is tried again, a superseded one is not", async () => {
    const written: number[] = [];
    const waits: (() => void)[] = [];
    let fail = 1;
    let inFlight = 0;
    let most = 0;
    const writer = progressWriter(
      async (p) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await Promise.resolve();
        inFlight--;
        if (p.turns === 1 && fail-- > 0) throw new Error("Connection terminated unexpectedly");
        written.push(p.turns);
      },
      () => {},
      // The backoff waits until the test lets it go: no timer.
      () => new Promise<void>((resolve) => waits.push(resolve)),
    );
    writer.report({ turns: 1, costUsd: 1, worker: "w" });
    // The first write fails and waits to be tried again: two newer reports meanwhile, the last one wins.
    while (waits.length === 0) await Promise.resolve();
    writer.report({ turns: 2, costUsd: 2, worker: "w" });
    writer.report({ turns: 3, costUsd: 3, worker: "w" });
    waits.shift()!();
    await writer.flush();
    expect(written).toEqual([3]);
    expect(most).toBe(1);
    // A write that keeps failing is given up (logged): flush does not hang.
    const lines: string[] = [];
    const failing = progressWriter(
      async () => {
        throw new Error("Connection terminated unexpectedly");
      },
      (line) => lines.push(line),
      async () => {},
    );
    failing.report({ turns: 1, costUsd: 1, worker: "w" });
    await failing.flush();
    expect(lines).toEqual([expect.stringMatching(/progress could not be written .*Connection terminated/)]);
  });
});
