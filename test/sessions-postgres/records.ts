/** Records for the Postgres store's tests. */
import type { TranscriptRecord } from "ubiquity/plugins/sessions";

/** A user record whose text is its uuid. */
export function record(sessionId: string, uuid: string, parentUuid: string | null, cwd = "/tmp/p"): TranscriptRecord {
  return {
    uuid,
    parentUuid,
    sessionId,
    type: "user",
    timestamp: new Date().toISOString(),
    cwd,
    message: { type: "user", uuid, sessionId, text: uuid } as TranscriptRecord["message"],
  };
}
