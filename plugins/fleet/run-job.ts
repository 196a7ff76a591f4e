/**
 * One job's run on a worker: a fresh session under the job's session id, or — when the store
 * already holds that session — the session resumed where the lost worker left it (see
 * takeover.ts). Every message the run emits goes to the session store as it happens, through the
 * store plugin of the worker's config; the queue only carries the job and its progress.
 */
import { join } from "node:path";
import {
  UbiquityError,
  absolutePath,
  createKernel,
  createRun,
  driveRun,
  describeError,
  type Message,
  type ResultMessage,
  type UbiquityConfig,
} from "../../src/index";
import { isInside, resolveReal } from "../_kits/paths/index";
import { resolveEntries } from "../../loader/index";
import { checkout, diffOf } from "./checkout";
import { checkRemote, fileUrlPath, isRemote } from "./remote-policy";
import { finishedResult, inFlightCalls, type InFlightCall } from "./in-flight";
import { takeoverRecord } from "./takeover-record";
import { acceptHint, checkJobOptions, JobOptionRefused, type AcceptedJobOptions } from "./job-policy";
import { isStaleWriterError } from "../sessions/index";
import type { FleetJob, FleetOutcome, FleetProgress } from "./jobs";
import type { FleetStore } from "./store";
import { fleetRunPlugin, sessionJob } from "./run-plugin";

/** What the resumed run is told (the stored conversation is all it has of the lost worker's work). */
export const TAKEOVER_PROMPT =
  "(This run was moved to another worker after the one running it stopped. The conversation above is everything that was recorded; continue the task from there.)";

/** The run ended but the store does not hold its result: the job is not complete, and is tried again. */
export class UnstoredResultError extends UbiquityError {
  override name = "UnstoredResultError";
}

/** A job this worker will not run (its options, folder or repository): trying it again changes nothing. */
export class JobRefusedError extends UbiquityError {
  override name = "JobRefusedError";
}

/** Throw unless the session's stored end is `result` (the store acknowledged the final record). */
export async function confirmStored(store: FleetStore, sessionId: string, result: ResultMessage): Promise<void> {
  let last: string | null;
  try {
    last = store.lastRecord
      ? await store.lastRecord(sessionId)
      : ((await store.records(sessionId)).at(-1)?.uuid ?? null);
  } catch (error) {
    throw new UnstoredResultError(
      `the run ended (${result.subtype}) but the session store could not be read to confirm its result: ${describeError(error)}`,
    );
  }
  if (last === result.uuid) return;
  throw new UnstoredResultError(
    result.subtype === "error_session_write"
      ? `the session store failed during the run: ${result.result}`
      : `the run ended (${result.subtype}) but its result is not the session's last stored record`,
  );
}

/** Everything a job's run needs from its worker. */
export interface JobContext {
  job: FleetJob;
  jobId: string;
  /** How many times BullMQ has handed this job out before (0 on the first try). */
  attempt: number;
  /** The worker's base config (presets, plugins, model, tools), laid under the job's options. */
  config: UbiquityConfig;
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
  /**
   * What the earlier tries of this run spent (the lost worker's last progress, or this worker's
   * refused try): added to this run's cost in its progress and outcome. `null` = unknown (an
   * earlier try went unpriced), which makes the total unknown too; unset on a first try.
   */
  priorCostUsd?: number | null;
  /**
   * The folders a job's `cwd` and a local repository (a path or file:// URL) must lie in, symlinks
   * resolved [anywhere: set it on a worker whose queue others can write to].
   */
  allowCwd?: readonly string[];
  /** The remote repositories a job may name, as `host/path` patterns [any]. */
  allowRepositories?: readonly string[];
  /** The job options this worker accepts [SAFE_JOB_OPTIONS]. */
  acceptJobOptions?: AcceptedJobOptions;
  /** One line of the worker's log. */
  log?(line: string): void;
  /** Each message of the run, as it is emitted (the worker's log). */
  onMessage?(message: Message): void;
}

/**
 * A prior cost as it can be added: the job's progress it comes from can be written by any client
 * of the queue, so a negative, non-finite or non-number one is unknown (`null`), never a discount.
 */
