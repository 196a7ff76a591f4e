/**
 * A run that moves between workers reports what all of its tries spent: a takeover adds what the
 * lost worker spent (its last progress) to the new worker's own cost, in the progress and in the
 * outcome; an unpriced earlier try makes the total unknown (null), never 0. The run's caps
 * (`maxBudgetUsd`, `maxTurns`) hold for the whole run, not for each worker.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { scriptedModel } from "../../src/testing/index";
import defaultPreset from "../../presets/default";
import { KERNEL_MAX_TURNS, capsLeft, runCost, runJob, type JobContext } from "../../plugins/fleet/run-job";
import { createKernel } from "../../src/index";
import { progressCost, startWorker } from "../../plugins/fleet/worker";
import { queueConnection } from "../../plugins/fleet/connection";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";
import { jobSchema, type FleetJob, type FleetOutcome, type FleetProgress } from "../../plugins/fleet/jobs";
import { jsonlStore } from "../../plugins/fleet/store";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();
const M = 1_000_000;
// $1 per million input tokens, $2 per million output tokens: each call below costs $3.
const modelPricing = { "gpt-5": { input: 1, output: 2 } };
const usage = { inputTokens: M, outputTokens: M };

/** Each model call: a Bash call first, then the answer; every call priced at $3. */
function model() {
  return scriptedModel(
    ({ request }) =>
      request.prompt.some((m) => m.role === "tool")
        ? { text: "done", usage }
        : { toolCalls: [{ id: "b1", toolName: "Bash", input: { command: "echo hi" } }], usage },
    { provider: "openai", modelId: "gpt-5" },
  );
}

function context(dir: string, extra: Partial<JobContext> = {}): JobContext & { reported: FleetProgress[] } {
  const job = jobSchema.parse({ prompt: "go", cwd: dir, sessionId: "cost-1" }) as FleetJob;
  const reported: FleetProgress[] = [];
  const config = {
    presets: [defaultPreset],
    model: model(),
    marketPricing: false,
    modelPricing,
    permissionMode: "bypassPermissions",
    cwd: dir,
  };
  return {
    job,
    jobId: "1",
    attempt: 0,
    config,
    store: jsonlStore(join(dir, "sessions")),
    workdir: join(dir, "work"),
    worker: "w1",
    signal: new AbortController().signal,
    progress: (p) => reported.push(p),
    allowCwd: [dir],
    reported,
    ...extra,
  };
}

describe("fleet: a run's cost over every worker that had it", () => {
  it("a takeover adds the lost worker's cost to its own, in the progress and the outcome", async () => {
    const dir = temp();
    // The first worker loses its lease after its first model call (at the tool call): the run is lost.
    let asked = 0;
    const lost = context(dir, { lease: async () => ++asked <= 1 });
    const first = await runJob(lost);
    expect(first.subtype).toBe("error_lost_lease");
    expect(first.costUsd).toBe(3);
    expect(lost.reported.at(-1)!.costUsd).toBe(3);

    // The next worker resumes the session: the lost worker's last progress is the prior cost.
    const next = context(dir, { attempt: 1, worker: "w2", priorCostUsd: progressCost(lost.reported.at(-1)) });
    const outcome = await runJob(next);
    expect(outcome.subtype).toBe("success");
    // Its own calls: the Bash call again (not answered before the loss) and the answer, or the answer alone.
    const own = outcome.costUsd! - 3;
    expect([3, 6]).toContain(own);
    expect(next.reported.every((p) => p.costUsd! > 3)).toBe(true);
    expect(next.reported.at(-1)!.costUsd).toBe(outcome.costUsd);
  });

  it("an earlier try that went unpriced makes the total unknown (null), never a smaller number", async () => {
    const dir = temp();
    const outcome = await runJob(context(dir, { priorCostUsd: null }));
    expect(outcome.subtype).toBe("success");
    expect(outcome.costUsd).toBeNull();
  });

  it("a first try reports its own cost", async () => {
    const outcome = await runJob(context(temp()));
    expect(outcome.costUsd).toBe(6);
  });

  it("reads the prior cost from a job's last progress (BullMQ's progress is 0 until a try reports one)", () => {
    expect(progressCost({ turns: 2, costUsd: 1.5, worker: "w" })).toBe(1.5);
    expect(progressCost({ turns: 2, costUsd: null, worker: "w" })).toBeNull();
    expect(progressCost(0)).toBe(0);
    expect(progressCost(undefined)).toBe(0);
    expect(runCost(2, undefined)).toBe(2);
    expect(runCost(2, 1)).toBe(3);
    expect(runCost(null, 1)).toBeNull();
    expect(runCost(2, null)).toBeNull();
  });
});

