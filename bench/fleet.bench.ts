/**
 * Fleet throughput (issue 25): 100 short runs (a scripted model, 2 tool calls of 20 ms each, 3
 * model calls) through BullMQ on a throw-away Redis, with the session store persisting every
 * message, on 1 worker process and on 3 (concurrency 1 each; the worker script of
 * test/fleet), and 1 process with concurrency 3; with an instant model and with 100 ms per model
 * call. The clock runs from the first submit to the last completion; workers are started
 * and ready before it starts. `npm run bench fleet`. Needs redis-server (and PostgreSQL for the
 * Postgres store).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFleet } from "../plugins/fleet/index";
import { redisMissing, startRedis } from "../test/helpers/redis-server";
import { startWorkerProcess } from "../test/fleet/helpers";
import { benchStore } from "./fleet/store";

const RUNS = 100;

async function round(
  workers: number,
  concurrency: number,
  modelMs: number,
): Promise<{ seconds: number; perRun: number }> {
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), "ubq-fleet-bench-"));
  const store = await benchStore(dir);
  const procs = Array.from({ length: workers }, () =>
    startWorkerProcess({
      FLEET_QUEUE: redis.url,
      FLEET_STORE: store.url,
      FLEET_STEPS_FILE: join(dir, "steps"),
      FLEET_PEEKS_FILE: join(dir, "peeks"),
      FLEET_STEPS: "2",
      FLEET_STEP_MS: "20",
      FLEET_CONCURRENCY: String(concurrency),
      FLEET_MODEL_MS: String(modelMs),
    }),
  );
  try {
    await Promise.all(procs.map((p) => p.waitFor(/ ready /, 120_000)));
    const fleet = await createFleet({ connection: redis.url, store: store.url });
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => fleet.submit({ prompt: `do run-${i}`, cwd: dir })),
    );
    const runs = await fleet.wait(ids, { timeoutMs: 600_000, intervalMs: 100 });
    const seconds = (performance.now() - started) / 1000;
    const bad = runs.filter((r) => r.state !== "completed" || r.outcome?.subtype !== "success");
    if (bad.length) throw new Error(`${bad.length} runs did not succeed: ${JSON.stringify(bad[0])}`);
    await fleet.close();
    return { seconds, perRun: (seconds * 1000) / RUNS };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await store.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function fleetBench(): Promise<void> {
  if (redisMissing) {
    console.log(`skipped: ${redisMissing}`);
    return;
  }
  const store = await benchStore(tmpdir());
  console.log(`${RUNS} runs (2 tool calls of 20 ms, 3 model calls each), session store: ${store.kind}`);
  await store.stop();
  // An instant model shows the fleet's own cost per run; 100 ms per model call is closer to a provider.
  for (const modelMs of [0, 100]) {
    for (const [workers, concurrency] of [
      [1, 1],
      [3, 1],
      [1, 3],
    ] as const) {
      const { seconds, perRun } = await round(workers, concurrency, modelMs);
      console.log(
        `model ${modelMs} ms/call, ${workers} worker${workers === 1 ? "" : "s"} × concurrency ${concurrency}: ${seconds.toFixed(1)} s, ${(RUNS / seconds).toFixed(1)} runs/s (${perRun.toFixed(0)} ms per run)`,
      );
    }
  }
}
