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

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#head < this.#items.length) {
        const item = this.#items[this.#head]!;
        this.#items[this.#head++] = undefined as T;
        if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
          this.#items = this.#items.slice(this.#head);
          this.#head = 0;
        }
        yield item;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }
}
