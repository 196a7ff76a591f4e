/**
 * A fleet worker: a BullMQ Worker whose processor runs each job with `runJob`. BullMQ holds the
 * job's lock while the run goes and renews it every `lockDuration / 2`; when a renewal fails (the
 * lock expired while this process was frozen, and the stalled check gave the job to another
 * worker) the run is aborted at once. A worker that dies simply stops renewing: the stalled check
 * of the others moves its job back to the queue, and the next worker resumes the session from
 * the store.
 */
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { UbiquityError, describeError, type Message, type UbiquityConfig } from "../../src/index";
import { DEFAULT_QUEUE, queueConnection } from "./connection";
import { jobSchema, type FleetJob, type FleetOutcome } from "./jobs";
import { JobRefusedError, runJob } from "./run-job";
import { JobOptionRefused, type AcceptedJobOptions } from "./job-policy";
import { ZodError } from "zod";
import { openStore, type FleetStore } from "./store";
import { progressWriter } from "./progress";

/** Options of `startWorker()`. */
export interface FleetWorkerOptions {
  /** The queue: `redis://host:port` or `postgres://…` (BullMQ's Postgres backend). */
  connection: string;
  /**
   * The session store's connection string (or a FleetStore). With a connection string, the worker
   * takes no new job while its store cannot be reached (it pauses, and resumes once a probe gets
   * through), and reads and appends wait out an outage up to `storeOutageTimeoutMs`.
   */
  store: string | FleetStore;
  /** How long the store's reads and appends (the worker's and its runs') retry while the database cannot be reached, ms [30000]. */
  storeOutageTimeoutMs?: number;
  queueName?: string;
  /** Runs at once in this worker [1]. */
  concurrency?: number;
  /** The base config of every run (presets, plugins, model, tools); the job's options go on top. */
  config: UbiquityConfig;
  /** How long a job's lock lasts without renewal, ms [30000]: the longest a frozen worker keeps its job. */
  lockDuration?: number;
  /** How often this worker looks for stalled jobs, ms [lockDuration]. */
  stalledInterval?: number;
  /** How many times a job may be taken over before it fails [10]. */
  maxStalledCount?: number;
  /**
   * The run options a job may set over `config` [SAFE_JOB_OPTIONS: the model and what narrows the
   * run]; `"all"` also accepts a job's preset and plugins (code the worker loads: trust the queue).
   */
  acceptJobOptions?: AcceptedJobOptions;
  /** Where repository jobs are checked out [<tmp>/ubiquity-fleet]. */
  workdir?: string;
  /**
   * The folders a job's `cwd` and a local repository must lie in [none: without it the worker runs
   * no cwd job and no local repository, unless `acceptJobOptions` is "all"]. Symlinks and `..`
   * are resolved before the check.
   */
  allowCwd?: readonly string[];
  /**
   * The remote repositories a job may name, as `host/path` patterns (`github.com/acme`,
   * `github.com/acme/*`, `git.internal:8443/team/api`) [any: a job can have this worker clone
   * whatever its git credentials reach; set it when others can write to the queue].
   */
  allowRepositories?: readonly string[];
  /** This worker's name in progress and status [host:pid]. */
  name?: string;
  /** One line per event (job started, resumed, finished, lost). */
  log?(line: string): void;
  /** Each message of every run. */
  onMessage?(jobId: string, message: Message): void;
}

/** A running worker. */
export interface FleetWorker {
  readonly name: string;
  /** Stop taking jobs and wait for the runs going on. */
  close(): Promise<void>;
}

/** A run this worker lost (its lock, or the store refused its write): the job is someone else's now. */
export class LostRunError extends UbiquityError {
  override name = "LostRunError";
}

/** What a job processor shares with its worker. */
interface ProcessorDeps {
  options: FleetWorkerOptions;
  bullmq: typeof import("bullmq");
  store: FleetStore;
  name: string;
  log: (line: string) => void;
  lockDuration: number;
  /** The jobs this worker lost, with why (a failed lock renewal, a lock that is another worker's). */
  lost: Map<string, string>;
}

