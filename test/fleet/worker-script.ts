/**
 * A fleet worker process for the tests, on the public API: `startWorker()` with the default
 * preset, a scripted model that decides from the conversation alone (so any worker can take a
 * run over), and two tools that count their side effects in files: Step (not read-only) and
 * Peek (read-only). Settings come from the environment; every event is one line on stdout.
 */
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { defineTool } from "../../plugins/_kits/authoring/index";
import { scriptedModel } from "../../src/testing/index";
import defaultPreset from "../../presets/default";
import { startWorker } from "../../plugins/fleet/index";
import { tmpdir } from "node:os";

const env = (name: string, fallback?: string) => process.env[name] ?? fallback ?? "";
const steps = Number(env("FLEET_STEPS", "4"));
const stepMs = Number(env("FLEET_STEP_MS", "150"));
/** The model's latency per call (a provider's), ms. */
const modelMs = Number(env("FLEET_MODEL_MS", "0"));
/** With FLEET_PRICED, every model call costs exactly $1 (a thousand input tokens at $1,000 per million). */
const priced = process.env.FLEET_PRICED ? { usage: { inputTokens: 1_000, outputTokens: 0 } } : {};

const textOf = (content: unknown) =>
  typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((p) => (p.type === "text" ? p.text : "")).join("\n");

/** Step n of a run: even steps Step, odd steps Peek; done after `steps`. */
const model = scriptedModel(({ request }) => {
  const tag =
    /run-\d+/.exec(
      request.prompt
        .filter((m) => m.role === "user")
        .map((m) => textOf(m.content))
        .join("\n"),
    )?.[0] ?? "run-?";
  const done = request.prompt.filter((m) => m.role === "tool").reduce((n, m) => n + (m.content as unknown[]).length, 0);
  const delay = { ...(modelMs ? { delayMs: modelMs } : {}), ...priced };
  if (done >= steps) return { text: `finished ${tag}`, ...delay };
  const n = done + 1;
  return {
    toolCalls: [
      {
        id: `${tag}-${n}-${randomUUID().slice(0, 8)}`,
        toolName: n % 2 === 0 ? "Step" : "Peek",
        input: { run: tag, n },
      },
    ],
    ...delay,
  };
});

/**
 * With FLEET_HOLD_DIR, a test can stop this worker in the middle of a run, on an event rather than
 * a clock: while the file `hold-<pid>` is there, each tool call, after its side effect, writes
 * `held-<pid>` (its run, step and call id) and waits until the hold file is gone.
 */
const holdDir = env("FLEET_HOLD_DIR");
const holdWhileAsked = async (run: string, n: number, toolUseId: string) => {
  if (!holdDir || !existsSync(join(holdDir, `hold-${process.pid}`))) return;
  writeFileSync(join(holdDir, `held-${process.pid}`), `${run} ${n} ${toolUseId}\n`);
  while (existsSync(join(holdDir, `hold-${process.pid}`))) await sleep(10);
};

const input = z.object({ run: z.string(), n: z.number() });
const counted =
  (file: string) =>
  async ({ run, n }: z.infer<typeof input>, ctx: { toolUseId: string }) => {
    await sleep(stepMs);
    appendFileSync(file, `${ctx.toolUseId} ${run} ${n} ${process.pid}\n`);
    await holdWhileAsked(run, n, ctx.toolUseId);
    return `${run} step ${n} done`;
  };
const Step = defineTool({
  name: "Step",
  description: "Does step n of a run (a side effect).",
  inputSchema: input,
  execute: counted(env("FLEET_STEPS_FILE")),
});
const Peek = defineTool({
  name: "Peek",
  description: "Looks at step n of a run (read-only).",
  inputSchema: input,
  isReadOnly: true,
  execute: counted(env("FLEET_PEEKS_FILE")),
});

const worker = await startWorker({
  connection: env("FLEET_QUEUE"),
  store: env("FLEET_STORE"),
  queueName: env("FLEET_QUEUE_NAME", "ubiquity-fleet"),
  concurrency: Number(env("FLEET_CONCURRENCY", "1")),
  lockDuration: Number(env("FLEET_LOCK_MS", "2000")),
  stalledInterval: Number(env("FLEET_STALLED_MS", "1000")),
  allowCwd: [tmpdir()], // the tests' projects are temp folders
  config: {
    presets: [defaultPreset],
    model,
    tools: [Step, Peek],
    permissionMode: "bypassPermissions",
    marketPricing: false,
    maxRetries: 0,
    ...(process.env.FLEET_PRICED ? { modelPricing: { scripted: { input: 1_000, output: 0 } } } : {}),
    ...JSON.parse(env("FLEET_CONFIG", "{}")),
  },
  log: (line) => console.log(`${Date.now()} ${process.pid} ${line}`),
  // Every message the runs emit, so a test can tell which of them reached the store.
  ...(process.env.FLEET_LOG_MESSAGES
    ? {
        onMessage: (jobId: string, m: { type: string; uuid: string }) =>
          console.log(`${Date.now()} ${process.pid} msg ${jobId} ${m.type} ${m.uuid}`),
      }
    : {}),
});
console.log(`${Date.now()} ${process.pid} ready ${worker.name}`);
const stop = async () => {
  await worker.close();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
