/**
 * The store's own loader (`getSessionsApi(kernel).load` asks it first): it finds the session a
 * run resumes or continues, makes sure one writer appends to it — a session another run is
 * writing continues in a fork — and replays its records as the run's history.
 */
import type { RunContext } from "../../src/index";
import { warn } from "../_kits/sources/index";
import type { LoadedSession, SessionLoadRequest } from "./api";
import type { SessionBackend } from "./backend";
import { NAME, type KernelSessions } from "./kernel-sessions";
import { acquireLock, heldElsewhere, lockPathOf, releaseOnExit } from "./lock";
import { lastModelOf, type TranscriptRecord } from "./records";
import { replay } from "./replay";
import type { StoredSession } from "./store";

/** Load the session `request` names from the run's store: undefined when the store has none. */
export async function loadSession(
  sessions: KernelSessions,
  request: SessionLoadRequest,
  run: RunContext,
): Promise<LoadedSession | undefined> {
  const store = sessions.storeOf(run);
  const { sessionId, found } = (await findSession(store, request, run)) ?? {};
  if (sessionId === undefined || !found) return undefined;
  const persist = sessions.context.optionsOf(run).persistSession !== false;
  let { records, path } = found;
  let fork = request.fork;
  let locked: string | undefined;
  if (!fork && persist) ({ fork, locked } = takeSession(sessions, store, sessionId, path, run));
  if (fork && persist) ({ records, path, locked } = await forkOf(store, sessionId, found, request, run, locked));
  Object.assign(sessions.context.run(run), { path: fork && !persist ? undefined : path, resumed: true, locked });
  if (!fork && store.refusesStaleWriters) sessions.context.run(run).replayedLast = found.records.at(-1)?.uuid ?? null;
  const caps = new Map(run.tools.map((t) => [t.name, t.maxResultChars] as const));
  // A fork keeps this run's own id (the loop adopts the returned one).
  const model = lastModelOf(found.records);
  return {
    sessionId: fork ? run.sessionId : found.sessionId,
    history: replay(records, { maxResultChars: (name) => caps.get(name) }),
    ...(model ? { model } : {}),
  };
}

/** The stored session and the id it was asked by: the one named, or the folder's latest; corrupt lines are skipped with a warning. */
async function findSession(
  store: SessionBackend,
  request: SessionLoadRequest,
  run: RunContext,
): Promise<{ sessionId: string; found: StoredSession } | undefined> {
  const sessionId =
    request.sessionId ??
    (request.latest ? (await store.list({ cwd: request.cwd, limit: 1 }))[0]?.sessionId : undefined);
  if (sessionId === undefined) return undefined;
  const found = await store.get(sessionId, run.cwd);
  if (!found) return undefined;
  if (found.corruptLines.length > 0) {
    const lines = found.corruptLines;
    warn(
      run.kernel,
      NAME,
      `${found.path}: line${lines.length === 1 ? "" : "s"} ${lines.join(", ")} could not be read and ${lines.length === 1 ? "was" : "were"} skipped; ` +
        `the other ${found.records.length} records were kept, and calls or results left without their pair were left out of the replayed conversation`,
    );
  }
  return { sessionId, found };
}

/**
 * Take the session for this run, or say it must fork. A store that refuses stale writers needs no
 * lock across processes (the loser stops), but two runs of this kernel would share one writer and
 * mix: the second forks, as with files. Files: one writer per transcript through a lock file.
 */
function takeSession(
  sessions: KernelSessions,
  store: SessionBackend,
  sessionId: string,
  path: string,
  run: RunContext,
): { fork: boolean; locked?: string } {
  if (store.refusesStaleWriters) {
    if (sessions.claimed.has(sessionId)) {
      warn(
        run.kernel,
        NAME,
        `session ${sessionId} is in use by another run of this program; this run continues in a fork of it, session ${run.sessionId}, so the two conversations never mix`,
      );
      return { fork: true };
    }
    sessions.claimed.add(sessionId);
    sessions.context.run(run).claimed = sessionId;
    return { fork: false };
  }
  // One writer per transcript: a session another run is writing continues in a fork.
  const holder = acquireLock(path);
  if (!holder) {
    releaseOnExit();
    return { fork: false, locked: path };
  }
  warn(
    run.kernel,
    NAME,
    `session ${sessionId} is in use by another run (pid ${holder.pid} on ${holder.host}${holder.since ? ` since ${holder.since}` : ""}); ` +
      `this run continues in a fork of it, session ${run.sessionId}, so the two conversations never mix` +
      (heldElsewhere(holder)
        ? `. That run is on another host or in another container, where it cannot be checked from here: if it is gone, remove ${lockPathOf(path)}`
        : ""),
  );
  return { fork: true };
}

/**
 * The fork this run continues in. A session in use is forked as of its last finished run: records
 * after it belong to the run still going (its prompt would otherwise land in this conversation
 * too); with no finished run yet, the fork starts empty.
 */
async function forkOf(
  store: SessionBackend,
  sessionId: string,
  found: StoredSession,
  request: SessionLoadRequest,
  run: RunContext,
  locked: string | undefined,
): Promise<{ records: TranscriptRecord[]; path: string; locked?: string }> {
  const upTo = request.fork
    ? undefined
    : found.records.findLast((r) => r.type === "result" && r.message.agentId === undefined)?.uuid;
  if (!request.fork && upTo === undefined) return { records: [], path: store.pathFor(run.sessionId, run.cwd), locked };
  const { records, path } = await store.forkRecords(sessionId, {
    cwd: run.cwd,
    sessionId: run.sessionId,
    upToUuid: upTo,
  });
  return { records, path, locked: !store.refusesStaleWriters && !acquireLock(path) ? path : locked };
}
