/** The input of a live Ubiquity session the adapter writes to: an async iterable open until `end()`. */
import type { UserInput } from "../sdk/live";

/** A queue of user inputs that `summon()` reads as a live session. */
export class Inbox implements AsyncIterable<UserInput> {
  #queue: UserInput[] = [];
  #wake?: () => void;
  #ended = false;

  /** Queue one message (it enters at the session's next turn boundary). */
  push(input: UserInput): void {
    this.#queue.push(input);
    this.#wake?.();
  }

  /** End the input: the session ends once what is queued is answered. */
  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<UserInput> {
    for (;;) {
      const next = this.#queue.shift();
      if (next !== undefined) yield next;
      else if (this.#ended) return;
      else await new Promise<void>((wake) => (this.#wake = wake));
    }
  }
}
