/**
 * The acceptance of the fleet: 3 worker processes, 10 runs of a scripted multi-step model.
 * One worker is SIGKILLed mid-run, another SIGSTOPped mid-run (SIGCONT after its job was taken
 * over). Every run completes once; no completed tool call runs again (the tools count their side
 * effects in files, one line per call); the frozen worker's later writes are refused and it stops
 * that run; the takeover times are printed. Queue: BullMQ on a throw-away Redis; session store: a
 * throw-away PostgreSQL (ubiquity:sessions-postgres).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFleet, type Fleet } from "../../plugins/fleet/index";
import type { TranscriptRecord } from "../../plugins/sessions/index";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";
import { postgresMissing, startPostgres, type TestPostgres } from "../helpers/postgres";
import { startWorkerProcess, type WorkerProcess } from "./helpers";

const missing = redisMissing ?? postgresMissing;
if (missing) console.warn(`test/fleet/takeover skipped: ${missing}`);

const LOCK_MS = 2000;
const STALLED_MS = 500;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);
const countBy = <T>(items: T[]) => items.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<T, number>());

describe.skipIf(missing)("fleet takeover: a killed and a frozen worker lose nothing", () => {
  let redis: TestRedis;
  let postgres: TestPostgres;
  let dir: string;
  let store: string;
  let fleet: Fleet;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "ubq-fleet-"));
    postgres = await startPostgres();
    store = await postgres.database();
    fleet = await createFleet({ connection: redis.url, store });
    for (let i = 0; i < 3; i++) {
      workers.push(
        startWorkerProcess({
          FLEET_QUEUE: redis.url,
          FLEET_STORE: store,
          FLEET_STEPS_FILE: join(dir, "steps"),
          FLEET_PEEKS_FILE: join(dir, "peeks"),
          FLEET_STEPS: "6",
          FLEET_STEP_MS: "150",
          FLEET_LOCK_MS: String(LOCK_MS),
          FLEET_STALLED_MS: String(STALLED_MS),
          FLEET_LOG_MESSAGES: "1",
          FLEET_PRICED: "1",
        }),
      );
    }
    await Promise.all(workers.map((w) => w.waitFor(/ ready /, 60_000)));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await fleet?.close();
    await redis?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("10 runs complete once each, with one worker SIGKILLed and one SIGSTOPped mid-run", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await fleet.submit({ prompt: `do run-${i}`, cwd: dir }));
    const [killed, frozen] = workers as [WorkerProcess, WorkerProcess, WorkerProcess];

    // Each victim is stopped in the middle of a run: after its first side effect of that job.
    const midRun = async (w: WorkerProcess) => {
      const started = await w.waitFor(/ start job \d+/);
      const job = / start job (\d+)/.exec(started)![1]!;
      const deadline = Date.now() + 20_000;
      while (
        !lines(join(dir, "peeks")).some((l) => l.endsWith(` ${w.pid}`) && l.includes(` run-${Number(job) - 1} `)) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return job;
    };
    const killedJob = await midRun(killed);
    const killedAt = Date.now();
    killed.child.kill("SIGKILL");
    const frozenJob = await midRun(frozen);
    const frozenAt = Date.now();
    frozen.child.kill("SIGSTOP");

    // Takeover: another worker resumes each victim's job.
    const others = (victim: WorkerProcess) => workers.filter((w) => w !== victim && w !== killed);
    const resumedBy = async (victim: WorkerProcess, job: string) => {
      // The takeover is recorded: from here on the store refuses the victim's appends.
      const line = await Promise.any(
        others(victim).map((w) => w.waitFor(new RegExp(` took over job ${job}: `), 30_000)),
      );
      return Number(line.split(" ")[0]);
    };
    const killTakeover = (await resumedBy(killed, killedJob)) - killedAt;
    const freezeTakeover = (await resumedBy(frozen, frozenJob)) - frozenAt;
    const contAt = Date.now();
    frozen.child.kill("SIGCONT");
    console.log(
      `fleet takeover: SIGKILL → resumed in ${killTakeover} ms, SIGSTOP → resumed in ${freezeTakeover} ms (lockDuration ${LOCK_MS} ms, stalledInterval ${STALLED_MS} ms)`,
    );

    const runs = await fleet.wait(ids, { timeoutMs: 60_000 });
    // The frozen worker, woken, found its job gone and stopped that run.
    await frozen.waitFor(new RegExp(` lost job ${frozenJob}: `), 15_000);
    // What the frozen worker emitted for that job after it woke: none of it reached the store.
    const emitted = frozen.lines.flatMap((l) => {
      const m = new RegExp(`^(\\d+) \\d+ msg ${frozenJob} (\\w+) (\\S+)$`).exec(l);
      return m ? [{ at: Number(m[1]), type: m[2]!, uuid: m[3]! }] : [];
    });
    const late = emitted.filter((e) => e.at >= contAt);
    // An append still in flight when the worker froze is refused after it wakes, like any later one.
    const early = emitted.filter((e) => e.at < frozenAt - 100);

    expect(runs.map((r) => r.state)).toEqual(ids.map(() => "completed"));
    const failed = runs.filter((r) => r.outcome?.subtype !== "success");
    if (failed.length)
      console.log(JSON.stringify(failed, null, 1), "\n", workers.map((w) => w.lines.join("\n")).join("\n--\n"));
    expect(failed.map((r) => [r.id, r.outcome?.subtype, r.outcome?.result])).toEqual([]);
    expect(runs.find((r) => r.id === killedJob)!.takeovers).toBeGreaterThanOrEqual(1);
    expect(runs.find((r) => r.id === frozenJob)!.takeovers).toBeGreaterThanOrEqual(1);
    // Turns count every worker's: 6 tool calls and the final answer, taken over or not.
    expect(runs.map((r) => r.turns)).toEqual(ids.map(() => 7));
    // Cost counts every worker's too: each model call is $1, and 7 calls make a run (a taken-over
    // run may pay for a call twice); one that was never moved costs exactly $7.
    expect(runs.filter((r) => !r.takeovers).map((r) => r.costUsd)).toEqual(
      runs.filter((r) => !r.takeovers).map(() => 7),
    );
    for (const r of runs.filter((r) => r.takeovers)) expect(r.costUsd, `run ${r.id}`).toBeGreaterThanOrEqual(7);

    const steps = lines(join(dir, "steps")).map((l) => l.split(" ")[0]!);
    const peeks = lines(join(dir, "peeks")).map((l) => l.split(" ")[0]!);
    const stepCounts = countBy(steps);
    const peekCounts = countBy(peeks);
    const storedUuids = async (id: string) => {
      const records: TranscriptRecord[] = [];
      for await (const r of fleet.logs(id)) records.push(r);
      return new Set(records.map((r) => r.uuid));
    };
    const frozenStored = await storedUuids(frozenJob);
    expect(late.map((e) => e.type)).toContain("result");
    expect(late.filter((e) => frozenStored.has(e.uuid))).toEqual([]);
    // ...while what it wrote before it froze is there (persisted as it happened).
    expect(early.length).toBeGreaterThan(0);
    expect(early.filter((e) => e.type !== "system" && !frozenStored.has(e.uuid))).toEqual([]); // system/init is never stored
    console.log(
      `frozen worker: ${early.length} messages stored before SIGSTOP; ${late.length} emitted after SIGCONT (${late.map((e) => e.type).join(", ")}), none of them stored`,
    );

    for (const run of runs) {
      const records: TranscriptRecord[] = [];
      for await (const r of fleet.logs(run.id)) records.push(r);
      const main = records.filter((r) => r.message.agentId === undefined);
      // Exactly one result per session: the run completed once.
      const stored = main.flatMap((r) => (r.message.type === "result" ? [r.message] : []));
      expect(stored.map((m) => [m.subtype, m.result])).toEqual([["success", run.outcome!.result]]);
      expect(run.outcome!.result).toMatch(/^finished run-\d+$/);
      // One unbroken chain: every record's parent is the record before it.
      main.forEach((r, i) => {
        expect(r.parentUuid).toBe(i === 0 ? null : main[i - 1]!.uuid);
      });
      const results = main.flatMap((r) => (r.message.type === "tool_result" ? [r.message] : []));
      // Every call answered exactly once in the store.
      expect(Math.max(...countBy(results.map((m) => m.toolUseId)).values())).toBe(1);
      for (const result of results) {
        if (result.toolName === "Step") {
          // A call that is not read-only ran at most once, whoever ran it, and never again after its result.
          expect(stepCounts.get(result.toolUseId) ?? 0).toBeLessThanOrEqual(1);
          if (!result.output.isError) expect(stepCounts.get(result.toolUseId)).toBe(1);
        } else {
          // A read-only call runs again only when it was in flight (its tool_use stored twice: once per try).
          const tries = main.filter(
            (r) => r.message.type === "tool_use" && r.message.toolUseId === result.toolUseId,
          ).length;
          expect(peekCounts.get(result.toolUseId) ?? 0).toBeLessThanOrEqual(tries);
        }
      }
    }
  }, 120_000);
});