function priorCost(prior: unknown): number | null | undefined {
  if (prior === undefined || prior === null) return prior;
  return typeof prior === "number" && Number.isFinite(prior) && prior >= 0 ? prior : null;
}

/** This try's cost plus what the earlier tries spent (`null`, unknown, stays unknown). */
export function runCost(own: number | null, prior: number | null | undefined): number | null {
  const earlier = priorCost(prior);
  if (earlier === undefined) return own;
  return earlier === null || own === null ? null : earlier + own;
}

function outcomeOf(result: ResultMessage, context: JobContext, extra: Partial<FleetOutcome>): FleetOutcome {
  return {
    sessionId: context.job.sessionId,
    subtype: result.subtype,
    isError: result.isError,
    result: result.result,
    turns: result.numTurns,
    // A try that sent no request spent nothing (pricing leaves such a run's cost unset).
    costUsd: runCost(
      result.usage.requests === 0 && context.priorCostUsd !== undefined ? 0 : result.totalCostUsd,
      context.priorCostUsd,
    ),
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
export async function takeOver(
  context: JobContext,
): Promise<{ resumed: boolean; inFlight: InFlightCall[]; done?: ResultMessage; priorTurns: number }> {
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
      await context.store.append(
        takeoverRecord(tip, { worker: context.worker, attempt: context.attempt, inFlight: inFlight.length }),
        found.path,
        tip.uuid,
      );
      context.log?.(
        `took over job ${context.jobId}: session ${context.job.sessionId} resumes after ${records.length} stored records, ${inFlight.length} call${inFlight.length === 1 ? "" : "s"} in flight`,
      );
      return { resumed: true, inFlight, priorTurns };
    } catch (error) {
      if (!isStaleWriterError(error) || tries >= 5) throw error;
    }
  }
}

