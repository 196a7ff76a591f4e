/** The result subtype the sessions plugin ends a run with: another writer appended to its session. */
export {};

declare module "../../src/messages" {
  interface ResultSubtypes {
    /** The session store refused this run's append: another run wrote the session since (`StaleWriterError`); nothing more of this run was stored. */
    error_stale_writer: true;
    /** The session's transcript could not be written (a full disk, an I/O error) and `persistSession` is not "best-effort": the run stopped there, resumable from the last stored record. */
    error_session_write: true;
  }
}
