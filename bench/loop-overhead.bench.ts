/**
 * Loop overhead: a 200-turn scripted run with three trivial tools through `summon()`, against a
 * hand-written bare AI SDK `streamText` loop driving the same scripted model and tools.
 * Prints both medians and the ratio (target ≤ 1.15).
 */
import { jsonSchema, streamText, type ModelMessage, type ToolSet } from "ai";
import { z } from "zod";
import { summon, defineTool, toolJsonSchema, type Tool } from "../sdk/index";
import { scriptedModel } from "../src/testing/index";

const TURNS = 200;
const ROUNDS = 7;

function makeTools(): Tool[] {
  const schema = z.object({ n: z.number() });
  return ["Add", "Double", "Negate"].map((name, i) =>
    defineTool({
      name,
      description: `${name} a number`,
      inputSchema: schema,
      isReadOnly: true,
      isConcurrencySafe: true,
      execute: ({ n }) => String(i === 0 ? n + 1 : i === 1 ? n * 2 : -n),
    }),
  );
}

function makeModel() {
  return scriptedModel(({ index }) =>
    index < TURNS - 1
      ? {
          text: `step ${index}`,
          toolCalls: [
            { toolName: "Add", input: { n: index } },
            { toolName: "Double", input: { n: index } },
            { toolName: "Negate", input: { n: index } },
          ],
          usage: { inputTokens: 100, outputTokens: 10 },
        }
      : { text: "done", usage: { inputTokens: 100, outputTokens: 10 } },
  );
}

async function viaSummon(presets: "none" | "default"): Promise<number> {
  const model = makeModel();
  const started = performance.now();
  let turns = 0;
  for await (const m of summon("go", {
    model,
    tools: makeTools(),
    maxTurns: TURNS + 1,
    persistSession: false,
    persistTodos: false,
    ...(presets === "none" ? { presets: [] } : {}),
  })) {
    if (m.type === "result") {
      if (m.isError) throw new Error(m.result);
      turns = m.numTurns;
    }
  }
  if (turns !== TURNS) throw new Error(`expected ${TURNS} turns, got ${turns}`);
  return performance.now() - started;
}

async function bare(): Promise<number> {
  const model = makeModel();
  const tools = makeTools();
  const byName = new Map(tools.map((t) => [t.name, t] as const));
  const toolSet: ToolSet = {};
  for (const t of tools) toolSet[t.name] = { description: t.description, inputSchema: jsonSchema(toolJsonSchema(t) as never) };
  const started = performance.now();
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  let turns = 0;
  for (;;) {
    const result = streamText({ model, messages, tools: toolSet, maxRetries: 0 });
    const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
    for await (const part of result.fullStream) if (part.type === "tool-call") calls.push(part);
    messages.push(...(await result.response).messages);
    turns++;
    if (calls.length === 0) break;
    const outputs = await Promise.all(
      calls.map(async (c) => {
        const tool = byName.get(c.toolName)!;
        const input = tool.inputSchema.parse(c.input);
        const out = await tool.call(input, undefined as never);
        return { type: "tool-result" as const, toolCallId: c.toolCallId, toolName: c.toolName, output: { type: "text" as const, value: out.content } };
      }),
    );
    messages.push({ role: "tool", content: outputs });
  }
  if (turns !== TURNS) throw new Error(`expected ${TURNS} turns, got ${turns}`);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function loopOverhead(): Promise<void> {
  // warm-up: JIT and module caches
  await bare();
  await viaSummon("none");
  await viaSummon("default");
  const b: number[] = [];
  const s: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    b.push(await bare());
    s.push(await viaSummon("none"));
    d.push(await viaSummon("default"));
  }
  const mb = median(b);
  const ms = median(s);
  const md = median(d);
  console.log(`${TURNS}-turn run, 3 tools per turn, median of ${ROUNDS}`);
  console.log(`bare streamText loop:          ${mb.toFixed(1)} ms`);
  console.log(`summon() (kernel, no plugins): ${ms.toFixed(1)} ms   ratio ${(ms / mb).toFixed(3)} (target ≤ 1.15)`);
  console.log(`summon() (default preset):     ${md.toFixed(1)} ms   ratio ${(md / mb).toFixed(3)}`);
}
