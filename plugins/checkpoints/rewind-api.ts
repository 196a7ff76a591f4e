/**
 * The checkpoint functions the package entry exports (\`listCheckpoints\`, \`rewindFiles\`,
 * \`rewindConversation\`), each loading its code (api.ts: the shadow store, git, the rewind) on
 * its first call: \`import "ubiquity"\` and a run that writes nothing never load it (issue 40).
 * The signatures and documentation are api.ts's; the errors are errors.ts's.
 */
import { lazyImport } from "../_kits/lazy/index";
import type { CheckpointInfo, CheckpointQuery, RewindOptions, RewindResult } from "./api";

export { ActiveRunError, CheckpointNotFoundError } from "./errors";

const api = lazyImport(() => import("./api"));

/** The checkpoints of a session, oldest first. */
export async function listCheckpoints(sessionId: string, query: CheckpointQuery = {}): Promise<CheckpointInfo[]> {
  return (await api()).listCheckpoints(sessionId, query);
}

/**
 * Restore the files of the session's permitted folders as they were before \`messageUuid\`'s turn
 * changed them: changed files restored, files created since removed, files deleted since
 * recreated. Refuses (throws \`ActiveRunError\`) while a run with checkpoints is active there.
 */
export async function rewindFiles(
  sessionId: string,
  messageUuid: string,
  options: RewindOptions = {},
): Promise<RewindResult> {
  return (await api()).rewindFiles(sessionId, messageUuid, options);
}

/**
 * Fork the session just before \`messageUuid\`: a new session holding every record before it
 * (the stored one stays as it was). Resume the returned id to go on from there.
 */
export async function rewindConversation(
  sessionId: string,
  messageUuid: string,
  options: CheckpointQuery = {},
): Promise<{ sessionId: string }> {
  return (await api()).rewindConversation(sessionId, messageUuid, options);
}
