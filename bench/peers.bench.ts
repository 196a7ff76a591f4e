/**
 * Peer comparison (issue 40): Ubiquity and other coding-agent CLIs run the same scripted tasks on
 * a generated checkout, each against a fake model server speaking its own wire format
 * (ubiquity/testing's provider servers), in interleaved rounds. The 8-turn task is one cycle of
 * glob, read, grep, edit, bash, read, bash on one function, then the answer; the 50-turn task is
 * seven such cycles on seven functions, then the answer. Per CLI: wall and CPU time and peak RSS of
 * the largest process (`/usr/bin/time`), the time from spawn to the first agent request, and the
 * bytes each agent request sends — the body as it arrived (its Content-Length), whatever the wire.
 *
 * Bytes depend on the wire format as well as on the agent (an Anthropic request carries its tool
 * schemas under other keys than an OpenAI one), so Ubiquity also runs on the OpenAI chat wire (pi's
 * and OpenCode's) and the Responses wire (Codex's): the bytes rows compare each peer with Ubiquity
 * on its own wire. An agent request is one that offers tools (side requests — titles, checks — are
 * left out for every CLI alike).
 *
 * Peers are installed from npm on demand into `$TMPDIR/ubiquity-bench-peers/<package>` (once;
 * later runs reuse it); one that cannot be installed or cannot finish the task is skipped with
 * the reason. The script adapts to each CLI's own tools: it picks the tool for each step by name
 * and fills in the parameters its schema names (a path, a pattern, old/new text, a command),
 * falling back to the CLI's shell tool for a step it has no tool for.
 *
 * `PEERS=claude,pi` picks peers (ubiquity always runs); `PEER_TASKS` [8,50]; `PEER_ROUNDS` [3];
 * `PEER_UBIQUITY_NODE_ARGS` adds Node flags to them (`--cpu-prof --cpu-prof-dir=…`); `PEER_FILES` [2800]; `PEER_FRESH_HOME=1` gives every run an empty HOME (a first run ever: no
 * compile cache, no settings; by default each CLI keeps one HOME from its warm-up run on, as a
 * user's HOME is); `PEER_DEBUG=1` shows each CLI's output and the call answered at each step;
 * `PEER_DUMP=<dir>` writes each agent request body there; `PEER_UBIQUITY_ARGS` adds flags to every
 * Ubiquity run (`--config <file>` for an option the flags do not reach, such as `deferTools`);
 * `PEER_BASE=<checkout>` adds a column, `ubiquity-base`, for Ubiquity run from another built
 * checkout (a before/after in the same interleaved rounds).
 * Needs a build (`npx unbuild`) and `/usr/bin/time`.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startProviderServer, type FakeTurn, type RecordedRequest, type WireFamily } from "../src/testing/index";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROUNDS = Math.max(1, Number(process.env.PEER_ROUNDS ?? 3));
const FILES = Number(process.env.PEER_FILES ?? 2800);
const TIME = "/usr/bin/time";
const PEER_DIR = join(tmpdir(), "ubiquity-bench-peers");
const STEPS_PER_CYCLE = 7;

/** A scripted task: `cycles` rounds of the seven steps, cycle k on `helperK` in `src/pkg-0/module-K.ts`. */
interface Task {
  name: string;
  cycles: number;
  prompt: string;
}

const TASKS: Task[] = [
  {
    name: "8-turn",
    cycles: 1,
    prompt: "Find where helper0 is defined, make it return 1 instead of 0, and check the change.",
  },
  {
    name: "50-turn",
    cycles: 7,
    prompt: "Find where helper0 to helper6 are defined, make each return 1 instead of 0, and check each change.",
  },
];
const targetOf = (cycle: number) => `src/pkg-0/module-${cycle}.ts`;

/** Where a run happens: the fake server, a private HOME, the checkout, the task's prompt. */
interface RunContext {
  url: string;
  home: string;
  project: string;
  prompt: string;
}

