/**
 * The checkpoints API (exported from `ubiquity`): list a session's checkpoints, rewind the files
 * to one, fork the conversation at one. A checkpoint is found through the session's transcript
 * (its `checkpoint` notes name the store and commit), or, for a session without a transcript,
 * in the project's default store.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { UbiquityError } from "../../src/index";
import { isInside } from "../_kits/paths/index";
import { storageRoot } from "../_kits/storage/index";
import { SessionNotFoundError, SessionStore, type StoredSession } from "../sessions/index";
import { rewindTo, type RewindResult } from "./rewind";
import { ShadowStore, storeDirFor, type StoredCheckpoint } from "./store";
import { CheckpointNotFoundError } from "./errors";

/** Where to look: the project folder the session ran in, and the sessions root. */
export interface CheckpointQuery {
  /** The session's project folder [process.cwd()]. */
  cwd?: string;
  /** The sessions root [~/.ubiquity/sessions]. */
  sessionDir?: string;
  /**
   * The checkpoint stores' root the run used (its `checkpoints.dir`) [~/.ubiquity/checkpoints]:
   * only read for a session without a transcript (a transcript's notes name their store).
   */
  checkpointDir?: string;
}

/** One checkpoint of a session. */
export interface CheckpointInfo extends StoredCheckpoint {
  /** The text of the prompt whose run took it (from the transcript). */
  prompt?: string;
}

export { CheckpointNotFoundError };

/** The note the plugin keeps in the transcript for each checkpoint. */
export interface CheckpointNote {
  messageUuid: string;
  promptUuid?: string;
  commit: string;
  store: string;
}

async function sessionOf(sessionId: string, query: CheckpointQuery): Promise<{ cwd: string; session?: StoredSession }> {
  const cwd = resolve(query.cwd ?? process.cwd());
  const store = new SessionStore({ dir: storageRoot(query.sessionDir, cwd, "sessions") });
  return { cwd, session: await store.get(sessionId, cwd) };
}

async function checkpointsOf(
  sessionId: string,
  cwd: string,
  session: StoredSession | undefined,
  dir?: string,
): Promise<CheckpointInfo[]> {
  const notes = (session?.notes ?? [])
    .filter((n) => n.kind === "checkpoint")
    .map((n) => n.data as unknown as CheckpointNote);
  const prompts = new Map<string, string>();
  for (const r of session?.records ?? []) if (r.message.type === "user") prompts.set(r.uuid, r.message.text);
  let found: StoredCheckpoint[];
  if (notes.length > 0) {
    found = [];
    // The commits the session's refs keep, by store: a pruned checkpoint (its ref gone) is no longer
    // there, even while its objects wait out the prune's grace.
    const kept = new Map<string, Promise<Set<string>>>();
    for (const note of notes) {
      // A store removed since is a checkpoint no longer there; the others still count.
      const store = new ShadowStore(note.store);
      if (!store.isShadowStore()) continue;
      if (!kept.has(store.dir))
        kept.set(
          store.dir,
          store.kept(sessionId).catch(() => new Set()),
        );
      if (!(await kept.get(store.dir)!).has(note.commit)) continue;
      const read = await store.read(note.commit).catch(() => undefined);
      // A note naming another session's checkpoint is not this session's (a forged or copied note).
      if (read && read.sessionId === sessionId) found.push(read);
    }
  } else found = await new ShadowStore(storeDirFor(session?.cwd ?? cwd, dir)).list(sessionId);
  return found.map((c) => ({
    ...c,
    ...(c.promptUuid && prompts.has(c.promptUuid) ? { prompt: prompts.get(c.promptUuid) } : {}),
  }));
}

/** The checkpoints of a session, oldest first. */
export async function listCheckpoints(sessionId: string, query: CheckpointQuery = {}): Promise<CheckpointInfo[]> {
  const { cwd, session } = await sessionOf(sessionId, query);
  return checkpointsOf(sessionId, cwd, session, query.checkpointDir);
}

/**
 * The checkpoint a message uuid stands for: the one taken in that message's turn (an assistant
 * message), or else the first taken after the message (a user message: the state before its
 * run changed anything). Null when the agent changed nothing after it.
 */