/**
 * Asked before every model request and tool call: still this worker's job? (extendLock answers 0
 * when the token is not the lock's.) A lost job is recorded and its run aborted.
 */
function leaseCheck(
  job: import("bullmq").Job,
  token: string | undefined,
  abort: AbortController,
  { lost, lockDuration, log }: ProcessorDeps,
): () => Promise<boolean> {
  const id = job.id!;
  return async () => {
    if (lost.has(id)) return false;
    if (!token) return true;
    try {
      if ((await job.extendLock(token, lockDuration)) === 1) return true;
    } catch (error) {
      // The queue is unreachable: no evidence of a lost lock (BullMQ's own renewal will tell).
      log(`cannot check the lock of job ${id}: ${describeError(error)}`);
      return true;
    }
    lost.set(id, "its lock is another worker's");
    abort.abort(new Error("lock lost"));
    return false;
  };
}

/** The BullMQ processor: runs a job to its outcome (again while the store refuses a write the job still owns) and fails a lost or refused one. */
function jobProcessor(deps: ProcessorDeps) {
  const { options, bullmq, store, name, log, lost } = deps;
  return async (job: import("bullmq").Job, token: string | undefined, signal?: AbortSignal): Promise<FleetOutcome> => {
    let data: FleetJob;
    try {
      data = jobSchema.parse(job.data) as FleetJob;
    } catch (error) {
      throw new bullmq.UnrecoverableError(`job ${job.id} is not a fleet job: ${describeError(error)}`);
    }
    // Takeovers (its stalled counter) and retries after a failed try (its attempts) both resume the session.
    const attempt = (job.stalledCounter ?? 0) + (job.attemptsMade ?? 0);
    log(
      `${attempt > 0 ? "resume" : "start"} job ${job.id} session ${data.sessionId}${attempt > 0 ? ` (takeover ${attempt})` : ""}`,
    );
    const abort = new AbortController();
    signal?.addEventListener("abort", () => abort.abort(signal.reason), { once: true });
    const id = job.id!;
    // A renewal failure reported after an earlier try of this job ended must not count against this one.
    lost.delete(id);
    const progress = progressWriter((p) => job.updateProgress(p as unknown as object), log);
    const held = leaseCheck(job, token, abort, deps);
    // The queue holds what the run spent before it spends more (a takeover counts it).
    const lease = async () => {
      await progress.flush();
      return held();
    };
    const run = (again = false, priorCostUsd = attempt > 0 ? progressCost(job.progress) : undefined) =>
      runJob({
        job: data,
        again,
        ...(priorCostUsd === undefined ? {} : { priorCostUsd }),
        jobId: id,
        attempt,
        config: options.config,
        store,
        workdir: options.workdir ?? join(tmpdir(), "ubiquity-fleet"),
        worker: name,
        signal: abort.signal,
        lease,
        log,
        acceptJobOptions: options.acceptJobOptions,
        ...(options.allowCwd ? { allowCwd: options.allowCwd } : {}),
        ...(options.allowRepositories ? { allowRepositories: options.allowRepositories } : {}),
        progress: progress.report,
        onMessage: options.onMessage && ((m) => options.onMessage!(id, m)),
      });
    try {
      let outcome = await run();
      // The store refused a write while the job is still ours: a lost worker wrote after this
      // run read the session (it woke before its lock check). Read the session again and go on.
      for (let tries = 1; outcome.subtype === "error_stale_writer" && tries <= 3 && (await lease()); tries++) {
        log(
          `job ${id}: the store refused a write while this worker holds the lock (a lost worker wrote meanwhile); resuming again`,
        );
        outcome = await run(true, outcome.costUsd);
      }
      const why =
        lost.get(id) ??
        (outcome.subtype === "error_stale_writer"
          ? `the session store refused its write: ${outcome.result}`
          : undefined) ??
        (abort.signal.aborted ? String(abort.signal.reason ?? "aborted") : undefined);
      if (why) {
        log(`lost job ${id}: ${why} (the run ended ${outcome.subtype}: ${outcome.result})`);
        throw new LostRunError(`job ${id} was lost by ${name}: ${why}`);
      }
      log(`done job ${id}: ${outcome.subtype} after ${outcome.turns} turn${outcome.turns === 1 ? "" : "s"}`);
      return outcome;
    } catch (error) {
      // A job this worker refuses fails at once; anything else (the store or the checkout out of
      // reach, a result the store did not take) is tried again by the queue, resuming the session.
      if (error instanceof JobOptionRefused || error instanceof JobRefusedError || error instanceof ZodError)
        throw new bullmq.UnrecoverableError(describeError(error));
      if (!(error instanceof LostRunError))
        log(`job ${id} failed on this try (it is tried again): ${describeError(error)}`);
      throw error;
    } finally {
      // The next try (or `fleet status`) reads what this one spent.
      await progress.flush();
      lost.delete(id);
    }
  };
}

