/**
 * How long a provider fault takes to end a run (the figure test/faults/model-faults.test.ts used to
 * assert as "within 3 s per attempt", which a loaded machine broke): a run through the real
 * `@ai-sdk/openai` against a local server that faults on both attempts (maxRetries: 1), with the
 * tests' limits (requestTimeoutMs and streamIdleTimeoutMs 500, maxTokens 50, retryMaxWaitMs 50).
 * The figure is the time from `summon()` to its `result`; median and worst of 5 per fault.
 * Measured 2026-12-04 on the 2-core machine at load ~20 (other sessions' test suites): silent
 * 1.15 s median (worst 1.66), stall after headers 1.06 (1.28), stall mid-stream 1.17 (1.44),
 * endless 0.12 (0.17), reset mid-stream 0.21 (0.24).
 */
import { summon, type SummonOptions } from "../sdk/index";
import { startProviderServer, type FakeTurn } from "../src/testing/index";
import modelPlugin from "../plugins/model/index";
import retryPlugin from "../plugins/retry/index";

const ROUNDS = 5;
const FAULTS = ["silent", "stall-after-headers", "stall-mid-stream", "endless", "reset-mid-stream"] as const;
const limits = { requestTimeoutMs: 500, streamIdleTimeoutMs: 500, maxTokens: 50, maxRetries: 1, retryMaxWaitMs: 50 };

async function once(fault: (typeof FAULTS)[number]): Promise<number> {
  const server = await startProviderServer([{ fault }, { fault }, "never reached"] as FakeTurn[]);
  try {
    const options: SummonOptions = {
      presets: [],
      plugins: [modelPlugin(), retryPlugin()],
      model: "openai.chat:gpt-4o",
      apiKey: "sk-test",
      providerSettings: { baseURL: server.baseURL },
      ...limits,
    };
    const start = performance.now();
    let result = "";
    for await (const m of summon("hi", options)) if (m.type === "result") result = m.result;
    const took = performance.now() - start;
    if (server.requests.length !== 2) throw new Error(`${fault}: ${server.requests.length} requests, not 2: ${result}`);
    return took;
  } finally {
    await server.close();
  }
}

export default async function bench(): Promise<void> {
  for (const fault of FAULTS) {
    const t: number[] = [];
    for (let i = 0; i < ROUNDS; i++) t.push(await once(fault));
    t.sort((a, b) => a - b);
    console.log(
      `${fault}: two attempts ended the run in ${(t[Math.floor(ROUNDS / 2)]! / 1000).toFixed(2)} s median, ${(t.at(-1)! / 1000).toFixed(2)} s worst`,
    );
  }
}
