/**
 * `createFleet()`: the submitting side of the fleet. Jobs go into a BullMQ queue; workers
 * (`ubiquity worker`, or `startWorker()`) run them; the state of each run comes from the queue
 * (state, progress, outcome) and its messages from the session store.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_QUEUE, queueConnection } from "./connection";
import { jobSchema, type FleetJob, type FleetJobInput, type FleetOutcome, type FleetProgress } from "./jobs";
import { openStore, type FleetStore } from "./store";
import type { TranscriptRecord } from "../sessions/index";

/** Options of `createFleet()`. */
export interface FleetOptions {
  /** The queue: `redis://host:port`, or `postgres://…` for BullMQ's Postgres backend. */
  connection: string;
  /** The session store's connection string (or a FleetStore). */
  store: string | FleetStore;
  queueName?: string;
  /**
   * Tries of a job whose worker failed it (an infrastructure failure: the store or the checkout
   * unreachable past their bounds) before it is failed for good [5]. A run's own failure is its
   * outcome, not a failed job, and a job the worker refuses is never tried again.
   */
  attempts?: number;
  /** The first wait before another try, ms, doubling each time [2000]. */
  backoffMs?: number;
}

/** One run as `status()` reports it. */
export interface FleetRunStatus {
  id: string;
  label: string;
  sessionId: string;
  /** BullMQ's state: waiting, active, completed, failed, delayed, … */
  state: string;
  turns: number;
  costUsd: number | null;
  worker?: string;
  /** How many times the run moved to another worker. */
  takeovers: number;
  outcome?: FleetOutcome;
  error?: string;
}

/** Options of `logs()`. */
export interface FleetLogsOptions {
  /** Keep reading while the run goes, until its result is stored [false]. */
  follow?: boolean;
  /** How often the store is read while following, ms [500]. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** A fleet: submit runs, read their state and their messages. */
export interface Fleet {
  /** Queue one run; resolves to its id. */
  submit(job: FleetJobInput): Promise<string>;
  /** Every run the queue knows, oldest first (or the ones of `ids`). */
  status(ids?: string[]): Promise<FleetRunStatus[]>;
  /** The records of a run's session, as they are stored (following the run when asked). */
  logs(id: string, options?: FleetLogsOptions): AsyncGenerator<TranscriptRecord>;
  /** Resolves when every run of `ids` has completed or failed. */
  wait(ids: string[], options?: { timeoutMs?: number; intervalMs?: number }): Promise<FleetRunStatus[]>;
  close(): Promise<void>;
}

const STATES = ["waiting", "active", "delayed", "prioritized", "completed", "failed"] as const;

/** Open a fleet on a queue and a session store. */
export async function createFleet(options: FleetOptions): Promise<Fleet> {
  const { bullmq, connection, backend } = await queueConnection(options.connection);
  const queue = new bullmq.Queue(options.queueName ?? DEFAULT_QUEUE, { connection }, backend);
  // A dropped connection (Redis restarting) is retried by the client; what it costs shows as the
  // failure of a call that needed the queue then. Without a listener BullMQ prints it to stderr.
  queue.on("error", () => {});
  const store = typeof options.store === "string" ? await openStore(options.store) : options.store;

  async function describe(listed: import("bullmq").Job): Promise<FleetRunStatus> {
    // The state first, then the job as of that state: a job read before it finished has no outcome yet.
    const state = await queue.getJobState(listed.id!);
    const job = (state === "completed" || state === "failed" ? await queue.getJob(listed.id!) : undefined) ?? listed;
    const data = job.data as FleetJob;
    const outcome = job.returnvalue as FleetOutcome | null | undefined;
    const progress = (typeof job.progress === "object" ? job.progress : {}) as Partial<FleetProgress>;
    return {
      id: job.id!,
      label: data.label ?? data.repository ?? data.cwd ?? "",
      sessionId: data.sessionId,
      state,
      turns: outcome?.turns ?? progress.turns ?? 0,
      costUsd: outcome?.costUsd ?? progress.costUsd ?? null,
      worker: outcome?.worker ?? progress.worker,
      takeovers: outcome?.takeovers ?? job.stalledCounter ?? 0,
      ...(outcome ? { outcome } : {}),
      // An earlier try's failure stays on the job; it is the run's error only when no try finished it.
      ...(job.failedReason && state === "failed" ? { error: job.failedReason } : {}),
    };
  }

  async function sessionOf(id: string): Promise<string> {
    const job = await queue.getJob(id);
    if (job) return (job.data as FleetJob).sessionId;
    // An id that is no job may be the session id itself.
    if ((await store.records(id)).length > 0) return id;
    throw new Error(`no fleet run with id ${JSON.stringify(id)}: see \`ubiquity fleet status\``);
  }

  const fleet: Fleet = {
    async submit(input) {
      const parsed = jobSchema.parse(input);
      const data: FleetJob = { ...parsed, sessionId: parsed.sessionId ?? randomUUID() };
      // A run's own failure completes the job with that outcome; a job fails only when its worker
      // could not finish it (the store or the checkout out of reach): that is tried again, resuming
      // the session from the store, before it fails for good.
      const backoff = { type: "exponential", delay: options.backoffMs ?? 2000 };
      // The add is idempotent: when the connection resets after Redis ran it but before its reply
      // came, the client sends it again on reconnect. The deduplication id (one per submit, kept
      // until the job finishes) makes that second add answer with the first job instead of
      // queueing the run twice under one session id.
      const job = await queue.add("run", data, {
        attempts: options.attempts ?? 5,
        backoff,
        removeOnComplete: false,
        removeOnFail: false,
        deduplication: { id: `submit-${randomUUID()}` },
      });
      return job.id!;
    },
    async status(ids) {
      const jobs = ids
        ? await Promise.all(ids.map((id) => queue.getJob(id)))
        : await queue.getJobs([...STATES], 0, -1, true);
      return Promise.all(jobs.filter((j): j is import("bullmq").Job => j !== undefined).map(describe));
    },
    async *logs(id, { follow = false, intervalMs = 500, signal } = {}) {
      const sessionId = await sessionOf(id);
      const seen = new Set<string>();
      for (;;) {
        // The state first: records read after a finished state are all there will be.
        const state = follow ? await queue.getJobState(id) : undefined;
        for (const record of await store.records(sessionId)) {
          if (seen.has(record.uuid)) continue;
          seen.add(record.uuid);
          yield record;
        }
        if (
          !follow ||
          signal?.aborted ||
          state === undefined ||
          state === "completed" ||
          state === "failed" ||
          state === "unknown"
        )
          return;
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
    async wait(ids, { timeoutMs = 600_000, intervalMs = 250 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // A wait rides out a Redis restart: a status read that fails (connection reset) is tried again until the deadline.
        const runs = await fleet.status(ids).catch((error: unknown) => {
          if (Date.now() > deadline) throw error;
          return undefined;
        });
        if (runs && runs.length === ids.length && runs.every((r) => r.state === "completed" || r.state === "failed"))
          return runs;
        if (!runs) {
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
          continue;
        }
        if (Date.now() > deadline)
          throw new Error(
            `fleet.wait: ${runs.filter((r) => r.state !== "completed" && r.state !== "failed").length} runs still going after ${timeoutMs} ms`,
          );
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
    async close() {
      await queue.close();
      await store.close();
    },
  };
  return fleet;
}
