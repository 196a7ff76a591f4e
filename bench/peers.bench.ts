/**
 * Peer comparison (issue 40): Ubiquity and other coding-agent CLIs run one scripted 8-turn task
 * (glob, read, grep, edit, bash, read, bash, answer) on a generated checkout, each against a fake
 * model server speaking its own wire format (ubiquity/testing's provider servers), in interleaved
 * rounds. Per CLI: wall and CPU time and peak RSS of the largest process (`/usr/bin/time`), the
 * time from spawn to the first agent request, and the bytes each agent request sends.
 *
 * Peers are installed from npm on demand into `$TMPDIR/ubiquity-bench-peers/<package>` (once;
 * later runs reuse it); one that cannot be installed or cannot finish the task is skipped with
 * the reason. The script adapts to each CLI's own tools: it picks the tool for each step by name
 * and fills in the parameters its schema names (a path, a pattern, old/new text, a command),
 * falling back to the CLI's shell tool for a step it has no tool for.
 *
 * `PEERS=claude,pi` picks peers (ubiquity always runs); `PEER_ROUNDS` [3]; `PEER_FILES` [2800];
 * `PEER_DEBUG=1` shows each CLI's output and the call answered at each step.
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
const PROMPT = "Find where helper0 is defined, make it return 1 instead of 0, and check the change.";
const TARGET = "src/pkg-0/module-0.ts";

/** Where a run happens: the fake server, a private HOME, the checkout. */
interface RunContext {
  url: string;
  home: string;
  project: string;
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

const PEERS: Peer[] = [
  {
    name: "ubiquity",
    wire: "anthropic",
    command: (_ctx, exe) => [
      exe,
      join(repo, "bin", "ubiquity.mjs"),
      "run",
      "--model",
      "anthropic:claude-sonnet-4-5",
      "--permission-mode",
      "bypassPermissions",
      PROMPT,
    ],
    env: ({ url }) => ({ ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: "bench-key" }),
  },
  {
    name: "claude",
    pkg: "@anthropic-ai/claude-code",
    bin: "claude",
    wire: "anthropic",
    command: (_ctx, exe) => [exe, "-p", PROMPT, "--dangerously-skip-permissions", "--model", "claude-sonnet-4-5"],
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
    command: (_ctx, exe) => [exe, "-p", "--provider", "bench", "--model", "bench-model", PROMPT],
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
    command: ({ url }, exe) => [
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
      PROMPT,
    ],
    env: ({ home }) => ({ BENCH_API_KEY: "bench-key", CODEX_HOME: join(home, ".codex") }),
    setup: ({ home }) => mkdirSync(join(home, ".codex"), { recursive: true }),
  },
  {
    name: "gemini",
    pkg: "@google/gemini-cli",
    bin: "gemini",
    wire: "google",
    command: (_ctx, exe) => [exe, "-p", PROMPT, "--yolo", "-m", "gemini-2.5-flash"],
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
    command: (_ctx, exe) => [exe, "run", "-m", "bench/bench-model", PROMPT],
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
  params: Record<string, { type?: string }>;
  required: string[];
}

/** A tool's input schema as the wire formats send it. */
interface WireSchema {
  properties?: Record<string, { type?: string }>;
  required?: string[];
}

/** A function declaration: Anthropic's (`input_schema`), OpenAI's (`parameters`) or Gemini's. */
interface WireDeclaration {
  name?: unknown;
  input_schema?: WireSchema;
  parameters?: WireSchema;
  parametersJsonSchema?: WireSchema;
}

/** An offered tool: a declaration itself, or OpenAI's `function` / Gemini's `functionDeclarations` around it. */
interface WireTool extends WireDeclaration {
  function?: WireDeclaration;
  functionDeclarations?: WireDeclaration[];
}

/** The tools a request offers, whatever the wire format nests them in. */
function offeredTools(body: unknown): OfferedTool[] {
  const tools = (body as { tools?: unknown[] } | null)?.tools ?? [];
  const out: OfferedTool[] = [];
  for (const raw of tools) {
    const t = raw as WireTool;
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

/** The call for `step` in this CLI's own tools (its shell for a step it has no tool for). */
function callFor(
  step: number,
  tools: OfferedTool[],
  project: string,
): { name: string; input: Record<string, unknown> } | undefined {
  const target = join(project, TARGET);
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
  switch (step) {
    case 0: {
      const glob = pick(tools, /^(glob|find|glob_files)$/i);
      return glob
        ? {
            name: glob.name,
            input: {
              [param(glob, /pattern/i) ?? "pattern"]: "src/pkg-0/*.ts",
              ...(param(glob, /^(path|dir_path)$/) ? { [param(glob, /^(path|dir_path)$/)!]: project } : {}),
            },
          }
        : viaShell("ls src/pkg-0/*.ts");
    }
    case 1:
    case 5: {
      const read = pick(tools, /^(read|read_file|view)$/i);
      return read ? { name: read.name, input: { [pathOf(read)]: target } } : viaShell(`cat -n ${TARGET}`);
    }
    case 2: {
      const grep = pick(tools, /^(grep|search_file_content|rg|grep_search)$/i);
      return grep
        ? {
            name: grep.name,
            input: {
              [param(grep, /pattern/i) ?? "pattern"]: "function helper0\\b",
              ...(param(grep, /^(path|dir_path)$/) ? { [param(grep, /^(path|dir_path)$/)!]: project } : {}),
            },
          }
        : viaShell("grep -rn 'function helper0\\b' src");
    }
    case 3: {
      const edit = pick(tools, /^(edit|replace|str_replace|edit_file)$/i);
      const oldKey = edit && param(edit, /^old/i);
      const newKey = edit && param(edit, /^new/i);
      if (edit && oldKey && newKey)
        return {
          name: edit.name,
          input: {
            [pathOf(edit)]: target,
            [oldKey]: "export function helper0(): number {\n  return 0;",
            [newKey]: "export function helper0(): number {\n  return 1;",
          },
        };
      return viaShell(`sed -i 's/return 0;/return 1;/' ${TARGET}`);
    }
    case 4:
      return viaShell("ls src | wc -l");
    case 6:
      return viaShell(`grep -c 'return 1;' ${TARGET}`);
    default:
      return undefined;
  }
}

/** A required string parameter the step does not fill (Gemini's `instruction`) gets the prompt. */
function withRequired(call: ReturnType<typeof callFor>, tools: OfferedTool[]): ReturnType<typeof callFor> {
  const tool = call && tools.find((t) => t.name === call.name);
  if (!call || !tool) return call;
  const missing = tool.required.filter((key) => !(key in call.input) && tool.params[key]?.type === "string");
  return { ...call, input: { ...call.input, ...Object.fromEntries(missing.map((key) => [key, PROMPT])) } };
}

/** The fake server's answer: the task's next step for an agent request, plain text for anything else (titles, checks). */
function scriptFor(project: string) {
  return (request: RecordedRequest): FakeTurn => {
    const tools = offeredTools(request.body);
    if (tools.length < 3) return "ok";
    const call = withRequired(callFor(stepOf(request.body), tools, project), tools);
    if (process.env.PEER_DEBUG)
      console.log(
        `  step ${stepOf(request.body)}: ${call ? JSON.stringify(call) : "final answer"} (tools: ${tools.map((t) => t.name).join(", ")})`,
      );
    return call
      ? { toolCalls: [call], usage: { inputTokens: 1000, outputTokens: 40 } }
      : { text: "helper0 now returns 1; the check found the change.", usage: { inputTokens: 1000, outputTokens: 20 } };
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
  turns: number;
  done: boolean;
}

async function runOnce(peer: Peer, exe: string, template: string): Promise<Sample> {
  const root = mkdtempSync(join(tmpdir(), `ubiquity-bench-peer-${peer.name}-`));
  const project = join(root, "project");
  const home = join(root, "home");
  cpSync(template, project, { recursive: true });
  mkdirSync(home);
  const server = await startProviderServer(scriptFor(project));
  const ctx: RunContext = { url: server.url, home, project };
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
      const kill = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("close", (c) => (clearTimeout(kill), resolve(c)));
    });
    const [wall, user, sys, kib] = readFileSync(timing, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    const agent = server.requests.filter((r) => offeredTools(r.body).length >= 3);
    const bytes = agent.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r.body)), 0);
    const done = readFileSync(join(project, TARGET), "utf8").includes("return 1;") && code === 0;
    return {
      wall: wall!,
      cpu: user! + sys!,
      rssMiB: kib! / 1024,
      firstRequest: agent[0] ? (agent[0].time - started) / 1000 : NaN,
      kbPerTurn: agent.length ? bytes / agent.length / 1024 : NaN,
      turns: agent.length,
      done,
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function peersBench(): Promise<void> {
  if (!existsSync(TIME)) return console.log(`skipped: ${TIME} is missing (apt-get install time)`);
  if (!existsSync(join(repo, "dist", "runner", "cli.mjs"))) throw new Error("no build: run `npx unbuild` first");
  const wanted = process.env.PEERS?.split(",").map((s) => s.trim());
  const ready: { peer: Peer; exe: string }[] = [];
  for (const peer of PEERS.filter((p) => !p.pkg || !wanted || wanted.includes(p.name))) {
    const { exe, skip } = install(peer);
    if (skip) console.log(`${peer.name}: skipped (${skip})`);
    else ready.push({ peer, exe: exe! });
  }
  const template = mkdtempSync(join(tmpdir(), "ubiquity-bench-checkout-"));
  generateCheckout(template, FILES);
  try {
    // Warm-up (file cache), and the peers that cannot do the task here are left out, saying why.
    const runnable: typeof ready = [];
    for (const entry of ready) {
      const sample = await runOnce(entry.peer, entry.exe, template).catch((error: unknown) => error as Error);
      if (sample instanceof Error || !sample.done)
        console.log(
          `${entry.peer.name}: skipped (the warm-up run did not finish the task${sample instanceof Error ? `: ${sample.message}` : `; ${sample.turns} agent requests`})`,
        );
      else runnable.push(entry);
    }
    const samples = new Map<string, Sample[]>(runnable.map(({ peer }) => [peer.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...runnable].reverse() : runnable;
      for (const { peer, exe } of order) samples.get(peer.name)!.push(await runOnce(peer, exe, template));
    }
    const [l1, l5] = loadavg();
    console.log(
      `${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} cores, load ${l1!.toFixed(2)}/${l5!.toFixed(2)}, ${FILES} files, ${ROUNDS} interleaved rounds (medians)`,
    );
    const cols = runnable.map(({ peer }) => `${peer.name} ${versionOf(peer)}`);
    const row = (label: string, f: (s: Sample[]) => string) =>
      console.log(`| ${label} | ${runnable.map(({ peer }) => f(samples.get(peer.name)!)).join(" | ")} |`);
    console.log(`| | ${cols.join(" | ")} |`);
    console.log(`| --- | ${cols.map(() => "---").join(" | ")} |`);
    row("wall", (s) => `${median(s.map((x) => x.wall)).toFixed(2)} s`);
    row("CPU", (s) => `${median(s.map((x) => x.cpu)).toFixed(2)} s`);
    row("peak RSS", (s) => `${median(s.map((x) => x.rssMiB)).toFixed(0)} MB`);
    row("first request", (s) => `${median(s.map((x) => x.firstRequest)).toFixed(2)} s`);
    row("KB sent per turn", (s) => median(s.map((x) => x.kbPerTurn)).toFixed(1));
    row("finished the task", (s) => `${s.filter((x) => x.done).length}/${s.length}`);
  } finally {
    rmSync(template, { recursive: true, force: true });
  }
}