/** One CLI under test. */
interface Peer {
  /** Short name (the `PEERS` selector and the table column). */
  name: string;
  /** The npm package (none for Ubiquity, which runs from this checkout). */
  pkg?: string;
  /** The executable inside the package's install folder. */
  bin?: string;
  /** The wire format its fake server speaks. */
  wire: WireFamily;
  command(ctx: RunContext, exe: string): string[];
  env(ctx: RunContext): Record<string, string>;
  /** Files it needs before a run (provider settings pointing at the fake server). */
  setup?(ctx: RunContext): void;
}

const ubiquity = (model: string, prompt: string, exe: string, checkout = repo) => [
  exe,
  // Node flags for every Ubiquity run, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the task.
  ...(process.env.PEER_UBIQUITY_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
  join(checkout, "bin", "ubiquity.mjs"),
  "run",
  "--model",
  model,
  "--permission-mode",
  "bypassPermissions",
  // The default of 40 turns would stop the 50-turn task.
  "--max-turns",
  "100",
  // Extra flags for every Ubiquity run, e.g. `--config defer.json` (a config with `deferTools: true`).
  ...(process.env.PEER_UBIQUITY_ARGS?.split(" ").filter(Boolean) ?? []),
  prompt,
];

const PEERS: Peer[] = [
  {
    name: "ubiquity",
    wire: "anthropic",
    command: ({ prompt }, exe) => ubiquity("anthropic:claude-sonnet-4-5", prompt, exe),
    env: ({ url }) => ({ ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: "bench-key" }),
  },
  // PEER_BASE=<another built checkout>: the same agent from there (a before/after A/B in the same rounds).
  ...(process.env.PEER_BASE
    ? [
        {
          name: "ubiquity-base",
          wire: "anthropic" as const,
          command: ({ prompt }: RunContext, exe: string) =>
            ubiquity("anthropic:claude-sonnet-4-5", prompt, exe, process.env.PEER_BASE),
          env: ({ url }: RunContext) => ({ ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: "bench-key" }),
        },
      ]
    : []),
  // The same agent on the peers' wires, for the bytes rows (see the file comment).
  {
    name: "ubiquity-chat",
    wire: "openai-chat",
    command: ({ prompt }, exe) => ubiquity("openai-compatible:bench-model", prompt, exe),
    env: ({ url }) => ({ OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`, OPENAI_COMPATIBLE_API_KEY: "bench-key" }),
  },
  {
    name: "ubiquity-responses",
    wire: "openai-responses",
    command: ({ prompt }, exe) => ubiquity("openai:gpt-5", prompt, exe),
    env: ({ url }) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "bench-key" }),
  },
  {
    name: "claude",
    pkg: "@anthropic-ai/claude-code",
    bin: "claude",
    wire: "anthropic",
    command: ({ prompt }, exe) => [exe, "-p", prompt, "--dangerously-skip-permissions", "--model", "claude-sonnet-4-5"],
    // IS_SANDBOX: it refuses to skip permissions as root otherwise (these machines run as root).
    env: ({ url }) => ({
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "bench-key",
      IS_SANDBOX: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    }),
  },
  {
    name: "pi",
    pkg: "@mariozechner/pi-coding-agent",
    bin: "pi",
    wire: "openai-chat",
    command: ({ prompt }, exe) => [exe, "-p", "--provider", "bench", "--model", "bench-model", prompt],
    env: () => ({}),
    setup: ({ url, home }) => {
      const models = {
        providers: {
          bench: {
            baseUrl: `${url}/v1`,
            api: "openai-completions",
            apiKey: "bench-key",
            models: [{ id: "bench-model", name: "bench-model", contextWindow: 200000, maxTokens: 8192 }],
          },
        },
      };
      mkdirSync(join(home, ".pi", "agent"), { recursive: true });
      writeFileSync(join(home, ".pi", "agent", "models.json"), JSON.stringify(models));
    },
  },
  {
    name: "codex",
    pkg: "@openai/codex",
    bin: "codex",
    wire: "openai-responses",
    command: ({ url, prompt }, exe) => [
      exe,
      "exec",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-c",
      'model_provider="bench"',
      "-c",
      `model_providers.bench={ name = "bench", base_url = "${url}/v1", env_key = "BENCH_API_KEY", wire_api = "responses" }`,
      "-m",
      "gpt-5",
      prompt,
    ],
    env: ({ home }) => ({ BENCH_API_KEY: "bench-key", CODEX_HOME: join(home, ".codex") }),
    setup: ({ home }) => mkdirSync(join(home, ".codex"), { recursive: true }),
  },
  {
    name: "gemini",
    pkg: "@google/gemini-cli",
    bin: "gemini",
    wire: "google",
    command: ({ prompt }, exe) => [exe, "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"],
    env: ({ url }) => ({ GEMINI_API_KEY: "bench-key", GOOGLE_GEMINI_BASE_URL: url }),
    // The API-key auth (the base URL alone selects a "gateway" auth that -p refuses) and a trusted
    // folder (else --yolo is overridden).
    setup: ({ home, project }) => {
      mkdirSync(join(home, ".gemini"), { recursive: true });
      writeFileSync(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
          privacy: { usageStatisticsEnabled: false },
        }),
      );
      writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    },
  },
  {
    name: "opencode",
    pkg: "opencode-ai",
    bin: "opencode",
    wire: "openai-chat",
    command: ({ prompt }, exe) => [exe, "run", "-m", "bench/bench-model", prompt],
    env: () => ({}),
    setup: ({ url, project }) => {
      const config = {
        provider: {
          bench: {
            npm: "@ai-sdk/openai-compatible",
            options: { baseURL: `${url}/v1`, apiKey: "bench-key" },
            models: { "bench-model": { tool_call: true } },
          },
        },
      };
      writeFileSync(join(project, "opencode.json"), JSON.stringify(config));
    },
  },
];

/** A checkout of `files` TypeScript files in 100-file packages, the target among them. */
function generateCheckout(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = join(root, "src", `pkg-${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const body = Array.from({ length: 30 }, (_, j) => `export const value${j} = ${i * 30 + j};`).join("\n");
    writeFileSync(
      join(dir, `module-${i % 100}.ts`),
      `// module ${i}\n${body}\nexport function helper${i}(): number {\n  return 0;\n}\n`,
    );
  }
  writeFileSync(join(root, "README.md"), "# generated checkout\n");
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "checkout", private: true }));
}

/** A tool the CLI offers: its name and its parameters' names and types. */
interface OfferedTool {
  name: string;
  params: Record<string, { type?: string; items?: { properties?: Record<string, unknown> } }>;
  required: string[];
}

/** The tools a request offers, whatever the wire format nests them in. */
function offeredTools(body: unknown): OfferedTool[] {
  const tools = (body as { tools?: unknown[] } | null)?.tools ?? [];
  const out: OfferedTool[] = [];
  type Schema = { properties?: OfferedTool["params"]; required?: string[] };
  type Decl = { name?: unknown; input_schema?: Schema; parameters?: Schema; parametersJsonSchema?: Schema };
  for (const raw of tools) {
    const t = raw as Decl & { function?: Decl; functionDeclarations?: Decl[] };
    for (const decl of t.functionDeclarations ?? [t.function ?? t]) {
      const schema = decl.input_schema ?? decl.parameters ?? decl.parametersJsonSchema ?? {};
      if (typeof decl.name === "string")
        out.push({ name: decl.name, params: schema.properties ?? {}, required: schema.required ?? [] });
    }
  }
  return out;
}

/** How many tool results the conversation carries: the step the agent is at (one call per step). */
function stepOf(body: unknown): number {
  const text = JSON.stringify(body);
  return (
    text.match(
      /"type":"tool_result"|"role":"tool"|"type":"function_call_output"|"type":"custom_tool_call_output"|"functionResponse"/g,
    ) ?? []
  ).length;
}

const pick = (tools: OfferedTool[], names: RegExp) => tools.find((t) => names.test(t.name));
const param = (tool: OfferedTool, names: RegExp) => Object.keys(tool.params).find((p) => names.test(p));

/** The call for `step` of `task` in this CLI's own tools (its shell for a step it has no tool for). */
function callFor(
  task: Task,
  step: number,
  tools: OfferedTool[],
  project: string,
): { name: string; input: Record<string, unknown> } | undefined {
  const cycle = Math.floor(step / STEPS_PER_CYCLE);
  if (cycle >= task.cycles) return undefined;
  const rel = targetOf(cycle);
  const target = join(project, rel);
  const shell = pick(tools, /^(bash|shell|run_shell_command|shell_command|exec_command)$/i);
  const viaShell = (cmd: string) => {
    if (!shell) return undefined;
    const key = param(shell, /^(command|cmd)$/i) ?? "command";
    return {
      name: shell.name,
      input: {
        [key]: shell.params[key]?.type === "array" ? ["bash", "-lc", cmd] : cmd,
        ...(param(shell, /^workdir$/) ? { workdir: project } : {}),
      },
    };
  };
  const pathOf = (tool: OfferedTool) => param(tool, /^(file_?path|filePath|absolute_path|path)$/i) ?? "path";
  switch (step % STEPS_PER_CYCLE) {
    case 0: {
      const glob = pick(tools, /^(glob|find|glob_files)$/i);
      return glob
        ? {
            name: glob.name,
            input: {
              [param(glob, /pattern/i) ?? "pattern"]: `src/pkg-${cycle}/*.ts`,
              ...(param(glob, /^(path|dir_path)$/) ? { [param(glob, /^(path|dir_path)$/)!]: project } : {}),
            },
          }
        : viaShell(`ls src/pkg-${cycle}/*.ts`);
    }
    case 1:
    case 5: {
      const read = pick(tools, /^(read|read_file|view)$/i);
      return read ? { name: read.name, input: { [pathOf(read)]: target } } : viaShell(`cat -n ${rel}`);
    }
    case 2: {
      const grep = pick(tools, /^(grep|search_file_content|rg|grep_search)$/i);
      return grep
        ? {
            name: grep.name,
            input: {
              [param(grep, /pattern/i) ?? "pattern"]: `function helper${cycle}\\b`,
              ...(param(grep, /^(path|dir_path)$/) ? { [param(grep, /^(path|dir_path)$/)!]: project } : {}),
            },
          }
        : viaShell(`grep -rn 'function helper${cycle}\\b' src`);
    }
    case 3: {
      const edit = pick(tools, /^(edit|replace|str_replace|edit_file)$/i);
      const before = `export function helper${cycle}(): number {\n  return 0;`;
      const after = `export function helper${cycle}(): number {\n  return 1;`;
      const oldKey = edit && param(edit, /^old/i);
      const newKey = edit && param(edit, /^new/i);
      if (edit && oldKey && newKey)
        return { name: edit.name, input: { [pathOf(edit)]: target, [oldKey]: before, [newKey]: after } };
      // pi's edit takes a list of replacements: `edits: [{ oldText, newText }]`.
      const listKey = edit && param(edit, /^edits$/i);
      const item = listKey ? Object.keys(edit.params[listKey]?.items?.properties ?? {}) : [];
      const itemOld = item.find((k) => /^old/i.test(k));
      const itemNew = item.find((k) => /^new/i.test(k));
      if (edit && listKey && itemOld && itemNew)
        return {
          name: edit.name,
          input: { [pathOf(edit)]: target, [listKey]: [{ [itemOld]: before, [itemNew]: after }] },
        };
      return viaShell(`sed -i 's/return 0;/return 1;/' ${rel}`);
    }
    case 4:
      return viaShell("ls src | wc -l");
    case 6:
      return viaShell(`grep -c 'return 1;' ${rel}`);
    default:
      return undefined;
  }
}

/** A required string parameter the step does not fill (Gemini's `instruction`) gets the prompt. */
function withRequired(
  call: ReturnType<typeof callFor>,
  tools: OfferedTool[],
  prompt: string,
): ReturnType<typeof callFor> {
  const tool = call && tools.find((t) => t.name === call.name);
  if (!call || !tool) return call;
  const missing = tool.required.filter((key) => !(key in call.input) && tool.params[key]?.type === "string");
  return { ...call, input: { ...call.input, ...Object.fromEntries(missing.map((key) => [key, prompt])) } };
}

/** The fake server's answer: the task's next step for an agent request, plain text for anything else (titles, checks). */
function scriptFor(task: Task, project: string) {
  return (request: RecordedRequest): FakeTurn => {
    const tools = offeredTools(request.body);
    if (tools.length < 3) return "ok";
    const call = withRequired(callFor(task, stepOf(request.body), tools, project), tools, task.prompt);
    if (process.env.PEER_DEBUG)
      console.log(
        `  step ${stepOf(request.body)}: ${call ? JSON.stringify(call) : "final answer"} (tools: ${tools.map((t) => t.name).join(", ")})`,
      );
    return call
      ? { toolCalls: [call], usage: { inputTokens: 1000, outputTokens: 40 } }
      : {
          text: "The helpers now return 1; the checks found each change.",
          usage: { inputTokens: 1000, outputTokens: 20 },
        };
  };
}

/** Install `pkg` into its own folder once; the executable's path, or why not. */
function install(peer: Peer): { exe?: string; skip?: string } {
  if (!peer.pkg) return { exe: process.execPath };
  const dir = join(PEER_DIR, peer.pkg.replace("/", "+"));
  const exe = join(dir, "node_modules", ".bin", peer.bin!);
  if (existsSync(exe)) return { exe };
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "package.json"))) writeFileSync(join(dir, "package.json"), '{"private":true}');
  console.log(`installing ${peer.pkg} into ${dir} ...`);
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", peer.pkg], {
    cwd: dir,
    encoding: "utf8",
    timeout: 600_000,
  });
  if (npm.status !== 0 || !existsSync(exe))
    return {
      skip: `npm install ${peer.pkg} failed: ${(npm.stderr || npm.error?.message || "").trim().split("\n").at(-1)}`,
    };
  return { exe };
}

