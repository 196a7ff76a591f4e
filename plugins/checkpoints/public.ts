/**
 * `ubiquity/plugins/checkpoints`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { ActiveRunError, CheckpointNotFoundError, listCheckpoints, rewindConversation, rewindFiles } from "./index";
export type {
  CheckpointInfo,
  CheckpointQuery,
  CheckpointsOptions,
  FileAction,
  FileChange,
  NotCovered,
  NotCoveredReason,
  RefusedChange,
  RewindOptions,
  RewindResult,
} from "./index";
