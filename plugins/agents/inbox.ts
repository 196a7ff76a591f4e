/**
 * A background agent's inbox: what `SendMessage` delivers, as the loop takes it. It is the
 * agent run's live input (`RunInput`): a message enters the agent's conversation at its next
 * turn boundary, and one that arrives as the agent finishes its reply starts another stretch of
 * work instead of being lost. Once the agent has nothing queued when its work ends, the inbox
 * closes: a later message is refused (the agent has finished), never silently dropped.
 */
import type { RunInput, UserTurn } from "../../src/index";

/** The live input of one background agent. */
export class AgentInbox implements RunInput {
  #items: UserTurn[] = [];
  #closed = false;

  /** Queue a message for the agent; false when the agent has already finished. */
  push(text: string): boolean {
    if (this.#closed) return false;
    this.#items.push({ text });
    return true;
  }

  /** True once the agent finished; read by the loop when a stretch ends, which closes an empty inbox. */
  get ended(): boolean {
    if (this.#items.length === 0) this.#closed = true;
    return this.#closed && this.#items.length === 0;
  }

  /** Refuse every later message (the agent was stopped). */
  close(): void {
    this.#closed = true;
  }

  take(): UserTurn[] {
    return this.#items.splice(0);
  }

  // The loop asks only after `ended` said there is more: never waits.
  async next(): Promise<UserTurn[]> {
    return this.take();
  }

  begin(base: AbortSignal): AbortSignal {
    return base;
  }
}
