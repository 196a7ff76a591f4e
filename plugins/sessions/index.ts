/**
 * `ubiquity:sessions`: session transcripts as JSONL under `sessionDir` (one file per session,
 * appended as the run proceeds), and the session loader (`getSessionsApi(kernel).load`) that resumes, continues and forks
 * them. `persistSession: false` writes nothing (loading still works).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  describeError,
  PROMPT_STAGE,
  RunEnd,
  UbiquityError,
  REQUEST_STAGE,
  secretsOf,
  type RunContext,
  type TurnPrompt,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { storageRoot, removeStaleTemps } from "../_kits/storage/index";
import { warn } from "../_kits/sources/index";
import { acquireLock, heldElsewhere, lockPathOf, releaseAllLocks, releaseLock } from "./lock";
import { isPersisted } from "./records";
import { replay, takeTrailingPrompt } from "./replay";
import { resumeSession } from "./resume";
import { SessionStore } from "./store";
import { TranscriptWriter } from "./writer";
import { createSessionsApi, type LoadedSession, type SessionLoader, type SessionLoadRequest } from "./api";
import type { SessionBackend } from "./backend";
import { sessionsOptions } from "./options";
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
export {
  toAtif,
  ATIF_VERSION,
  AtifExportError,
  type AtifTrajectory,
  type AtifContentPart,
  type AtifSubagentTrajectoryRef,
  type AtifFinalMetrics,
  type AtifStep,
  type AtifToolCall,
  type AtifObservationResult,
  type AtifOptions,
} from "./atif";
export { sessionsCommand, sessionsFlags } from "./command";
import { sessionsCommand, sessionsFlags } from "./command";

/** The plugin's name. */
export const NAME = "ubiquity:sessions";

/**
 * Stage of the `turn.prompt` tap that records the prompt: after every other tap, so the record
 * holds the context the model actually received.
 */
export const RECORD_PROMPT_STAGE = PROMPT_STAGE.RECORD;

/** The `session.start` tap that resumes a stored session runs first (`order: "first"`), so every other tap sees its id and history. */

interface RunState {
  /** The transcript this run appends to (the loaded one, or the fork's copy). */
  path?: string;
  /** Set for a run that replayed a session: its first prompt absorbs an unanswered last one. */
  resumed?: boolean;
  /** The transcript whose lock this run took (released when its writer closes). */
  locked?: string;
  /** The store the run's session is kept in. */
  store?: SessionBackend;
  /** The session this run continues, claimed in this kernel (stores without lock files). */
  claimed?: string;
  /** The last record of the session as replayed (stores without lock files): the writer's first append must follow it. */
  replayedLast?: string | null;
}

