/**
 * One job's run on a worker: a fresh session under the job's session id, or — when the store
 * already holds that session — the session resumed where the lost worker left it (see
 * takeover.ts). Every message the run emits goes to the session store as it happens, through the
 * store plugin of the worker's config; the queue only carries the job and its progress.
 */
import { join } from "node:path";
import { createKernel, createRun, driveRun, describeError, resolveEntries, type Message, type ResultMessage } from "../../src/index";
import { checkout, diffOf } from "./checkout";
import { finishedResult, inFlightCalls } from "./in-flight";
import type { FleetJob, FleetOutcome, FleetProgress } from "./jobs";
import type { FleetStore } from "./store";
import { fleetRunPlugin } from "./takeover";

/** What the resumed run is told (the stored conversation is all it has of the lost worker's work). */
export const TAKEOVER_PROMPT =
  "(This run was moved to another worker after the one running it stopped. The conversation above is everything that was recorded; continue the task from there.)";

/** Everything a job's run needs from its worker. */
export interface JobContext {
  job: FleetJob;
  jobId: string;
  /** How many times BullMQ has handed this job out before (0 on the first try). */
  attempt: number;
  /** The worker's base config (presets, plugins, model, tools), laid under the job's options. */
  config: Record<string, any>;
  store: FleetStore;
  /** Where repository jobs are checked out (one folder per job). */
  workdir: string;
  worker: string;
  signal: AbortSignal;
  /** Resolves to false once the job's lock is another worker's. */
  lease?(): Promise<boolean>;
  progress(progress: FleetProgress): void;
  /** Each message of the run, as it is emitted (the worker's log). */
  onMessage?(message: Message): void;
}

function outcomeOf(result: ResultMessage, context: JobContext, extra: Partial<FleetOutcome>): FleetOutcome {
  return {
    sessionId: context.job.sessionId,
    subtype: result.subtype,
    isError: result.isError,
    result: result.result,
    turns: result.numTurns,
    costUsd: result.totalCostUsd,
    worker: context.worker,
    takeovers: context.attempt,
    ...extra,
  };
}

/** Run (or resume) one job to its result. */
export async function runJob(context: JobContext): Promise<FleetOutcome> {
  const { job, config, store } = context;
  const records = await store.records(job.sessionId);
  const cwd = job.cwd ?? (await checkout(job.repository!, job.ref, join(context.workdir, context.jobId), config.cwd));
  // The lost worker wrote the result but died before telling the queue: the run is done.
  const done = finishedResult(records);
  if (done) return outcomeOf(done, context, { diff: await diffOf(cwd) });

  const resumed = records.length > 0;
  const inFlight = resumed ? inFlightCalls(records) : [];
  const { plugins: jobPlugins, presets: jobPresets, ...jobOptions } = (job.options ?? {}) as Record<string, any>;
  // A job names presets and plugins as module specifiers (only JSON travels): the worker resolves them.
  const entries = await resolveEntries({ presets: job.preset ? [job.preset] : jobPresets, plugins: jobPlugins ?? [] }, config.cwd ?? process.cwd());
  const kernel = createKernel({
    ...config,
    ...(entries.presets ? { presets: entries.presets } : {}),
    ...jobOptions,
    ...job.budget,
    ...store.runOptions(),
    cwd,
    ...(resumed ? { resume: job.sessionId } : { sessionId: job.sessionId }),
    plugins: [...(config.plugins ?? []), ...(entries.plugins ?? []), fleetRunPlugin({ inFlight, lease: context.lease })],
  } as Record<string, any>);
  let turns = 0;
  let result: ResultMessage | undefined;
  const run = createRun({
    kernel,
    abortSignal: context.signal,
    sink: (message) => {
      context.onMessage?.(message);
      if (message.agentId !== undefined) return;
      if (message.type === "assistant") context.progress({ turns: ++turns, costUsd: run.totalCostUsd, worker: context.worker, ...(resumed ? { takeover: { from: context.attempt, at: new Date().toISOString(), inFlight: inFlight.length } } : {}) });
      if (message.type === "result") result = message;
    },
  });
  try {
    await driveRun(run, resumed ? TAKEOVER_PROMPT : job.prompt);
  } finally {
    await kernel.dispose().catch((error: unknown) => run.logger.error("kernel.dispose failed:", describeError(error)));
  }
  return outcomeOf(result!, context, { diff: await diffOf(cwd) });
}
