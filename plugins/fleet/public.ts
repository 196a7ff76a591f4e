/**
 * `ubiquity/plugins/fleet`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { createFleet, startWorker } from "./index";
export type {
  AcceptedJobOptions,
  Fleet,
  FleetJob,
  FleetJobInput,
  FleetLogsOptions,
  FleetOptions,
  FleetOutcome,
  FleetProgress,
  FleetRunStatus,
  FleetStore,
  FleetWorker,
  FleetWorkerOptions,
} from "./index";
