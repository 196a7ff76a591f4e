/** The result subtype a worker's run ends with when its job went to another worker. */
export {};

declare module "../../src/messages" {
  interface ResultSubtypes {
    /** The worker lost the job's lock (frozen or cut off past the lock duration): another worker has the run; nothing more of this one is meant to be stored. */
    error_lost_lease: true;
  }
}
