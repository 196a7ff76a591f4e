/**
 * Interrupt latency of a live session (issue 23: "stops it within 100 ms"): a live `summon()`
 * against a local OpenAI-format server streaming without end, behind the real `@ai-sdk/openai`.
 * When the first streamed delta arrives, an `interrupt: true` message is pushed; the figure is
 * the time from that push to the interrupted stretch's `result`. Also the same through a tool
 * that is running (`interrupt()` while a tool waits on its abort signal). Medians of 15.
 */
import { z } from "zod";
import { defineTool, summon, type UserInput } from "../sdk/index";
import { startProviderServer, scriptedModel } from "../src/testing/index";

const ROUNDS = 15;

/** An input the caller pushes to; it ends when told. */
function inbox() {
  const queue: UserInput[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(m: UserInput) {
      queue.push(m);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
      }
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function streamInterrupt(): Promise<number> {
  const server = await startProviderServer([{ fault: "endless" }, "ok"]);
  try {
    const input = inbox();
    input.push("talk forever");
    let sentAt = 0;
    let cutAt = 0;
    const options = {
      model: "openai:gpt-4o",
      apiKey: "sk-bench",
      providerSettings: { baseURL: server.baseURL },
      persistSession: false,
      includePartialMessages: true,
      maxRetries: 0,
    };
    for await (const m of summon(input, options)) {
      if (m.type === "stream_event" && !sentAt) {
        sentAt = performance.now();
        input.push({ type: "user", text: "enough", interrupt: true });
      }
      if (m.type === "result" && !cutAt) cutAt = performance.now();
      else if (m.type === "result") input.end();
    }
    return cutAt - sentAt;
  } finally {
    await server.close();
  }
}

async function toolInterrupt(): Promise<number> {
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const slow = defineTool({
    name: "Slow",
    description: "waits until aborted",
    inputSchema: z.object({}),
    isReadOnly: true,
    execute: (_input, context) =>
      new Promise<string>((resolve) => {
        started();
        context.abortSignal.addEventListener("abort", () => resolve("stopped"), { once: true });
      }),
  });
  const model = scriptedModel([{ toolCalls: [{ toolName: "Slow", input: {} }] }, "after"]);
  const input = inbox();
  input.push("go");
  const session = summon(input, { model, tools: [slow], presets: [] });
  let sentAt = 0;
  void running.then(() => {
    sentAt = performance.now();
    void session.interrupt();
  });
  let cutAt = 0;
  for await (const m of session) {
    if (m.type === "result") {
      cutAt = performance.now();
      input.end();
    }
  }
  return cutAt - sentAt;
}

export default async function main(): Promise<void> {
  for (const [name, once] of [
    ["interrupt during a model stream (real @ai-sdk/openai, local server)", streamInterrupt],
    ["interrupt() during a running tool (scripted model)", toolInterrupt],
  ] as const) {
    await once(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) times.push(await once());
    console.log(
      `${name}: median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (target ≤ 100 ms, ${ROUNDS} rounds)`,
    );
  }
}
