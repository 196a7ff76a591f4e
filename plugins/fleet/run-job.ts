/**
 * One job's run on a worker: a fresh session under the job's session id, or — when the store
 * already holds that session — the session resumed where the lost worker left it (see
 * takeover.ts). Every message the run emits goes to the session store as it happens, through the
 * store plugin of the worker's config; the queue only carries the job and its progress.
 */
import { join } from "node:path";
import { createKernel, createRun, driveRun, describeError, resolveEntries, type Message, type ResultMessage } from "../../src/index";
import { checkout, diffOf } from "./checkout";
import { finishedResult, inFlightCalls, type InFlightCall } from "./in-flight";
import { takeoverRecord } from "./takeover-record";
import { checkJobOptions, JobOptionRefused, type AcceptedJobOptions } from "./job-policy";
import { isStaleWriterError } from "../sessions/index";
import type { FleetJob, FleetOutcome, FleetProgress } from "./jobs";
import type { FleetStore } from "./store";
import { fleetRunPlugin } from "./run-plugin";

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
  /** This job's own earlier try wrote the session (the worker runs it again after a refused write). */
  again?: boolean;
  /** The job options this worker accepts [SAFE_JOB_OPTIONS]. */
  acceptJobOptions?: AcceptedJobOptions;
  /** One line of the worker's log. */
  log?(line: string): void;
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

/**
 * Read the job's session; when it has records (another worker had the run), append the takeover
 * record onto its last one, so the lost worker's later appends are refused. A lost worker that
 * wrote between the read and the append makes the append fail: read again.
 */
export async function takeOver(context: JobContext): Promise<{ resumed: boolean; inFlight: InFlightCall[]; done?: ResultMessage; priorTurns: number }> {
  for (let tries = 1; ; tries++) {
    const found = await context.store.read(context.job.sessionId);
    const records = found?.records ?? [];
    const tip = records.at(-1);
    if (!found || !tip) return { resumed: false, inFlight: [], priorTurns: 0 };
    const done = finishedResult(records);
    if (done) return { resumed: true, inFlight: [], done, priorTurns: 0 };
    const inFlight = inFlightCalls(records);
    // The model responses the lost workers got: the run's turns so far.
    const priorTurns = records.filter((r) => r.message.agentId === undefined && r.message.type === "assistant").length;
    try {
      await context.store.append(takeoverRecord(tip, { worker: context.worker, attempt: context.attempt, inFlight: inFlight.length }), found.path, tip.uuid);
      context.log?.(`took over job ${context.jobId}: session ${context.job.sessionId} resumes after ${records.length} stored records, ${inFlight.length} call${inFlight.length === 1 ? "" : "s"} in flight`);
      return { resumed: true, inFlight, priorTurns };
    } catch (error) {
      if (!isStaleWriterError(error) || tries >= 5) throw error;
    }
  }
}

/** Run (or resume) one job to its result. */
export async function runJob(context: JobContext): Promise<FleetOutcome> {
  const { job, config, store } = context;
  checkJobOptions(job, context.acceptJobOptions);
  // A first try that finds its session already stored names another run's session: continuing it
  // would read that run's transcript and cut its worker off (the takeover record). Only a worker
  // that accepts `sessionId` lets a job continue an earlier session.
  const accepted = context.acceptJobOptions;
  if (context.attempt === 0 && !context.again && accepted !== "all" && !(accepted ?? []).includes("sessionId") && (await store.records(job.sessionId)).length > 0) {
    throw new JobOptionRefused(
      `session ${job.sessionId} is already in the store: a new job may not continue an earlier session on this worker ` +
        `(start the worker with --accept-job-options sessionId to let jobs resume sessions)`,
    );
  }
  const cwd = job.cwd ?? (await checkout(job.repository!, job.ref, join(context.workdir, context.jobId), config.cwd));
  const taken = await takeOver(context);
  // The lost worker wrote the result but died before telling the queue: the run is done.
  if (taken.done) return outcomeOf(taken.done, context, { diff: await diffOf(cwd) });
  const { resumed, inFlight, priorTurns } = taken;
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
  let turns = priorTurns;
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
  // A resumed run's result counts its own turns; the run's are those of every worker that had it.
  return outcomeOf(result!, context, { diff: await diffOf(cwd), turns: priorTurns + result!.numTurns });
}
