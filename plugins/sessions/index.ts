/**
 * `ubiquity:sessions`: session transcripts as JSONL under `sessionDir` (one file per session,
 * appended as the run proceeds), and the session loader (`getSessionsApi(kernel).load`) that resumes, continues and forks
 * them. `persistSession: false` writes nothing (loading still works).
 */
import type { RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { storageRoot } from "../_kits/storage/index";
import { KernelSessions, NAME, type RunState } from "./kernel-sessions";
import { loadSession } from "./load-session";
import { sessionsOptions } from "./options";
import { tapRecording } from "./record";
import { tapResume } from "./resume";
import { SessionStore } from "./store";
import { tapWriteChecks } from "./write-checks";
import "./events";
import "./messages";
import "./result-fields";

export {
  SessionStore,
  SessionNotFoundError,
  readTranscript,
  readTranscriptFile,
  isSessionId,
  forkCopy,
  summarize,
} from "./store";
export type { SessionInfo, SessionStoreOptions, StoredSession, ForkOptions, TranscriptRead } from "./store";
export { StaleWriterError, isStaleWriterError } from "./backend";
export type { SessionBackend, SessionAppender, TranscriptEntry, ForkedSession, ListOptions } from "./backend";
export { getSessionsApi, jsonlBackendFor } from "./api";
export type { SessionsApi, BackendFactory, SessionLoader, SessionLoadRequest, LoadedSession } from "./api";
export { acquireLock, releaseLock, lockPathOf, heldElsewhere, type LockInfo } from "./lock";
export type { TranscriptRecord, PersistedMessage, TranscriptNote } from "./records";
export type { TranscriptNoteEvent } from "./events";
export type { SystemSessionWriteFailedMessage } from "./messages";
export { replay } from "./replay";
// The ATIF export's functions are not re-exported (a run never loads them; see sessions-command.ts).
export type {
  AtifTrajectory,
  AtifContentPart,
  AtifSubagentTrajectoryRef,
  AtifFinalMetrics,
  AtifStep,
  AtifToolCall,
  AtifObservationResult,
  AtifOptions,
} from "./atif";
export { sessionsCommand, sessionsFlags } from "./command";
import { sessionsCommand, sessionsFlags } from "./command";

export { NAME, RECORD_PROMPT_STAGE } from "./kernel-sessions";

/** The store a run's options point at. */
export function storeFor(run: RunContext): SessionStore {
  const { sessionDir } = run.options; // validated by the sessions slice: a string or unset
  return new SessionStore({
    dir: storageRoot(typeof sessionDir === "string" ? sessionDir : undefined, run.cwd, "sessions"),
  });
}

/** The sessions plugin. */
export const sessionsPlugin = definePlugin({
  name: NAME,
  options: sessionsOptions,
  runState: (): RunState => ({}),
  commands: { sessions: sessionsCommand },
  flags: sessionsFlags,
  // The store's loader answers loads first; the resume runs first at session.start, then the
  // transcript is recorded, and the run goes on only over what was stored.
  apply(kernel, context) {
    const sessions = new KernelSessions(kernel, context, loadSession);
    tapResume(kernel, context);
    tapRecording(kernel, sessions);
    tapWriteChecks(kernel, sessions);
  },
});

export default sessionsPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