describe("fleet: a run's caps over every worker that had it", () => {
  /** A session the first worker lost after its first model call ($3, one turn). */
  async function lostRun(dir: string) {
    let asked = 0;
    const lost = context(dir, { lease: async () => ++asked <= 1 });
    const first = await runJob(lost);
    expect(first.subtype, first.result).toBe("error_lost_lease");
    return first;
  }

  it("maxBudgetUsd: the resumed run has what the lost worker left of it", async () => {
    const dir = temp();
    const first = await lostRun(dir);
    expect(first.costUsd).toBe(3);
    // $0.03 of $3.03 left: the resumed run's first call (estimated at ~$0.064, its 32,000-token
    // output bound at $2 per million) is refused. With the whole $3.03 again it would go out, and
    // the run would succeed at $6.
    const job = { ...context(dir).job, budget: { maxBudgetUsd: 3.03 } };
    const next = await runJob(context(dir, { job, attempt: 1, priorCostUsd: first.costUsd }));
    expect(next.subtype, next.result).toBe("error_max_budget_usd");
    expect(next.result).toMatch(/could cost up to \$0\.06/);
    expect(next.costUsd).toBe(3);
  });

  it("a budget the lost worker already spent ends the run at once, without a model call", async () => {
    const dir = temp();
    const job = { ...context(dir).job, budget: { maxBudgetUsd: 2.5 } };
    const first = await lostRun(dir);
    expect(first.costUsd).toBe(3);
    const reported: number[] = [];
    const next = await runJob(
      context(dir, { job, attempt: 1, priorCostUsd: first.costUsd, progress: (p) => reported.push(p.turns) }),
    );
    expect(next.subtype).toBe("error_max_budget_usd");
    expect(next.result).toMatch(/budget was spent \(\$3\.0000\) by the workers that had this run before/);
    expect(next.costUsd).toBe(3);
    expect(reported).toEqual([]);
  });

  it("capsLeft takes the earlier tries' turns and cost off maxTurns and maxBudgetUsd", () => {
    expect(capsLeft({ maxTurns: 10, maxBudgetUsd: 1 }, 4, 0.25)).toEqual({ caps: { maxTurns: 6, maxBudgetUsd: 0.75 } });
    expect(capsLeft({ maxTurns: 4 }, 4, 0).ended?.subtype).toBe("error_max_turns");
    expect(capsLeft({ maxBudgetUsd: 1 }, 0, null)).toEqual({ caps: {} });
    // No maxTurns set: the kernel's default is the run's.
    expect(capsLeft({}, 3, 2)).toEqual({ caps: { maxTurns: KERNEL_MAX_TURNS - 3 } });
    expect(capsLeft({}, 0, 2)).toEqual({ caps: {} });
    expect(createKernel({}).options.maxTurns).toBe(KERNEL_MAX_TURNS);
  });
});

/** A model that never stops calling Bash, each call priced at $3. */
const endless = () =>
  scriptedModel(
    () => ({ toolCalls: [{ id: `b${Math.random()}`, toolName: "Bash", input: { command: "true" } }], usage }),
    { provider: "openai", modelId: "gpt-5" },
  );