/** A local path a job names (its cwd, or a repository that is a path or a file:// URL); undefined for a remote URL. */
function localPathOf(job: FleetJob, base: string): string | undefined {
  if (job.cwd !== undefined) return absolutePath(base, job.cwd);
  const repository = job.repository!;
  // The path git reads (it decodes the whole URL, %2f included, before it drops the host).
  if (/^file:\/\//i.test(repository)) return fileUrlPath(repository);
  if (isRemote(repository)) return undefined;
  return absolutePath(base, repository);
}

/** Throw when the job's folder or local repository lies outside the worker's `allowCwd`. */
function checkWhere(
  job: FleetJob,
  allowCwd: readonly string[] | undefined,
  base: string,
  accepted: AcceptedJobOptions | undefined,
): void {
  const path = localPathOf(job, base);
  if (path === undefined) return;
  if (!allowCwd) {
    // A queue writer is not trusted by default: without allowed folders it may not aim the agent at the worker's own files.
    if (accepted === "all") return;
    throw new JobRefusedError(
      `this worker runs no jobs in local folders (${path}): start it with --allow-cwd <dir,…> (allowCwd: ["<dir>", …] in startWorker()) naming the folders a job's cwd or local repository may be in (or ${acceptHint("all")} for a queue only trusted submitters write to)`,
    );
  }
  const real = resolveReal(path) ?? path;
  const roots = allowCwd.map((root) => resolveReal(absolutePath(base, root)) ?? absolutePath(base, root));
  if (roots.some((root) => isInside(root, real))) return;
  const what = job.cwd !== undefined ? "folder" : "repository";
  throw new JobRefusedError(
    `this worker does not run jobs in ${path}: a job's ${what} must be inside ${allowCwd.join(", ")} (--allow-cwd)`,
  );
}

/** The caps a job may lower but not lift (a worker that accepts "all" lets a job lift them). */
const CAPS = ["maxTurns", "maxBudgetUsd", "maxBudgetTokens"] as const;

/** The worker's caps where the job asked for more. */
function workerCaps(config: Record<string, unknown>, job: Record<string, unknown>): Record<string, number> {
  const kept: Record<string, number> = {};
  for (const key of CAPS)
    if (typeof config[key] === "number" && !(typeof job[key] === "number" && job[key] <= config[key]))
      kept[key] = config[key];
  return kept;
}

/** The kernel's `maxTurns` when no option sets it (src/kernel.ts): a run's, not each worker's, like a set one. */
export const KERNEL_MAX_TURNS = 40;

/**
 * The caps a resumed run has left once the earlier tries' turns and cost are taken off (`maxTurns`,
 * set or the kernel's default, and `maxBudgetUsd` hold for the whole run, not per worker); `ended`
 * when one is used up. A negative or non-finite prior raises nothing.
 */
export function capsLeft(
  options: Record<string, unknown>,
  priorTurns: number,
  priorCostUsd: number | null | undefined,
): { caps: Record<string, number>; ended?: { subtype: string; result: string } } {
  const caps: Record<string, number> = {};
  const maxTurns = typeof options.maxTurns === "number" ? options.maxTurns : KERNEL_MAX_TURNS;
  if (priorTurns > 0) {
    const left = maxTurns - priorTurns;
    if (left <= 0)
      return {
        caps,
        ended: {
          subtype: "error_max_turns",
          result: `Reached the maximum number of turns (${maxTurns}) over the workers that had this run; raise maxTurns to let it go on`,
        },
      };
    caps.maxTurns = left;
  }
  if (typeof priorCostUsd === "number" && priorCostUsd > 0 && typeof options.maxBudgetUsd === "number") {
    const left = options.maxBudgetUsd - priorCostUsd;
    if (left <= 0) {
      const result = `The $${options.maxBudgetUsd} budget was spent ($${priorCostUsd.toFixed(4)}) by the workers that had this run before; raise maxBudgetUsd to let it go on`;
      return { caps, ended: { subtype: "error_max_budget_usd", result } };
    }
    caps.maxBudgetUsd = left;
  }
  return { caps };
}

/** Refuse a job this worker's policy does not let run: options it does not accept, another run's session, a job id or place it must not use. */
async function refuseJob(context: JobContext): Promise<void> {
  const { job, config, store } = context;
  const accepted = context.acceptJobOptions;
  checkJobOptions(job, accepted);
  // A first try that finds its session already stored names another run's session: continuing it
  // would read that run's transcript and cut its worker off (the takeover record). Only a worker
  // that accepts `sessionId` lets a job continue an earlier session.
  // A takeover (attempt > 0, which a queue client can forge in the job's stalled counter) may
  // continue only the session its own job started: the transcript's `fleet-job` note says which.
  if (accepted !== "all" && !(accepted ?? []).includes("sessionId")) {
    const stored = await store.read(job.sessionId);
    const fresh = context.attempt === 0 && !context.again;
    const owner = stored ? sessionJob(stored.notes) : undefined;
    if (stored && stored.records.length > 0 && (fresh || owner !== context.jobId)) {
      throw new JobOptionRefused(
        fresh
          ? `session ${job.sessionId} is already in the store: a new job may not continue an earlier session on this worker ` +
              `(start the worker with ${acceptHint(["sessionId"])} to let jobs resume sessions)`
          : `job ${context.jobId} comes as a takeover of session ${job.sessionId}, which ${owner ? `job ${owner}` : "no job of this fleet"} runs: ` +
              `a job takes over only its own run (start the worker with ${acceptHint(["sessionId"])} to let jobs resume other sessions)`,
      );
    }
  }
  // The job id names the checkout's folder: a custom id (`queue.add(…, { jobId })`) must not climb out of the work folder.
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(context.jobId))
    throw new JobRefusedError(
      `job id ${JSON.stringify(context.jobId)} is not a plain name (letters, digits, _ and -): refused`,
    );
  checkWhere(job, context.allowCwd, config.cwd ?? process.cwd(), accepted);
  if (job.repository !== undefined) {
    try {
      checkRemote(job.repository, context.allowRepositories);
    } catch (error) {
      throw new JobRefusedError(describeError(error), { cause: error });
    }
  }
}

