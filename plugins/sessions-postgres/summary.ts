/** The `summary` column: what `list()` shows of a session, kept as its records arrive. */
import { summarize, type TranscriptRecord } from "../sessions/index";

/** The summary of records: the first prompt's, or null while the session has none. */
export function summaryOf(records: readonly TranscriptRecord[]): string | null {
  return records.some((r) => r.message.type === "user" && r.message.agentId === undefined) ? summarize(records) : null;
}