function pick(
  checkpoints: CheckpointInfo[],
  session: StoredSession | undefined,
  messageUuid: string,
  sessionId: string,
): CheckpointInfo | null {
  const direct = checkpoints.find((c) => c.messageUuid === messageUuid || c.commit === messageUuid);
  if (direct) return direct;
  const records = session?.records ?? [];
  const at = records.findIndex((r) => r.uuid === messageUuid);
  if (at < 0) {
    throw new CheckpointNotFoundError(
      `session ${sessionId} has no message or checkpoint ${JSON.stringify(messageUuid)}: list them with \`ubiquity rewind --session ${sessionId}\``,
    );
  }
  const index = new Map(records.map((r, i) => [r.uuid, i] as const));
  return checkpoints.find((c) => (index.get(c.messageUuid) ?? -1) >= at) ?? null;
}

/** Options of `rewindFiles`. */
export interface RewindOptions extends CheckpointQuery {
  /** Say what would change, change nothing [false]. */
  dryRun?: boolean;
}

/**
 * Restore the files of the session's permitted folders as they were before `messageUuid`'s turn
 * changed them: changed files restored, files created since removed, files deleted since
 * recreated. Refuses (throws `ActiveRunError`) while a run with checkpoints is active there.
 */
export async function rewindFiles(
  sessionId: string,
  messageUuid: string,
  options: RewindOptions = {},
): Promise<RewindResult> {
  const { cwd, session } = await sessionOf(sessionId, options);
  const checkpoints = await checkpointsOf(sessionId, cwd, session, options.checkpointDir);
  if (!session && checkpoints.length === 0)
    throw new SessionNotFoundError(
      `No stored session or checkpoint with id "${sessionId}": check the id (ubiquity sessions list)`,
    );
  const target = pick(checkpoints, session, messageUuid, sessionId);
  if (!target) return { checkpoint: null, dryRun: options.dryRun === true, changes: [], refused: [], notCovered: [] };
  confine(target, cwd, options.checkpointDir);
  return rewindTo(target, options.dryRun === true);
}

const real = (path: string) => {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
};

/**
 * A checkpoint's folders come from its store's commit, and the store from a transcript note: a
 * transcript inside the project (`sessionDir` there) is workspace content, so a forged note can
 * name a store holding any folders. Folders outside the cwd asked about are rewound only from this
 * project's own store kept outside the cwd; otherwise the rewind refuses before reading or writing.
 */
function confine(checkpoint: StoredCheckpoint, cwd: string, checkpointDir: string | undefined): void {
  const home = real(cwd);
  const outside = checkpoint.roots.filter((r) => !isInside(home, real(r)));
  if (outside.length === 0) return;
  const own = real(storeDirFor(cwd, checkpointDir));
  if (real(checkpoint.store) === own && !isInside(home, own)) return;
  const why =
    real(checkpoint.store) === own
      ? `from this project's store ${own}, which lies inside ${cwd} where the workspace can write it: refused (a checkpoint there may be forged); keep checkpoints.dir outside the project to rewind other folders`
      : `from the store ${checkpoint.store}, not this project's store ${own}: refused (a transcript note may be forged); rewind from the project's own store (pass checkpointDir when the run set checkpoints.dir)`;
  throw new UbiquityError(
    `checkpoint ${checkpoint.commit} covers ${outside.join(", ")}, outside ${cwd}, and comes ${why}`,
  );
}

/**
 * Fork the session just before `messageUuid`: a new session holding every record before it
 * (the stored one stays as it was). Resume the returned id to go on from there.
 */
export async function rewindConversation(
  sessionId: string,
  messageUuid: string,
  options: CheckpointQuery = {},
): Promise<{ sessionId: string }> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const store = new SessionStore({ dir: storageRoot(options.sessionDir, cwd, "sessions") });
  const session = await store.get(sessionId, cwd);
  if (!session)
    throw new SessionNotFoundError(
      `No stored session with id "${sessionId}" in ${store.dir}: check the id (ubiquity sessions list)`,
    );
  const at = session.records.findIndex((r) => r.uuid === messageUuid);
  if (at < 0)
    throw new CheckpointNotFoundError(
      `session ${sessionId} has no message ${JSON.stringify(messageUuid)}: see ubiquity sessions show ${sessionId} --json`,
    );
  if (at === 0)
    throw new CheckpointNotFoundError(
      `${messageUuid} is the session's first message: nothing comes before it to keep; start a new session instead`,
    );
  return { sessionId: await store.fork(sessionId, { upToUuid: session.records[at - 1]!.uuid, cwd }) };
}

export type { RewindResult, FileChange, FileAction, RefusedChange } from "./rewind";
export { ActiveRunError } from "./rewind";
export type { NotCovered, NotCoveredReason, StoredCheckpoint } from "./store";