// A process that exits with a run still going leaves no lock behind (a crash leaves a stale one, taken over later).
let exitHook = false;
function releaseOnExit() {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", releaseAllLocks);
}

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
  apply(kernel, context) {
    // Messages reach `event` without their run; a session id names it (subagents share it).
    // Runs of one kernel resuming the same session share its writer, counted.
    const writers = new Map<
      string,
      { writer: TranscriptWriter; runs: number; locked?: string; opened: Promise<void>; reported?: boolean }
    >();
    // The store's own loader (set below, once the helpers it uses exist) answers loads first.
    let loadOwn: SessionLoader = async () => undefined;
    const api = createSessionsApi(
      kernel,
      async (sessionId) => {
        const open = writers.get(sessionId);
        if (!open) return;
        await open.opened;
        await open.writer.flush();
        if (open.writer.stale) throw open.writer.stale;
      },
      (run) => {
        if (context.optionsOf(run).persistSession === false) return undefined;
        // A subagent's messages go to its session's transcript (subagents share the id).
        return context.run(run).path ?? writtenAt(run);
      },
      (request, run) => loadOwn(request, run),
    );
    const writtenAt = (run: RunContext) =>
      writers.get(run.sessionId)?.writer.path ?? storeOf(run).pathFor(run.sessionId, run.cwd);
    // Sessions a run of this kernel continues (stores without locks): a second run forks.
    const claimed = new Set<string>();
    const storeOf = (run: RunContext) => (context.run(run).store ??= api.backendFor(run.options, run.cwd));
    /** The stale-writer refusal of the session `run` writes, if the store refused it. */
    const staleOf = async (run: RunContext) => {
      const open = writers.get(run.sessionId);
      if (!open) return undefined;
      await open.opened;
      await open.writer.flush();
      return open.writer.stale;
    };
    /**
     * Why the run must stop, once what it wrote is stored or refused: another writer took the
     * session, or the transcript could not be written — reported once in the stream, and the end
     * of the run unless persistSession is "best-effort" (a run nobody can resume is no success).
     */
    const endOf = async (run: RunContext): Promise<RunEnd | undefined> => {
      if (!writers.has(run.sessionId)) return undefined; // nothing written: the hot path of a run without a transcript
      const stale = await staleOf(run);
      if (stale) return new RunEnd(stale.message, "error_stale_writer");
      const open = writers.get(run.sessionId);
      if (!open || open.writer.writeError === undefined) return undefined;
      const bestEffort = context.optionsOf(run).persistSession === "best-effort";
      const error = describeError(open.writer.writeError);
      if (!open.reported) {
        open.reported = true;
        run.emit({ type: "system", subtype: "session_write_failed", path: open.writer.path, error, bestEffort });
      }
      if (bestEffort) return undefined;
      return new RunEnd(
        `The session's transcript could not be written (${open.writer.path}: ${error}), so the run stopped: what it did next could not be resumed. ` +
          `Free the space or fix the store, then resume session ${run.sessionId} (it continues from its last stored record); or set persistSession: "best-effort" to run on without a transcript.`,
        "error_session_write",
      );
    };

    loadOwn = async (request: SessionLoadRequest, run: RunContext): Promise<LoadedSession | undefined> => {
      const store = storeOf(run);
      const sessionId =
        request.sessionId ??
        (request.latest ? (await store.list({ cwd: request.cwd, limit: 1 }))[0]?.sessionId : undefined);
      if (sessionId === undefined) return undefined;
      const found = await store.get(sessionId, run.cwd);
      if (!found) return undefined;
      let { records, path } = found;
      if (found.corruptLines.length > 0) {
        const lines = found.corruptLines;
        warn(
          run.kernel,
          NAME,
          `${path}: line${lines.length === 1 ? "" : "s"} ${lines.join(", ")} could not be read and ${lines.length === 1 ? "was" : "were"} skipped; ` +
            `the other ${records.length} records were kept, and calls or results left without their pair were left out of the replayed conversation`,
        );
      }
      const persist = context.optionsOf(run).persistSession !== false;
      let fork = request.fork;
      let locked: string | undefined;
      if (!fork && persist && store.refusesStaleWriters) {
        // A store that refuses stale writers needs no lock across processes (the loser stops), but
        // two runs of this kernel would share one writer and mix: the second forks, as with files.
        if (claimed.has(sessionId)) {
          fork = true;
          warn(
            run.kernel,
            NAME,
            `session ${sessionId} is in use by another run of this program; this run continues in a fork of it, session ${run.sessionId}, so the two conversations never mix`,
          );
        } else {
          claimed.add(sessionId);
          context.run(run).claimed = sessionId;
        }
      }
      // Files: one writer per transcript through a lock file.
      if (!fork && persist && !store.refusesStaleWriters) {
        // One writer per transcript: a session another run is writing continues in a fork.
        const holder = acquireLock(path);
        if (holder) {
          fork = true;
          warn(
            run.kernel,
            NAME,
            `session ${sessionId} is in use by another run (pid ${holder.pid} on ${holder.host}${holder.since ? ` since ${holder.since}` : ""}); ` +
              `this run continues in a fork of it, session ${run.sessionId}, so the two conversations never mix` +
              (heldElsewhere(holder)
                ? `. That run is on another host or in another container, where it cannot be checked from here: if it is gone, remove ${lockPathOf(path)}`
                : ""),
          );
        } else {
          locked = path;
          releaseOnExit();
        }
      }
      if (fork && persist) {
        // A session in use is forked as of its last finished run: records after it belong to
        // the run still going (its prompt would otherwise land in this conversation too).
        const upTo = request.fork
          ? undefined
          : records.findLast((r) => r.type === "result" && r.message.agentId === undefined)?.uuid;
        if (request.fork || upTo !== undefined) {
          ({ records, path } = await store.forkRecords(sessionId, {
            cwd: run.cwd,
            sessionId: run.sessionId,
            upToUuid: upTo,
          }));
          if (!store.refusesStaleWriters && !acquireLock(path)) locked = path;
        } else {
          records = [];
          path = store.pathFor(run.sessionId, run.cwd);
        }
      }
      Object.assign(context.run(run), { path: fork && !persist ? undefined : path, resumed: true, locked });
      if (!fork && store.refusesStaleWriters) context.run(run).replayedLast = found.records.at(-1)?.uuid ?? null;
      const caps = new Map(run.tools.map((t) => [t.name, t.maxResultChars] as const));
      // A fork keeps this run's own id (the loop adopts the returned one).
      return {
        sessionId: fork ? run.sessionId : found.sessionId,
        history: replay(records, { maxResultChars: (name) => caps.get(name) }),
      };
    };

    kernel.hooks.session.start.tapPromise({ name: NAME, order: "first" }, (run) =>
      resumeSession(run, context.optionsOf(run)),
    );

    kernel.hooks.session.start.tapPromise(NAME, async (run) => {
      if (run.agent || context.optionsOf(run).persistSession === false) return;
      const open = writers.get(run.sessionId);
      if (open) {
        open.runs++;
        await open.opened;
      } else {
        const state = context.run(run);
        const store = storeOf(run);
        const path = state.path ?? store.pathFor(run.sessionId, run.cwd);
        // A new session under a chosen id must not append to a stored one.
        const chosen = context.optionsOf(run).sessionId === run.sessionId && !state.resumed;
        const stored = () =>
          new UbiquityError(
            `a session with id ${run.sessionId} is already stored (${path}); continue it with resume, or choose another id`,
          );
        if (chosen && (await store.exists(run.sessionId, run.cwd))) throw stored();
        if (writers.has(run.sessionId)) return void writers.get(run.sessionId)!.runs++;
        if (!state.locked && !store.refusesStaleWriters) {
          // A new session: lock it before its first line, so a --continue elsewhere forks rather than joins.
          mkdirSync(dirname(path), { recursive: true });
          const holder = acquireLock(path);
          if (!holder) state.locked = path;
          releaseOnExit();
          // Another process that chose the same id checked before this one wrote, or wrote and ended
          // since this one checked: the session is that run's (checked again under the lock).
          if (chosen && holder) {
            throw new UbiquityError(
              `a session with id ${run.sessionId} is being written by another run (pid ${holder.pid} on ${holder.host}${holder.since ? ` since ${holder.since}` : ""}); ` +
                `choose another id, or resume it once that run ended`,
            );
          }
          if (chosen && existsSync(path)) {
            releaseLock(path);
            throw stored();
          }
          // Temp files of forks a crash left behind in this project's folder.
          void removeStaleTemps(dirname(path));
        }
        const writer = new TranscriptWriter(
          store.appender(run.sessionId, run.cwd, path),
          run.cwd,
          run.logger,
          secretsOf(run.options),
        );
        const opened = writer.open(state.replayedLast, !state.resumed);
        writers.set(run.sessionId, { writer, runs: 1, locked: state.locked, opened });
        await opened;
        // A file that cannot be read stops the transcript and is reported at the first request
        // (as a full disk is, endOf); a database that cannot be reached (or no driver) is a setup
        // error the run reports now.
        if (writer.openError !== undefined && store.refusesStaleWriters) {
          writers.delete(run.sessionId);
          throw writer.openError;
        }
      }
    });

    kernel.hooks.event.tap(NAME, (event) => {
      if (event.type === "sessions.note")
        return writers.get(event.sessionId)?.writer.note(event.sessionId, event.kind, event.data);
      if (event.type !== "message" || !isPersisted(event.message)) return;
      writers.get(event.message.sessionId)?.writer.message(event.message);
    });

    kernel.hooks.turn.prompt.tap({ name: NAME, stage: RECORD_PROMPT_STAGE }, (prompt: TurnPrompt, run: RunContext) => {
      if (run.agent) return prompt;
      writers.get(run.sessionId)?.writer.prompt(prompt);
      const state = context.run(run);
      if (!state.resumed || prompt.blocked !== undefined) return prompt;
      state.resumed = false;
      // Recorded above without it: on replay, the two user records merge back into this shape.
      const unanswered = takeTrailingPrompt(run.history);
      return unanswered.length > 0 ? { ...prompt, context: [...unanswered, ...prompt.context] } : prompt;
    });

    // The first request after a compaction carries the compacted history: checkpoint it.
    // Every request waits for what was written before it: a store that refused this writer ends the run here.
    kernel.hooks.model.request.tapPromise({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, async (request, run) => {
      const open = run.agent || (request.purpose ?? "turn") !== "turn" ? undefined : writers.get(run.sessionId);
      if (open?.writer.compacted) open.writer.checkpoint(run.history);
      const end = await endOf(run);
      if (end) throw end;
      return request;
    });

    // A tool runs only once the response that asked for it is stored (its tool_use record is
    // emitted as it starts); a stale writer's tool never runs (the run then ends at its next request).
    kernel.hooks.tool.beforeCall.tapPromise(NAME, async (state, call) => {
      const end = await endOf(call.run);
      return end ? { ...state, block: `Not run: ${end.message}` } : state;
    });

    // The model stopped: its last answer is stored before the run can end well. A store that
    // refused it (another writer appended after the last request) ends the run here, not in a
    // success whose answer the session lacks.
    kernel.hooks.turn.stop.tapPromise(NAME, async (_info, run) => {
      const end = run.agent ? undefined : await endOf(run);
      if (end) throw end;
      return undefined;
    });

    kernel.hooks.session.end.tapPromise(NAME, async (run) => {
      const { claimed: mine } = context.run(run);
      if (mine !== undefined) claimed.delete(mine);
      const open = run.agent ? undefined : writers.get(run.sessionId);
      if (!open || --open.runs > 0) return;
      writers.delete(run.sessionId);
      try {
        await open.writer.close();
      } finally {
        if (open.locked) releaseLock(open.locked);
      }
    });
  },
});

export default sessionsPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
