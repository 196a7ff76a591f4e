/**
 * `session.start`: the run's transcript writer. A run of a session this kernel is already writing
 * joins its writer (counted); otherwise the writer opens — a new session is locked before its
 * first line, and a new session under a chosen id must not append to a stored one.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { secretsOfRun, UbiquityError, type RunContext } from "../../src/index";
import { removeStaleTemps } from "../_kits/storage/index";
import type { KernelSessions, RunState } from "./kernel-sessions";
import { acquireLock, releaseLock, releaseOnExit } from "./lock";
import { TranscriptWriter } from "./writer";

/** Open (or join) the writer of `run`'s session; a subagent, or a run that keeps no transcript, writes none of its own. */
export async function startTranscript(sessions: KernelSessions, run: RunContext): Promise<void> {
  if (run.agent || sessions.context.optionsOf(run).persistSession === false) return;
  const open = sessions.writers.get(run.sessionId);
  if (open) {
    open.runs++;
    await open.opened;
  } else await openTranscript(sessions, run);
}

/** The error of a new session whose chosen id is a stored session's. */
const storedError = (run: RunContext, path: string) =>
  new UbiquityError(
    `a session with id ${run.sessionId} is already stored (${path}); continue it with resume, or choose another id`,
  );

/** Open the writer of a session this kernel is not writing yet. */
async function openTranscript(sessions: KernelSessions, run: RunContext): Promise<void> {
  const { writers } = sessions;
  const state = sessions.context.run(run);
  const store = sessions.storeOf(run);
  const path = state.path ?? store.pathFor(run.sessionId, run.cwd);
  // A new session under a chosen id must not append to a stored one.
  const chosen = sessions.context.optionsOf(run).sessionId === run.sessionId && !state.resumed;
  if (chosen && (await store.exists(run.sessionId, run.cwd))) throw storedError(run, path);
  if (writers.has(run.sessionId)) return void writers.get(run.sessionId)!.runs++;
  if (!state.locked && !store.refusesStaleWriters) lockNewSession(run, state, path, chosen);
  const writer = new TranscriptWriter(
    store.appender(run.sessionId, run.cwd, path),
    run.cwd,
    run.logger,
    secretsOfRun(run),
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

/** A new session: lock it before its first line, so a --continue elsewhere forks rather than joins. */
function lockNewSession(run: RunContext, state: RunState, path: string, chosen: boolean): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
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
    throw storedError(run, path);
  }
  // Temp files of forks a crash left behind in this project's folder.
  void removeStaleTemps(dirname(path));
}
