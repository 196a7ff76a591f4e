/**
 * Prefix stability: a 50-turn scripted run through `summon()` with the default preset records
 * every request in provider cache order (tool definitions, system prompt, messages, one JSON
 * line each) and prints the share of each request that repeats the previous one byte for byte
 * as its prefix — the part a provider can read from cache. Target: 100% on every turn without
 * compaction. A second run has a plugin revise a tool description mid-run and prints what the
 * cache-break detector reports; the scripted provider reports cache reads as the byte prefix
 * shared with the previous request (chars / 4), the way a prefix cache behaves.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { definePlugin, summon, type Logger, type Message, type Plugin, type Tool } from "../sdk/index";
import { scriptedModel, type ScriptedTurn } from "../src/testing/index";

const TURNS = 50;
const FILES = 12;

/** A request in provider cache order, one JSON line per block. */
function body(request: LanguageModelV4CallOptions): string {
  return [...(request.tools ?? []).map((t) => JSON.stringify(t)), ...request.prompt.map((m) => JSON.stringify(m))].join(
    "\n",
  );
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The tool calls of turn `i`: reads, searches, a todo update and a shell command in rotation. */
function callsFor(i: number): { toolName: string; input: unknown }[] {
  switch (i % 5) {
    case 0:
      return [{ toolName: "Read", input: { file_path: `src/module-${i % FILES}.ts` } }];
    case 1:
      return [
        { toolName: "Grep", input: { pattern: `export function f${i % 7}` } },
        { toolName: "Glob", input: { pattern: "src/**/*.ts" } },
      ];
    case 2:
      return [
        {
          toolName: "TodoWrite",
          input: {
            todos: [
              { content: `Step ${i}`, status: "in_progress" },
              { content: "Finish", status: "pending" },
            ],
          },
        },
      ];
    case 3:
      return [{ toolName: "Bash", input: { command: `echo step ${i}` } }];
    default:
      return [{ toolName: "Read", input: { file_path: `src/module-${(i * 5) % FILES}.ts` } }];
  }
}

/** A scripted model whose usage is a prefix cache's: reads = bytes shared with the previous request / 4. */
function cachingScriptedModel(bodies: string[]) {
  return scriptedModel(({ index, request }) => {
    const current = body(request);
    const previous = bodies.at(-1);
    bodies.push(current);
    const shared = previous === undefined ? 0 : commonPrefix(previous, current);
    const cacheRead = shared >= 4_096 ? Math.floor(shared / 4) : 0; // under ~1k tokens nothing is cached
    const inputTokens = Math.ceil(current.length / 4);
    const usage = {
      inputTokens,
      outputTokens: 40,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: inputTokens - cacheRead,
    };
    const turn: ScriptedTurn =
      index < TURNS - 1 ? { text: `Turn ${index + 1}.`, toolCalls: callsFor(index), usage } : { text: "Done.", usage };
    return turn;
  });
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "ubq-bench-prefix-"));
  const src = join(dir, "src");
  mkdirSync(src);
  writeFileSync(join(dir, "README.md"), "# bench project\n");
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from(
      { length: 80 },
      (_, l) => `export function f${(f + l) % 7}_${l}(x: number): number {\n  return x * ${l} + ${f};\n}`,
    );
    writeFileSync(join(src, `module-${f}.ts`), `${lines.join("\n")}\n`);
  }
  return dir;
}

const quietLogger = (warnings: string[]): Logger => ({
  debug() {},
  info() {},
  warn: (...a: unknown[]) => void warnings.push(a.map(String).join(" ")),
  error() {},
});

async function run(options: { plugins?: Plugin[]; maxContextTokens: number; detectCacheBreaks?: boolean }) {
  const cwd = project();
  const bodies: string[] = [];
  const warnings: string[] = [];
  const compactedBefore = new Map<number, string>();
  let responses = 0;
  const summarizer = scriptedModel(
    () => ({ text: "Summary: the agent read modules, searched for functions and kept a todo list." }),
    { modelId: "summarizer" },
  );
  try {
    for await (const m of summon("Survey the modules and keep notes.", {
      model: cachingScriptedModel(bodies),
      compactModel: summarizer,
      cwd,
      maxTurns: TURNS + 5,
      permissionMode: "bypassPermissions",
      persistSession: false,
      persistTodos: false,
      maxContextTokens: options.maxContextTokens,
      detectCacheBreaks: options.detectCacheBreaks,
      logger: quietLogger(warnings),
      plugins: options.plugins ?? [],
    }) as AsyncGenerator<Message>) {
      if (m.type === "assistant") responses++;
      if (m.type === "system" && (m.subtype === "microcompact" || m.subtype === "compact_boundary")) {
        compactedBefore.set(
          responses + 1,
          m.subtype === "microcompact" ? `microcompaction (${m.cleared} results cleared)` : "summary",
        );
      }
      if (m.type === "result" && m.isError) throw new Error(`bench run failed: ${m.result}`);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  return { bodies, warnings, compactedBefore };
}

/** A plugin that revises one tool's description from turn `turn` on (a new Tool object, same behaviour). */
function reviseDescription(toolName: string, turn: number): Plugin {
  return definePlugin(() => ({
    name: "bench:revise-description",
    apply(kernel) {
      const revised = new WeakMap<Tool, Tool>();
      kernel.hooks.tool.list.tap("bench:revise-description", (tools, r) => {
        if (r.numTurns + 1 < turn) return tools;
        return tools.map((t) => {
          if (t.name !== toolName) return t;
          let copy = revised.get(t);
          if (!copy)
            revised.set(
              t,
              (copy = Object.create(t, { description: { value: `${t.description}\nRevised mid-run.` } }) as Tool),
            );
          return copy;
        });
      });
    },
  }))();
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export default async function prefixStability(): Promise<void> {
  // Window 60k tokens: threshold 60k − 12k − 6k = 42k, reached about halfway through the run.
  const { bodies, compactedBefore } = await run({ maxContextTokens: 60_000 });
  const shares = bodies.map((b, i) => (i === 0 ? 1 : commonPrefix(bodies[i - 1]!, b) / bodies[i - 1]!.length));
  const steady = shares
    .map((s, i) => ({ s, turn: i + 1 }))
    .filter(({ turn }) => turn > 1 && !compactedBefore.has(turn));
  const full = steady.filter(({ s }) => s === 1).length;
  console.log(
    `requests: ${bodies.length} (the first has no predecessor); last request ${(bodies.at(-1)!.length / 1024).toFixed(0)} KiB`,
  );
  console.log(
    `turns without compaction: ${full}/${steady.length} repeat the previous request in full (min ${pct(Math.min(...steady.map((x) => x.s)))}; target 100%)`,
  );
  for (const { s, turn } of steady) if (s < 1) console.log(`  turn ${turn}: ${pct(s)}`);
  for (const [turn, what] of compactedBefore)
    console.log(`turn ${turn} after ${what}: ${pct(shares[turn - 1] ?? 0)} of the previous request repeated`);

  const revisedAt = 25;
  const second = await run({
    maxContextTokens: 1_000_000,
    detectCacheBreaks: true,
    plugins: [reviseDescription("Grep", revisedAt)],
  });
  console.log(`cache-break detector, Grep's description revised by a plugin from turn ${revisedAt}:`);
  const breaks = second.warnings.filter((w) => w.startsWith("prompt cache break"));
  for (const line of breaks.length ? breaks : ["(nothing reported)"]) console.log(`  ${line}`);
}