/** Run (or resume) one job to its result; a job this worker's policy refuses throws `JobOptionRefused` or `JobRefusedError`. */
export async function runJob(context: JobContext): Promise<FleetOutcome> {
  const { job, config, store } = context;
  const accepted = context.acceptJobOptions;
  await refuseJob(context);
  // With an allow-list, an HTTP redirect must not take the clone to a repository the list never named.
  const cwd =
    job.cwd ??
    (await checkout(job.repository!, job.ref, join(context.workdir, context.jobId), config.cwd, {
      followRedirects: !context.allowRepositories,
    }));
  const taken = await takeOver(context);
  // The lost worker wrote the result but died before telling the queue: the run is done.
  // Its result counts that worker's own try; the progress it reported counts every try before the result.
  if (taken.done)
    return {
      ...outcomeOf(taken.done, context, { diff: await diffOf(cwd) }),
      costUsd: context.priorCostUsd === undefined ? taken.done.totalCostUsd : priorCost(context.priorCostUsd)!,
    };
  const { resumed, inFlight, priorTurns } = taken;
  const { plugins: jobPlugins, presets: jobPresets, ...jobOptions } = (job.options ?? {}) as UbiquityConfig;
  // A job names presets and plugins as module specifiers (only JSON travels): the worker resolves them.
  const entries = await resolveEntries(
    { presets: job.preset ? [job.preset] : jobPresets, plugins: jobPlugins ?? [] },
    config.cwd ?? process.cwd(),
  );
  // A checkout (this job's, or another's a cwd job points at) holds a repository's files, not the
  // worker's: its settings, .mcp.json, agents, skills and memory files apply only as they would in
  // an untrusted folder (deny and ask rules only). A job may lift that only where the worker accepts `trust`.
  const checkoutFolder =
    job.repository !== undefined || isInside(resolveReal(context.workdir) ?? context.workdir, resolveReal(cwd) ?? cwd);
  const options: UbiquityConfig = {
    ...config,
    ...(entries.presets ? { presets: entries.presets } : {}),
    ...(checkoutFolder ? { trust: false } : {}),
    ...jobOptions,
    ...job.budget,
    ...(accepted === "all" ? {} : workerCaps(config, { ...jobOptions, ...job.budget })),
  };
  // A resumed run's caps are what the earlier tries left of the run's.
  const left = resumed ? capsLeft(options, priorTurns, context.priorCostUsd) : { caps: {} };
  if (left.ended) {
    const { subtype, result } = left.ended;
    return {
      sessionId: job.sessionId,
      subtype,
      isError: true,
      result,
      turns: priorTurns,
      costUsd: priorCost(context.priorCostUsd) ?? null,
      worker: context.worker,
      takeovers: context.attempt,
      diff: await diffOf(cwd),
    };
  }
  const kernel = createKernel({
    ...options,
    ...left.caps,
    ...store.runOptions(),
    cwd,
    ...(resumed ? { resume: job.sessionId } : { sessionId: job.sessionId }),
    plugins: [
      ...(config.plugins ?? []),
      ...(entries.plugins ?? []),
      fleetRunPlugin({ inFlight, lease: context.lease, jobId: context.jobId }),
    ],
  });
  let turns = priorTurns;
  let result: ResultMessage | undefined;
  const run = createRun({
    kernel,
    abortSignal: context.signal,
    sink: (message) => {
      context.onMessage?.(message);
      if (message.agentId !== undefined) return;
      if (message.type === "assistant")
        context.progress({
          turns: ++turns,
          costUsd: runCost(run.totalCostUsd, context.priorCostUsd),
          worker: context.worker,
          ...(resumed
            ? { takeover: { from: context.attempt, at: new Date().toISOString(), inFlight: inFlight.length } }
            : {}),
        });
      if (message.type === "result") result = message;
    },
  });
  try {
    await driveRun(run, resumed ? TAKEOVER_PROMPT : job.prompt);
  } finally {
    await kernel.dispose().catch((error: unknown) => run.logger.error("kernel.dispose failed:", describeError(error)));
  }
  // A job is complete only once the store holds its result (a run that lost its job to another
  // worker is reported as lost by the worker, not confirmed here).
  if (result!.subtype !== "error_stale_writer" && result!.subtype !== "error_lost_lease" && !context.signal.aborted)
    await confirmStored(store, job.sessionId, result!);
  // A resumed run's result counts its own turns; the run's are those of every worker that had it.
  return outcomeOf(result!, context, { diff: await diffOf(cwd), turns: priorTurns + result!.numTurns });
}