/** Start a worker on the fleet's queue. */
export async function startWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  if (!options.config.presets && !options.config.plugins) {
    throw new UbiquityError(
      "startWorker: config needs presets or plugins (e.g. presets: [defaultPreset] from ubiquity/presets/default)",
    );
  }
  const { bullmq, connection, backend } = await queueConnection(options.connection);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const log = options.log ?? (() => {});
  // Set once the BullMQ worker exists: the store's outage listener pauses and resumes it.
  let paused: ((down: boolean) => void) | undefined;
  const store =
    typeof options.store === "string"
      ? await openStore(options.store, {
          outageTimeoutMs: options.storeOutageTimeoutMs,
          onOutage: (state) => paused?.(state === "down"),
        })
      : options.store;
  const lockDuration = options.lockDuration ?? 30_000;
  const lost = new Map<string, string>();
  if (!options.allowRepositories)
    log(
      "any remote repository a job names is cloned with this worker's git credentials (--allow-repos <host/path,…> limits which)",
    );

  const processor = jobProcessor({ options, bullmq, store, name, log, lockDuration, lost });

  const worker = new bullmq.Worker(
    options.queueName ?? DEFAULT_QUEUE,
    processor,
    {
      connection,
      concurrency: options.concurrency ?? 1,
      lockDuration,
      stalledInterval: options.stalledInterval ?? lockDuration,
      maxStalledCount: options.maxStalledCount ?? 10,
      name,
    },
    backend,
  );
  worker.on("lockRenewalFailed", (ids: string[]) => {
    for (const id of ids) {
      lost.set(id, "its lock expired and another worker may have taken the job");
      // The processor's signal: the run stops at once, before it writes anything more.
      worker.cancelJob(id, "lock lost");
    }
  });
  worker.on("error", (error: Error) => log(`error: ${describeError(error)}`));
  // While the store cannot be reached, take no new job (runs going on wait out the outage in
  // their appends); a probe notices the store is back.
  let probing = false;
  let closing = false;
  paused = (down) => {
    if (down) {
      if (worker.isPaused()) return;
      log(`the session store cannot be reached: taking no new jobs until it is back`);
      void worker.pause(true);
      if (probing) return;
      probing = true;
      void (async () => {
        while (worker.isPaused() && !closing)
          await store
            .records("00000000-0000-0000-0000-000000000000")
            .catch(() => new Promise((r) => setTimeout(r, 1000)));
        probing = false;
      })();
    } else if (worker.isPaused() && !closing) {
      log(`the session store is back: taking jobs again`);
      worker.resume();
    }
  };
  worker.on("failed", (job, error) => {
    if (job && !(error instanceof LostRunError)) log(`failed job ${job.id}: ${describeError(error)}`);
  });
  await worker.waitUntilReady();
  return {
    name,
    async close() {
      closing = true;
      await worker.close();
      await store.close();
    },
  };
}

/**
 * The cost a job's last progress reports (every try so far): 0 when no try reported one yet
 * (BullMQ's progress is 0 until then), null when unknown. Any client of the queue can write a
 * job's progress: what is not a finite, non-negative number is unknown, never a smaller cost.
 */
export function progressCost(progress: unknown): number | null {
  if (progress === undefined || progress === 0) return 0;
  const cost =
    typeof progress === "object" && progress !== null ? (progress as { costUsd?: unknown }).costUsd : undefined;
  return typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : null;
}
