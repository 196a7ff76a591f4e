/**
 * Loop overhead: a 200-turn scripted run with three trivial tools through `summon()`, against a
 * hand-written bare AI SDK `streamText` loop driving the same scripted model and tools.
 * Prints medians of wall and CPU time and their ratios (target ≤ 1.05; the CPU ratio is the one to
 * read on a shared machine).
 *
 * What the two sides do alike: the same scripted model and answers, the same three tools with the
 * same JSON schemas, one `streamText` per turn reading `fullStream` then `response`, each input
 * parsed by the tool's zod schema, the history grown by the SDK's response messages and one tool
 * message a turn. What only `summon()` does: build a kernel (and, with the preset, apply every
 * plugin) per run, stamp and yield every message (~1,400 a run) to the consumer, hand every model
 * call an abort signal and bound it in time (the SDK adds its own listeners to a signal it is
 * given: the "signal per call" row is the bare loop with just that), and bound every tool call.
 * The order of the sides turns each round, so no side always runs after the one that left the
 * most garbage.
 */
import { loadavg } from "node:os";
import { jsonSchema, streamText, type ModelMessage, type ToolSet } from "ai";
import { z } from "zod";
import { summon, defineTool, type Tool } from "../sdk/index";
import { toolJsonSchema } from "../src/index";
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

/** Wall and CPU (user + system) milliseconds of one run; CPU moves less when the machine is shared. */
interface Took {
  wall: number;
  cpu: number;
}

const clock = () => ({ wall: performance.now(), cpu: process.cpuUsage() });
const since = (start: ReturnType<typeof clock>): Took => {
  const cpu = process.cpuUsage(start.cpu);
  return { wall: performance.now() - start.wall, cpu: (cpu.user + cpu.system) / 1000 };
};

async function viaSummon(presets: "none" | "default"): Promise<Took> {
  const model = makeModel();
  const started = clock();
  let turns = 0;
  for await (const m of summon("go", {
    model,
    tools: makeTools(),
    maxTurns: TURNS + 1,
    // Without plugins these are unknown keys (their plugins declare them).
    ...(presets === "none" ? { presets: [] } : { persistSession: false, persistTodos: false }),
  })) {
    if (m.type === "result") {
      if (m.isError) throw new Error(m.result);
      turns = m.numTurns;
    }
  }
  if (turns !== TURNS) throw new Error(`expected ${TURNS} turns, got ${turns}`);
  return since(started);
}

async function bare(signal = false): Promise<Took> {
  const model = makeModel();
  const tools = makeTools();
  const byName = new Map(tools.map((t) => [t.name, t] as const));
  const toolSet: ToolSet = {};
  for (const t of tools)
    toolSet[t.name] = { description: t.description, inputSchema: jsonSchema(toolJsonSchema(t) as never) };
  const started = clock();
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  let turns = 0;
  for (;;) {
    const result = streamText({
      model,
      messages,
      tools: toolSet,
      maxRetries: 0,
      ...(signal ? { abortSignal: new AbortController().signal } : {}),
    });
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
        return {
          type: "tool-result" as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          output: { type: "text" as const, value: out.content },
        };
      }),
    );
    messages.push({ role: "tool", content: outputs });
  }
  if (turns !== TURNS) throw new Error(`expected ${TURNS} turns, got ${turns}`);
  return since(started);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function loopOverhead(): Promise<void> {
  // warm-up: JIT and module caches
  await bare();
  await bare(true);
  await viaSummon("none");
  await viaSummon("default");
  const b: Took[] = [];
  const g: Took[] = [];
  const s: Took[] = [];
  const d: Took[] = [];
  const sides: [() => Promise<Took>, Took[]][] = [
    [() => bare(), b],
    [() => bare(true), g],
    [() => viaSummon("none"), s],
    [() => viaSummon("default"), d],
  ];
  for (let i = 0; i < ROUNDS; i++)
    for (let k = 0; k < sides.length; k++) {
      const [run, into] = sides[(i + k) % sides.length]!;
      into.push(await run());
    }
  const of = (xs: Took[]) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });
  const mb = of(b);
  const line = (label: string, m: Took, target = "") =>
    console.log(
      `${label.padEnd(31)} ${m.wall.toFixed(1).padStart(7)} ms (cpu ${m.cpu.toFixed(1)} ms)   ratio ${(m.wall / mb.wall).toFixed(3)} (cpu ${(m.cpu / mb.cpu).toFixed(3)})${target}`,
    );
  console.log(
    `${TURNS}-turn run, 3 tools per turn, median of ${ROUNDS}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  line("bare streamText loop:", mb);
  line("bare loop, signal per call:", of(g));
  line("summon() (kernel, no plugins):", of(s), " (target ≤ 1.05)");
  line("summon() (default preset):", of(d));
}
