/**
 * A fleet job: one run of the agent, as it travels through the queue. Only JSON goes into the
 * queue, so the options a job carries are the JSON-shaped run options (model string, maxTurns,
 * permissionMode, …); the worker's own config supplies everything else (tools, model objects).
 */
import { z } from "zod";

/** Where a run works: a folder on the worker's machine, or a repository the worker checks out. */
const where = z.union([
  z.object({ cwd: z.string().min(1), repository: z.undefined().optional(), ref: z.undefined().optional() }),
  z.object({ repository: z.string().min(1), ref: z.string().min(1).optional(), cwd: z.undefined().optional() }),
]);

/** The caps of one run: they become the budget plugin's options and `maxTurns`. */
export const budgetSchema = z.strictObject({
  maxTurns: z.number().int().positive().optional(),
  maxBudgetUsd: z.number().positive().optional(),
  maxBudgetTokens: z.number().int().positive().optional(),
});

/** What `submit()` takes. */
export const jobSchema = z
  .object({
    prompt: z.string().min(1, "a fleet job needs a prompt"),
    /** Run options (JSON only), laid over the worker's config. */
    options: z.record(z.string(), z.unknown()).optional(),
    /** A preset for the run, as a module specifier the worker resolves (`ubiquity/presets/headless`) [the worker config's]. */
    preset: z.string().min(1).optional(),
    budget: budgetSchema.optional(),
    /** The session id of the run [a fresh UUID]: the key of its transcript in the store. */
    sessionId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,128}$/)
      .optional(),
    /** A label shown by `fleet status` [the repository or cwd]. */
    label: z.string().optional(),
  })
  .and(where);

/** A job as `submit()` takes it. */
export type FleetJobInput = z.input<typeof jobSchema>;

/** A job as it sits in the queue (the session id chosen). */
export type FleetJob = z.output<typeof jobSchema> & { sessionId: string };

/** What a worker reports while a run goes (`job.updateProgress`). */
export interface FleetProgress {
  turns: number;
  costUsd: number | null;
  worker: string;
  /** Set on a run resumed after another worker lost it. */
  takeover?: { from: number; at: string; inFlight: number };
}

/** What a finished run returns (the job's return value). */
export interface FleetOutcome {
  sessionId: string;
  subtype: string;
  isError: boolean;
  result: string;
  turns: number;
  costUsd: number | null;
  /** `git diff` of the checkout against the ref it started from (repository jobs and git folders). */
  diff?: string;
  worker: string;
  /** How many times the run was taken over from a worker that stopped. */
  takeovers: number;
}
