/**
 * The acceptance of the fleet: 3 worker processes, 10 runs of a scripted multi-step model.
 * One worker is SIGKILLed mid-run, another SIGSTOPped mid-run (SIGCONT after its job was taken
 * over). Every run completes once; no completed tool call runs again (the tools count their side
 * effects in files, one line per call); the frozen worker's later writes are refused and it stops
 * that run; the takeover times are printed. Queue: BullMQ on a throw-away Redis; session store: a
 * throw-away PostgreSQL (ubiquity:sessions-postgres).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
          // A victim is signalled while it holds mid-run (FLEET_HOLD_DIR), so no step needs to be
          // long enough for the test to catch it (500 ms steps still lost that race under load).
          FLEET_STEP_MS: "50",
          FLEET_HOLD_DIR: dir,
          FLEET_LOCK_MS: String(LOCK_MS),
          FLEET_STALLED_MS: String(STALLED_MS),
          FLEET_LOG_MESSAGES: "1",
          FLEET_PRICED: "1",
        }),
      );
    }
    await Promise.all(workers.map((w) => w.waitFor(/ ready /, 60_000)));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await fleet?.close();
    await redis?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("10 runs complete once each, with one worker SIGKILLed and one SIGSTOPped mid-run", async () => {
    const [killed, frozen] = workers as [WorkerProcess, WorkerProcess, WorkerProcess];
    // The victims stop after a side effect of their first job and wait there (see worker-script.ts):
    // each signal lands mid-run, however late this process gets to send it.
    const hold = (w: WorkerProcess) => writeFileSync(join(dir, `hold-${w.pid}`), "");
    const release = (w: WorkerProcess) => rmSync(join(dir, `hold-${w.pid}`), { force: true });
    hold(killed);
    hold(frozen);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await fleet.submit({ prompt: `do run-${i}`, cwd: dir }));

    // Each victim is stopped in the middle of a run: it holds after a side effect of a job (one not
    // in `skip`), and waits there until released; its held-<pid> file names the run (job = run + 1).
    const midRun = async (w: WorkerProcess, skip: ReadonlySet<string> = new Set()) => {
      const held = join(dir, `held-${w.pid}`);
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
        const run = existsSync(held) ? /^run-(\d+) /.exec(readFileSync(held, "utf8")) : null;
        const job = run ? String(Number(run[1]) + 1) : undefined;
        if (job !== undefined && !skip.has(job)) return job;
      }
      throw new Error(`worker ${w.pid} never held mid-run:\n${w.lines.join("\n")}`);
    };
    const killedJob = await midRun(killed);
    const killedAt = Date.now();
    killed.child.kill("SIGKILL");
    release(killed);

    // Takeover: another worker resumes each victim's job.
    const others = (victim: WorkerProcess) => workers.filter((w) => w !== victim && w !== killed);
    const resumedBy = async (victim: WorkerProcess, job: string) => {
      // The takeover is recorded: from here on the store refuses the victim's appends.
      const line = await Promise.any(
        others(victim).map((w) => w.waitFor(new RegExp(` took over job ${job}: `), 60_000)),
      );
      return Number(line.split(" ")[0]);
    };
    const killTakeover = (await resumedBy(killed, killedJob)) - killedAt;

    // Freeze, wait for the takeover, wake. On a loaded machine a worker can miss its lock renewal
    // and lose its job before the SIGSTOP lands; it then ends that run itself, before the freeze,
    // and the try tests no frozen worker: freeze it again on its next job.
    // The messages of the frozen worker's try of `job`, from its last start or resume of the job
    // before the freeze to the first "lost" line after that (undefined until that line is read).
    // Under load a job can come back to the same worker later: that try's messages are its own.
    const at = (line: string) => Number(line.split(" ")[0]);
    const frozenTry = (job: string) => {
      const from = frozen.lines.findLastIndex(
        (l) => / (?:start|resume) job (\d+) /.exec(l)?.[1] === job && at(l) < frozenAt,
      );
      const to = frozen.lines.findIndex((l, i) => i > from && l.includes(` lost job ${job}: `));
      if (to < 0) return undefined;
      const messages = frozen.lines.slice(from + 1, to).flatMap((l) => {
        const m = new RegExp(`^(\\d+) \\d+ msg ${job} (\\w+) (\\S+)$`).exec(l);
        return m ? [{ at: Number(m[1]), type: m[2]!, uuid: m[3]! }] : [];
      });
      return { lost: frozen.lines[to]!, messages };
    };
    const skip = new Set<string>();
    let frozenJob: string;
    let frozenAt: number;
    let freezeTakeover: number;
    let contAt: number;
    for (;;) {
      hold(frozen);
      frozenJob = await midRun(frozen, skip);
      frozenAt = Date.now();
      frozen.child.kill("SIGSTOP");
      freezeTakeover = (await resumedBy(frozen, frozenJob)) - frozenAt;
      release(frozen); // seen when it wakes: its tool call returns and the run goes on, to find its job gone
      contAt = Date.now();
      frozen.child.kill("SIGCONT");
      // The frozen worker, woken, finds its job gone and stops that run: its result comes after the
      // SIGCONT. (Its lines come in the order it printed them, so once its "lost" line is read, all
      // it printed before is.) A run that had ended before the freeze was lost to load, not to it.
      let tried = frozenTry(frozenJob);
      for (const deadline = Date.now() + 60_000; !tried && Date.now() < deadline; tried = frozenTry(frozenJob))
        await new Promise((r) => setTimeout(r, 20));
      if (!tried)
        throw new Error(`worker ${frozen.pid} never said it lost job ${frozenJob}:\n${frozen.lines.join("\n")}`);
      if (tried.messages.some((m) => m.type === "result" && m.at >= contAt)) break;
      expect(
        skip.size,
        `the frozen worker kept losing its jobs before the freeze:\n${frozen.lines.join("\n")}`,
      ).toBeLessThan(3);
      console.log(
        `fleet takeover: worker ${frozen.pid} lost job ${frozenJob} before the SIGSTOP (${tried.lost}); freezing it on its next job`,
      );
      skip.add(frozenJob);
    }
    console.log(
      `fleet takeover: SIGKILL → resumed in ${killTakeover} ms, SIGSTOP → resumed in ${freezeTakeover} ms (lockDuration ${LOCK_MS} ms, stalledInterval ${STALLED_MS} ms)`,
    );

    const runs = await fleet.wait(ids, { timeoutMs: 120_000 });
    // What the frozen worker emitted for that job after it woke: none of it reached the store.
    const emitted = frozenTry(frozenJob)!.messages;
    const late = emitted.filter((e) => e.at >= contAt);
    // What it emitted before the freeze (an append still in flight then is refused after it wakes).
    const early = emitted.filter((e) => e.at < frozenAt && e.type !== "system"); // system/init is never stored

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
    // ...while what it wrote before it froze is there, persisted as it happened: its stored messages
    // are the ones it emitted first, in order, with no gap (what was in flight at the freeze may miss).
    const storedEarly = early.filter((e) => frozenStored.has(e.uuid));
    expect(storedEarly.length).toBeGreaterThan(0);
    expect(storedEarly).toEqual(early.slice(0, storedEarly.length));
    console.log(
      `frozen worker: ${storedEarly.length} of ${early.length} messages stored before SIGSTOP; ${late.length} emitted after SIGCONT (${late.map((e) => e.type).join(", ")}), none of them stored`,
    );

    for (const run of runs) {
      const records: TranscriptRecord[] = [];
      for await (const r of fleet.logs(run.id)) records.push(r);
      const main = records.filter((r) => r.message.agentId === undefined);
      // The run completed once: one success, the session's last record. Before it there may be where
      // a try that lost its job stopped: a worker whose lock expired (a loaded machine delays its
      // renewal) before any takeover was recorded stores its aborted result; the next try resumes past it.
      const stored = main.flatMap((r) => (r.message.type === "result" ? [r.message] : []));
      expect(main.at(-1)!.message).toMatchObject({ type: "result", subtype: "success", result: run.outcome!.result });
      const lostTry = (m: (typeof stored)[number]) =>
        (m.subtype === "error_during_execution" && /^Run aborted[.:]/.test(m.result)) ||
        m.subtype === "error_lost_lease" ||
        m.subtype === "error_stale_writer";
      expect(stored.slice(0, -1).filter((m) => !lostTry(m))).toEqual([]);
      expect(stored.slice(0, -1).length).toBeLessThanOrEqual(run.takeovers);
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
  }, 300_000);
});
