/**
 * A minimal unbounded async queue: producers push (from parallel tool calls, subagents),
 * one consumer iterates. `summon()` yields what the run pushes, in push order.
 */
export class Channel<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #waiter?: () => void;
  #closed = false;

  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake() {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** The next item, or once none is queued, a promise of the channel's next change (done when it is closed and drained). */
  #take(): IteratorResult<T> | Promise<void> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head]!;
      this.#items[this.#head++] = undefined as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return { value, done: false };
    }
    if (this.#closed) return { value: undefined, done: true };
    return new Promise<void>((resolve) => (this.#waiter = resolve));
  }

  // A plain iterator, not an async generator: a queued item costs the consumer's `for await` one
  // settled promise, where a generator would add its own resumption for each of a run's messages.
  [Symbol.asyncIterator](): AsyncIterator<T> {
    const next = (): Promise<IteratorResult<T>> => {
      const taken = this.#take();
      return taken instanceof Promise ? taken.then(next) : Promise.resolve(taken);
    };
    return { next };
  }
}
