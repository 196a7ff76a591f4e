/**
 * The record a worker appends when it takes a run over, before anything else: it becomes the
 * session's last record, so every later append of the lost worker (which expects its own last
 * record) is refused by the store. `fleet logs` shows it; replay skips it (a system record).
 */
import { randomUUID } from "node:crypto";
import type { TranscriptRecord } from "../sessions/index";

/** The `system` subtype of a takeover record. */
export const TAKEOVER_SUBTYPE = "fleet_takeover";

/** A takeover record chained onto `last` (the main conversation's last record). */
export function takeoverRecord(
  last: TranscriptRecord,
  info: { worker: string; attempt: number; inFlight: number },
): TranscriptRecord {
  const uuid = randomUUID();
  const message = {
    type: "system",
    subtype: TAKEOVER_SUBTYPE,
    uuid,
    sessionId: last.sessionId,
    ...info,
  } as unknown as TranscriptRecord["message"];
  return {
    uuid,
    parentUuid: last.uuid,
    sessionId: last.sessionId,
    type: "system",
    timestamp: new Date().toISOString(),
    cwd: last.cwd,
    message,
  };
}
