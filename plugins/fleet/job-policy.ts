/**
 * What a job may change of the worker's config. Whoever can add jobs to the queue would otherwise
 * run code on every worker (a preset or plugin module, hooks, MCP servers, `env`) or lift its
 * permissions (`permissionMode`, `allowedTools`): by default a job may only pick the model and
 * narrow the run. A worker started with more accepted keys (`--accept-job-options`) or `"all"`
 * trusts its queue that much.
 */
import { UbiquityError } from "../../src/index";
import type { FleetJob } from "./jobs";

/** The run options a job may set when the worker says nothing else: none adds power. */
export const SAFE_JOB_OPTIONS: readonly string[] = [
  "model",
  "fallbackModel",
  "appendSystemPrompt",
  "temperature",
  "maxTokens",
  "maxThinkingTokens",
  "maxTurns",
  "disallowedTools",
  "maxBudgetUsd",
  "maxBudgetTokens",
];

/** Which job options a worker accepts: a list of keys, or every key (and a job's presets and plugins). */
export type AcceptedJobOptions = readonly string[] | "all";

/** A job asked for an option this worker does not accept. */
export class JobOptionRefused extends UbiquityError {
  override name = "JobOptionRefused";
}

/**
 * How to make a worker accept `keys`, said both ways: the job's submitter may have started the
 * worker with `ubiquity worker` or with `startWorker()` in code, where a flag means nothing.
 */
export function acceptHint(keys: readonly string[] | "all"): string {
  const flag = keys === "all" ? "all" : keys.join(",");
  const option = keys === "all" ? '"all"' : `[${keys.map((k) => JSON.stringify(k)).join(", ")}]`;
  return `--accept-job-options ${flag} (acceptJobOptions: ${option} in startWorker())`;
}

/** Throw when `job` sets what `accepted` does not allow. */
export function checkJobOptions(job: FleetJob, accepted: AcceptedJobOptions = SAFE_JOB_OPTIONS): void {
  if (accepted === "all") return;
  const refused = Object.keys(job.options ?? {}).filter((key) => !accepted.includes(key));
  if (job.preset) refused.unshift("preset");
  if (refused.length === 0) return;
  throw new JobOptionRefused(
    `this worker does not accept the job option${refused.length === 1 ? "" : "s"} ${refused.join(", ")}: ` +
      `a job may set ${accepted.join(", ")}; start the worker with ${acceptHint(
        refused.filter((k) => k !== "preset").concat(accepted),
      )} ` +
      `(or "all", for a queue only trusted submitters can write to)`,
  );
}
