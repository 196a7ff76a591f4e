/** The input of a live session the runner writes to (the terminal mode's prompts, an editor's). */

/** An async iterable that yields what is pushed, in order, until `close()`. */
export function pushInput<T>(): { input: AsyncIterable<T>; push(item: T): void; close(): void } {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  return {
    input: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (queue.length) yield queue.shift()!;
          if (closed) return;
          await new Promise<void>((r) => (wake = r));
        }
      },
    },
    push(item) {
      queue.push(item);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}
