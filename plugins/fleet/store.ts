/**
 * The fleet's view of the session store: the records of a session (to resume it, to find the
 * tool call a lost worker left in flight, to stream `fleet logs`), and the run options that make
 * a run write its transcript there.
 */
import { SessionStore, type TranscriptRecord } from "../sessions/index";

/** What the fleet needs of a session store. */
export interface FleetStore {
  /** A session's records in append order; [] when the store does not know it. */
  records(sessionId: string): Promise<TranscriptRecord[]>;
  /** The run options that make a run persist to (and resume from) this store. */
  runOptions(): Record<string, unknown>;
  close(): Promise<void>;
}

/** A folder of JSONL transcripts (one machine only: for development and single-host fleets). */
export function jsonlStore(dir: string): FleetStore {
  const store = new SessionStore({ dir });
  return {
    async records(sessionId) {
      return (await store.get(sessionId))?.records ?? [];
    },
    runOptions: () => ({ sessionDir: dir }),
    close: async () => {},
  };
}

/** The store a URL or path names. */
export async function openStore(url: string): Promise<FleetStore> {
  return jsonlStore(url);
}
