import type { MessageBase } from "../../src/index";

/** The session's transcript could not be written (a full disk, an I/O error, a database gone): nothing after this is stored. */
export interface SystemSessionWriteFailedMessage extends MessageBase {
  type: "system";
  subtype: "session_write_failed";
  /** Where the transcript is kept. */
  path: string;
  /** What the store said (`ENOSPC: no space left on device, write`). */
  error: string;
  /** True with `persistSession: "best-effort"`: the run goes on without a transcript; otherwise it ends with `error_session_write`. */
  bestEffort: boolean;
}

declare module "../../src/messages" {
  interface PluginMessages {
    "system/session_write_failed": SystemSessionWriteFailedMessage;
  }
}
