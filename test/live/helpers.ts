import { z } from "zod";
import { defineTool, type UserInput } from "ubiquity";

/** A live session's input the test writes to: an async iterable open until `end()`. */
export function inbox() {
  const queue: UserInput[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const state = { returned: false };
  const box = {
    state,
    push(message: UserInput) {
      queue.push(message);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    [Symbol.asyncIterator](): AsyncIterator<UserInput> {
      return {
        async next() {
          for (;;) {
            if (queue.length) return { value: queue.shift()!, done: false };
            if (ended || state.returned) return { value: undefined, done: true };
            await new Promise<void>((r) => (wake = r));
          }
        },
        async return() {
          state.returned = true;
          wake?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
  return box;
}

/** A promise and its resolve. */
export function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A tool that runs until released (or aborted); it reports when it starts and whether it saw its abort. */
export function slowTool(name = "Slow") {
  const started = signal();
  const release = signal();
  const seen = { aborted: false, calls: 0 };
  const tool = defineTool({
    name,
    description: "Wait until released.",
    inputSchema: z.object({}),
    async execute(_input, ctx) {
      seen.calls++;
      started.resolve();
      const aborted = new Promise<void>((r) => ctx.abortSignal.addEventListener("abort", () => r(), { once: true }));
      await Promise.race([release.promise, aborted]);
      if (ctx.abortSignal.aborted) {
        seen.aborted = true;
        return { content: "stopped: aborted", isError: true };
      }
      return "slow done";
    },
  });
  return { tool, started: started.promise, release: () => release.resolve(), seen };
}

/** The role/content pairs of a scripted model request's prompt, compacted for assertions. */
export function promptShape(prompt: { role: string; content: unknown }[]): string[] {
  return prompt.map((m) => {
    if (typeof m.content === "string") return `${m.role}:${m.content}`;
    const parts = m.content as { type: string; text?: string; toolCallId?: string; output?: { value?: unknown } }[];
    return `${m.role}:${parts.map((p) => (p.type === "text" ? p.text : p.type === "tool-result" ? `result(${p.toolCallId}:${String(p.output?.value)})` : p.type === "tool-call" ? `call(${p.toolCallId})` : p.type)).join("|")}`;
  });
}
