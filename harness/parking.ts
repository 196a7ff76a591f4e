/**
 * Where a harness keeps its detached sessions alive in this process, so that a later
 * `doStart({ resumeFrom })` with the same session id reattaches to the live Ubiquity session
 * (a pending approval or question included) instead of replaying its transcript.
 */
import type { UbiquityHarnessSession } from "./session";

/** One harness's live sessions parked by `doDetach`/`doSuspendTurn`, by harness session id, until reattached or timed out. */
export class Parking {
  #parked = new Map<string, { session: UbiquityHarnessSession; timer: ReturnType<typeof setTimeout> }>();

  /** Keep `session` alive for `ms`; then it is closed (a later resume continues from its transcript). */
  park(session: UbiquityHarnessSession, ms: number): void {
    clearTimeout(this.#parked.get(session.sessionId)?.timer);
    const timer = setTimeout(() => {
      this.#parked.delete(session.sessionId);
      void session.doDestroy();
    }, ms);
    timer.unref?.();
    this.#parked.set(session.sessionId, { session, timer });
  }

  /** Take a parked session back (it stops its park timer). */
  take(sessionId: string): UbiquityHarnessSession | undefined {
    const entry = this.#parked.get(sessionId);
    if (!entry) return undefined;
    this.#parked.delete(sessionId);
    clearTimeout(entry.timer);
    return entry.session;
  }

  /** Forget `session` if it is the one parked under its id. */
  drop(session: UbiquityHarnessSession): void {
    if (this.#parked.get(session.sessionId)?.session === session) this.take(session.sessionId);
  }
}
