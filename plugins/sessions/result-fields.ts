/** The result subtype the sessions plugin ends a run with: another writer appended to its session. */
export {};

declare module "../../src/messages" {
  interface ResultSubtypes {
    /** The session store refused this run's append: another run wrote the session since (`StaleWriterError`); nothing more of this run was stored. */
    error_stale_writer: true;
  }
}
