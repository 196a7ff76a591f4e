/**
 * The fleet under a Redis restart (issue 37's reliability trials): a real Redis with an
 * append-only file synced on every write — how a BullMQ queue is meant to run — is SIGKILLed by a
 * run's tool and started again on the same port 1.5 s later, while two runs are going and six jobs
 * wait. Every connection of the queue and the worker resets. Whatever the worker was doing then
 * (renewing a lock, completing a job, taking the next), every job must complete once with its
 * result, and no tool call may run twice (one cut off before it ran is called again by the model).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions from "ubiquity/plugins/sessions";
import { createFleet, startWorker, type Fleet, type FleetWorker } from "../../plugins/fleet/index";
import { finishedResult } from "../../plugins/fleet/in-flight";
import { openStore } from "../../plugins/fleet/store";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";

const textOf = (content: unknown) =>
  typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((p) => (p.type === "text" ? p.text : "")).join("\n");

// A short restart, and one longer than the jobs' locks (5 s): their locks expire meanwhile.
describe.skipIf(redisMissing !== undefined).each([1500, 7000])(
  "fleet: Redis down %i ms under running and waiting jobs",
  (downMs) => {
    let redis: TestRedis;
    let dir: string;
    let storeDir: string;
    let fleet: Fleet;
    let worker: FleetWorker;
    const log: string[] = [];
    let restarted = false;

    beforeAll(async () => {
      redis = await startRedis({ persistent: true });
      dir = mkdtempSync(join(tmpdir(), "ubq-fleet-redis-"));
      storeDir = mkdtempSync(join(tmpdir(), "ubq-fleet-redis-store-"));
      const model = scriptedModel(({ request }) => {
        const tag =
          /run-\d+/.exec(
            request.prompt
              .filter((m) => m.role === "user")
              .map((m) => textOf(m.content))
              .join("\n"),
          )?.[0] ?? "run-?";
        // Finished once its Step answered; a Step that was cut off (the run stopped when its lock was lost) is called again.
        if (request.prompt.some((m) => m.role === "tool" && JSON.stringify(m.content).includes(`${tag} done`)))
          return `finished ${tag}`;
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
            await redis.down();
            void new Promise((r) => setTimeout(r, downMs)).then(() => redis.up());
          }
          return `${run} done`;
        },
      });
      // A retry budget longer than the outage: 5 tries with 500 ms backoff doubling last ~7.5 s, about the
      // 7 s outage itself, so a job could use them all up while Redis was away.
      fleet = await createFleet({
        connection: redis.url,
        store: storeDir,
        queueName: "redis-restart",
        backoffMs: 500,
        attempts: 20,
      });
      worker = await startWorker({
        connection: redis.url,
        store: storeDir,
        queueName: "redis-restart",
        concurrency: 2,
        lockDuration: 5_000,
        allowCwd: [tmpdir()],
        config: { presets: [], plugins: [sessions()], model, tools: [step] },
        log: (line) => log.push(line),
      });
    });
    afterAll(async () => {
      await worker?.close();
      await fleet?.close();
      await redis?.stop();
      for (const d of [dir, storeDir]) if (d) rmSync(d, { recursive: true, force: true });
    });

    it("every job completes once with its result stored, and no step runs twice", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(await fleet.submit({ prompt: `do run-${i}`, cwd: dir }));
      const runs = await fleet.wait(ids, { timeoutMs: 120_000, intervalMs: 200 });
      if (process.env.UBIQUITY_TEST_VERBOSE) console.log(log.join("\n"));
      expect(restarted).toBe(true);
      // A failed job names its error, and the worker's log says what happened around it.
      expect(
        runs.map((r) => [r.state, r.outcome?.subtype ?? r.error]),
        runs.some((r) => r.state !== "completed") ? log.join("\n") : undefined,
      ).toEqual(ids.map(() => ["completed", "success"]));
      expect(runs.map((r) => r.outcome?.result)).toEqual(ids.map((_, i) => `finished run-${i}`));
      const store = await openStore(storeDir);
      for (const run of runs)
        expect(finishedResult(await store.records(run.sessionId))?.result, `session of ${run.label}`).toBe(
          run.outcome?.result,
        );
      const steps = readFileSync(join(dir, "steps"), "utf8").trim().split("\n");
      expect(steps.sort()).toEqual(ids.map((_, i) => `run-${i}`).sort());
    }, 150_000);
  },
);