function versionOf(peer: Peer): string {
  const pkgJson = peer.pkg
    ? join(PEER_DIR, peer.pkg.replace("/", "+"), "node_modules", peer.pkg, "package.json")
    : join(repo, "package.json");
  try {
    return (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

/** One measured run. */
interface Sample {
  wall: number;
  cpu: number;
  rssMiB: number;
  firstRequest: number;
  kbPerTurn: number;
  /** The first agent request: the fixed part (system prompt, tools) and the user's prompt. */
  kbFirst: number;
  turns: number;
  done: boolean;
}

/** What a request's body weighed on the wire: its Content-Length, else the JSON it parsed to. */
function bytesOf(request: RecordedRequest): number {
  const declared = Number(request.headers["content-length"]);
  return Number.isFinite(declared) && declared > 0
    ? declared
    : Buffer.byteLength(typeof request.body === "string" ? request.body : JSON.stringify(request.body));
}

async function runOnce(peer: Peer, exe: string, template: string, task: Task, kept?: string): Promise<Sample> {
  const root = mkdtempSync(join(tmpdir(), `ubiquity-bench-peer-${peer.name}-`));
  const project = join(root, "project");
  const home = kept ?? join(root, "home");
  cpSync(template, project, { recursive: true });
  if (!kept) mkdirSync(home);
  const server = await startProviderServer(scriptFor(task, project));
  const ctx: RunContext = { url: server.url, home, project, prompt: task.prompt };
  try {
    peer.setup?.(ctx);
    const timing = join(root, "time.txt");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      USERPROFILE: home,
      TERM: "dumb",
      NO_COLOR: "1",
      CI: "1",
      ...peer.env(ctx),
    };
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(TIME, ["-f", "%e %U %S %M", "-o", timing, ...peer.command(ctx, exe)], {
        cwd: project,
        env,
        stdio: ["ignore", process.env.PEER_DEBUG ? "inherit" : "ignore", process.env.PEER_DEBUG ? "inherit" : "ignore"],
      });
      const kill = setTimeout(() => child.kill("SIGKILL"), 300_000);
      child.on("close", (c) => (clearTimeout(kill), resolve(c)));
    });
    const [wall, user, sys, kib] = readFileSync(timing, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    const agent = server.requests.filter((r) => offeredTools(r.body).length >= 3);
    if (process.env.PEER_DUMP) {
      mkdirSync(process.env.PEER_DUMP, { recursive: true });
      for (const [i, r] of agent.entries())
        writeFileSync(
          join(process.env.PEER_DUMP, `${task.name}-${peer.name}-${i}.json`),
          JSON.stringify(r.body, null, 1),
        );
    }
    const bytes = agent.reduce((n, r) => n + bytesOf(r), 0);
    const done =
      code === 0 &&
      Array.from({ length: task.cycles }, (_, k) => targetOf(k)).every((t) =>
        readFileSync(join(project, t), "utf8").includes("return 1;"),
      );
    return {
      wall: wall!,
      cpu: user! + sys!,
      rssMiB: kib! / 1024,
      firstRequest: agent[0] ? (agent[0].time - started) / 1000 : NaN,
      kbPerTurn: agent.length ? bytes / agent.length / 1024 : NaN,
      kbFirst: agent[0] ? bytesOf(agent[0]) / 1024 : NaN,
      turns: agent.length,
      done,
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Warm-up, then interleaved rounds of `task`; prints its table. */
async function benchTask(task: Task, ready: { peer: Peer; exe: string }[], template: string): Promise<void> {
  console.log(`\n${task.name} task (${task.cycles * STEPS_PER_CYCLE + 1} agent requests)`);
  // One HOME per CLI for the warm-up and its rounds (a user's next run: what a CLI keeps in HOME,
  // such as Node's compile cache or its settings, is there), unless PEER_FRESH_HOME=1.
  const withHomes = ready.map((entry) => ({
    ...entry,
    home:
      process.env.PEER_FRESH_HOME === "1"
        ? undefined
        : mkdtempSync(join(tmpdir(), `ubiquity-bench-home-${entry.peer.name}-`)),
  }));
  try {
    await warmAndRun(task, withHomes, template);
  } finally {
    for (const { home } of withHomes) if (home) rmSync(home, { recursive: true, force: true });
  }
}

/** The warm-up run of each CLI, its rounds, and the table. */
async function warmAndRun(
  task: Task,
  ready: { peer: Peer; exe: string; home?: string }[],
  template: string,
): Promise<void> {
  // Warm-up (file cache), and the peers that cannot do the task here are left out, saying why.
  const runnable: typeof ready = [];
  for (const entry of ready) {
    const sample = await runOnce(entry.peer, entry.exe, template, task, entry.home).catch(
      (error: unknown) => error as Error,
    );
    if (sample instanceof Error || !sample.done)
      console.log(
        `${entry.peer.name}: skipped (the warm-up run did not finish the task${sample instanceof Error ? `: ${sample.message}` : `; ${sample.turns} agent requests`})`,
      );
    else runnable.push(entry);
  }
  const samples = new Map<string, Sample[]>(runnable.map(({ peer }) => [peer.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...runnable].reverse() : runnable;
    for (const { peer, exe, home } of order)
      samples.get(peer.name)!.push(await runOnce(peer, exe, template, task, home));
  }
  const [l1, l5] = loadavg();
  console.log(
    `${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, load ${l1!.toFixed(2)}/${l5!.toFixed(2)}, ${FILES} files, ${ROUNDS} interleaved rounds (medians), ${process.env.PEER_FRESH_HOME === "1" ? "a fresh HOME per run" : "one HOME per CLI, kept from its warm-up run"}`,
  );
  const cols = runnable.map(({ peer }) => `${peer.name} ${versionOf(peer)}`);
  const med = (name: string, f: (x: Sample) => number) => median(samples.get(name)!.map(f));
  const row = (label: string, f: (s: Sample[], peer: Peer) => string) =>
    console.log(`| ${label} | ${runnable.map(({ peer }) => f(samples.get(peer.name)!, peer)).join(" | ")} |`);
  console.log(`| | ${cols.join(" | ")} |`);
  console.log(`| --- | ${cols.map(() => "---").join(" | ")} |`);
  row("wire", (_, peer) => peer.wire);
  row("wall", (s) => `${median(s.map((x) => x.wall)).toFixed(2)} s`);
  row("CPU", (s) => `${median(s.map((x) => x.cpu)).toFixed(2)} s`);
  row("peak RSS", (s) => `${median(s.map((x) => x.rssMiB)).toFixed(0)} MB`);
  row("first request", (s) => `${median(s.map((x) => x.firstRequest)).toFixed(2)} s`);
  row("agent requests", (s) => `${median(s.map((x) => x.turns))}`);
  row("KB, first request", (s) => median(s.map((x) => x.kbFirst)).toFixed(1));
  row("KB sent per turn", (s) => median(s.map((x) => x.kbPerTurn)).toFixed(1));
  // The same measure for Ubiquity on this column's wire: the apples-to-apples bytes comparison.
  const sameWire = (peer: Peer) => runnable.find((e) => !e.peer.pkg && e.peer.wire === peer.wire)?.peer.name;
  row("Ubiquity on this wire, KB per turn", (_, peer) => {
    const u = sameWire(peer);
    return u ? med(u, (x) => x.kbPerTurn).toFixed(1) : "–";
  });
  row("finished the task", (s) => `${s.filter((x) => x.done).length}/${s.length}`);
}

export default async function peersBench(): Promise<void> {
  if (!existsSync(TIME)) return console.log(`skipped: ${TIME} is missing (apt-get install time)`);
  if (!existsSync(join(repo, "dist", "runner", "cli.mjs"))) throw new Error("no build: run `npx unbuild` first");
  const wanted = process.env.PEERS?.split(",").map((s) => s.trim());
  const peers = PEERS.filter((p) => !p.pkg || !wanted || wanted.includes(p.name));
  // Ubiquity on a peer's wire runs only when a peer speaking that wire does.
  const selected = peers.filter(
    (p) =>
      p.pkg || p.name === "ubiquity" || p.name === "ubiquity-base" || peers.some((q) => q.pkg && q.wire === p.wire),
  );
  const ready: { peer: Peer; exe: string }[] = [];
  for (const peer of selected) {
    const { exe, skip } = install(peer);
    if (skip) console.log(`${peer.name}: skipped (${skip})`);
    else ready.push({ peer, exe: exe! });
  }
  const tasks = (process.env.PEER_TASKS ?? "8,50").split(",").map((n) => {
    const task = TASKS.find((t) => t.name === `${n.trim()}-turn`);
    if (!task)
      throw new Error(`PEER_TASKS: no ${n.trim()}-turn task (there are ${TASKS.map((t) => t.name).join(", ")})`);
    return task;
  });
  const template = mkdtempSync(join(tmpdir(), "ubiquity-bench-checkout-"));
  generateCheckout(template, FILES);
  try {
    for (const task of tasks) await benchTask(task, ready, template);
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
}
