/**
 * The storage kit: crash-safe writes and the per-project folders of sessions and todos, plus
 * the sweep of temp files an interrupted atomic write leaves (Write, Edit, sessions, todos; Glob
 * and Grep hide such files). Not a plugin: the only file other folders import.
 */
export { writeFileAtomic, atomicTempName } from "./atomic-write";
export { projectSlug, storageRoot } from "./storage-paths";
export { privateFolder } from "./private-folder";
export {
  ATOMIC_TEMP_EXCLUDE,
  STALE_TEMP_MS,
  isTempName,
  isAtomicTempName,
  sweepProjectTemps,
  removeStaleTemps,
  sweepTempsAtStart,
} from "./stale-temps";
