/**
 * `ubiquity:fleet`: many runs past one machine. `createFleet()` queues runs on BullMQ (Redis, or
 * BullMQ's Postgres backend); workers (`ubiquity worker`, `startWorker()`) run them with the
 * session store persisting every message as it happens, so a run whose worker dies or freezes is
 * resumed by another from the store, its in-flight tool calls answered first (takeover.ts). The
 * plugin contributes the `fleet` and `worker` commands; bullmq loads only when one of them (or
 * `createFleet()` / `startWorker()`) runs.
 */
import { definePlugin } from "../_kits/authoring/index";
import { fleetCommand, workerCommand } from "./commands";
import type { Fleet, FleetOptions } from "./fleet";
import type { FleetWorker, FleetWorkerOptions } from "./worker";

export type { Fleet, FleetOptions, FleetRunStatus, FleetLogsOptions } from "./fleet";
export type { FleetWorker, FleetWorkerOptions } from "./worker";
export type { FleetJobInput, FleetJob, FleetOutcome, FleetProgress } from "./jobs";
export type { FleetStore } from "./store";
export type { InFlightCall } from "./in-flight";
export type { AcceptedJobOptions } from "./job-policy";
// The job runner's helpers (in-flight.ts, run-plugin.ts, run-job.ts, job-policy.ts) are not
// re-exported: the default preset imports this module, and a run that starts no worker loads
// none of them (issue 40). The worker and the tests import them from their modules.

/** The plugin's name. */
export const NAME = "ubiquity:fleet";

/** The fleet plugin: the `ubiquity fleet` and `ubiquity worker` commands (their work loads when one runs). */
export const fleetPlugin = definePlugin({
  name: NAME,
  commands: { fleet: fleetCommand, worker: workerCommand },
  apply() {},
});

/** Open a fleet: submit runs, read their status and logs. */
export async function createFleet(options: FleetOptions): Promise<Fleet> {
  return (await import("./fleet")).createFleet(options);
}

/** Start a worker on a fleet's queue (`ubiquity worker` is this, with the config of its command line). */
export async function startWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  return (await import("./worker")).startWorker(options);
}

export default fleetPlugin;
