/** The sessions plugin's event: a plugin asks for a note to be kept in a session's transcript. */

/** Keep `data` as a note of `kind` in the transcript of `sessionId` (written only while that session is being written). */
export interface TranscriptNoteEvent {
  type: "sessions.note";
  sessionId: string;
  kind: string;
  data: Record<string, unknown>;
}

declare module "../../src/hooks" {
  interface PluginEvents {
    "sessions.note": TranscriptNoteEvent;
  }
}