describe("fleet attack: the prior cost and turns a takeover reads", () => {
  // A job's progress is not a worker's alone: any client of the queue can write it
  // (`job.updateProgress`, or the job's hash in Redis), and a takeover reads it as what the lost worker spent.
  it("a forged progress gives no negative, non-finite or non-number prior cost (unknown instead)", () => {
    for (const costUsd of [-100, -0.01, "5", Infinity, -Infinity, NaN, {}, [3], true]) {
      expect(progressCost({ turns: 1, costUsd, worker: "forged" }), String(costUsd)).toBeNull();
    }
    expect(progressCost(JSON.parse('{"turns":1,"costUsd":1e999,"worker":"w"}'))).toBeNull();
    expect(progressCost({ turns: 1, worker: "forged" })).toBeNull();
    expect(progressCost("forged")).toBeNull();
    // What workers write, and BullMQ's initial 0, read as before.
    expect(progressCost({ turns: 1, costUsd: 0, worker: "w" })).toBe(0);
    expect(progressCost({ turns: 1, costUsd: 2.5, worker: "w" })).toBe(2.5);
  });

  it("a negative prior never lowers the run's reported cost below this try's own", async () => {
    const outcome = await runJob(context(temp(), { attempt: 1, priorCostUsd: -100 }));
    expect(outcome.subtype).toBe("success");
    expect(outcome.costUsd).toBeNull();
    expect(runCost(6, -100)).toBeNull();
    expect(runCost(6, Number.NaN)).toBeNull();
    expect(runCost(6, Number.POSITIVE_INFINITY)).toBeNull();
  });

  it("a negative or non-finite prior never raises a cap", () => {
    for (const prior of [-100, Number.NaN, Number.NEGATIVE_INFINITY])
      expect(capsLeft({ maxTurns: 10, maxBudgetUsd: 1 }, 0, prior)).toEqual({ caps: {} });
    expect(capsLeft({ maxBudgetUsd: 1 }, 0, Number.POSITIVE_INFINITY).ended?.subtype).toBe("error_max_budget_usd");
    for (const turns of [-5, Number.NaN]) expect(capsLeft({ maxTurns: 10 }, turns, 0)).toEqual({ caps: {} });
  });

  it("a negative prior never gives a try more than maxBudgetUsd", async () => {
    const dir = temp();
    let asked = 0;
    expect((await runJob(context(dir, { lease: async () => ++asked <= 1 }))).subtype).toBe("error_lost_lease");
    // $3.03 for the run: with $103.03 (3.03 - -100) the resumed run's endless $3 calls would go on.
    const job = { ...context(dir).job, budget: { maxBudgetUsd: 3.03 } };
    const next = await runJob(
      context(dir, { job, config: { ...context(dir).config, model: endless() }, attempt: 1, priorCostUsd: -100 }),
    );
    expect(next.subtype, next.result).toBe("error_max_budget_usd");
    // One model call of its own (the one that fitted $3.03), after the lost worker's one.
    expect(next.turns).toBe(2);
  });

  it("maxTurns left unset holds for the whole run too: the kernel's default (40) is not given again to each worker", async () => {
    const dir = temp();
    // The first worker loses its lease about 30 turns in.
    let asked = 0;
    const first = await runJob(
      context(dir, { config: { ...context(dir).config, model: endless() }, lease: async () => ++asked <= 60 }),
    );
    expect(first.subtype, first.result).toBe("error_lost_lease");
    expect(first.turns).toBeGreaterThan(20);
    const next = await runJob(context(dir, { config: { ...context(dir).config, model: endless() }, attempt: 1 }));
    expect(next.subtype).toBe("error_max_turns");
    // Before the fix: the resumed run had 40 turns of its own (first.turns + 40 in all).
    expect(next.turns).toBe(40);
    expect(capsLeft({}, 40, 0).ended?.subtype).toBe("error_max_turns");
    expect(capsLeft({}, 30, 0)).toEqual({ caps: { maxTurns: 10 } });
  });
});

describe.skipIf(redisMissing)(
  "fleet attack: a queue client forges a job's progress and stalled counter (real BullMQ on Redis)",
  () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it("the worker's takeover reads the forged progress, and reports no negative cost from it", async () => {
      const dir = temp();
      const { bullmq, connection } = await queueConnection(redis.url);
      const queue = new bullmq.Queue("forged", { connection });
      try {
        const job = await queue.add("run", { prompt: "go", cwd: dir, sessionId: "forged-1" });
        // No worker has run it: the submitter writes its progress and marks it as taken over once.
        await job.updateProgress({ turns: 1, costUsd: -100, worker: "forged" });
        execFileSync("redis-cli", ["-u", redis.url, "HSET", `bull:forged:${job.id}`, "stc", "1"], { stdio: "pipe" });
        const { config } = context(dir);
        const worker = await startWorker({
          connection: redis.url,
          store: jsonlStore(join(dir, "sessions")),
          queueName: "forged",
          config,
          allowCwd: [dir],
          lockDuration: 5_000,
        });
        try {
          let done: FleetOutcome | undefined;
          for (let i = 0; i < 300 && !done; i++) {
            await new Promise((r) => setTimeout(r, 100));
            done = (await bullmq.Job.fromId(queue, job.id!))?.returnvalue;
          }
          expect(done?.takeovers).toBe(1);
          expect(done?.subtype).toBe("success");
          // Before the fix: $6 of its own calls minus the forged $100.
          expect(done?.costUsd).toBeNull();
        } finally {
          await worker.close();
        }
      } finally {
        await queue.close();
      }
    });
  },
);
