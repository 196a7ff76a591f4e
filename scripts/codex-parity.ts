/**
 * Differential run of `ubiquity -p --compat codex` (with `--output-format stream-json
 * --message-format codex` where Codex gets `--json`) against the real `codex exec` (`@openai/codex`
 * from npm): both CLIs get the same scripted model answers from one fake Responses-wire server
 * (ubiquity/testing's `startProviderServer`, answering with the stream this script encodes so that
 * Codex's own `exec_command` and custom `apply_patch` calls can be played), each in its own temp
 * project (a git repository unless the case says not) and HOME whose `~/.codex/config.toml` names
 * that server as the `model_provider` — the same file for both, so Ubiquity reads a Codex user's
 * files as they are. The script prints, per case, what a script wrapping `codex exec` sees from
 * each: exit code, stderr, stdout (each JSON line reduced to its shape: keys, types, and the values
 * that carry meaning), the files the project ends with, and what reached the model. Not a test: the
 * tests (test/cli/codex-parity.test.ts) pin what it found without the codex binary.
 *
 *   CODEX_BIN=/path/to/codex npx jiti scripts/codex-parity.ts [case-name|prefix*…]
 *
 * Needs a build (`npx unbuild`). The codex binary: `npm i @openai/codex` in a temp folder, as
 * bench/peers.bench.ts does (`$TMPDIR/ubiquity-bench-peers/@openai+codex/node_modules/.bin/codex`
 * is the default). `PARITY_RAW=1` prints the raw stdout too.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startProviderServer, type FakeTurn, type RecordedRequest } from "../src/testing/index";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const CODEX =
  process.env.CODEX_BIN ?? join(tmpdir(), "ubiquity-bench-peers", "@openai+codex", "node_modules", ".bin", "codex");
/** A model Codex has metadata for (an unknown one adds an `error` item to every run). */
const MODEL = "gpt-5.5";

/** One scripted model answer: text, reasoning, a shell command, a patch, or an HTTP failure. */
type Step =
  | string
  | { text?: string; reasoning?: string; shell?: string; patch?: string; mcp?: McpCall; usage?: Usage }
  | { status: number; message?: string; body?: string; headers?: Record<string, string> };
/** A call of an MCP server's tool, under the name each CLI gives it (Codex defers them behind tool_search, but runs a direct call). */
interface McpCall {
  name: string;
  args: Record<string, unknown>;
}
interface Usage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

/** One case: each CLI's flags, the prompt (none: stdin only), stdin, the answers by step. */
interface Case {
  name: string;
  codex: string[];
  ubiquity: string[];
  prompt?: string;
  stdin?: string;
  steps: Step[];
  files?: Record<string, string>;
  /** Files under HOME (`.codex/AGENTS.md`, `.codex/prompts/x.md`, …). */
  home?: Record<string, string>;
  /** Extra lines for `~/.codex/config.toml`. */
  config?: string;
  /** The project is not a git repository. */
  noGit?: boolean;
  /** Run twice: the second run's flags, `$THREAD` replaced by the first run's thread id. */
  second?: { codex: string[]; ubiquity: string[]; prompt?: string };
}

const J = { codex: ["--json"], ubiquity: ["--output-format", "stream-json", "--message-format", "codex"] };
const FULL = {
  codex: ["--dangerously-bypass-approvals-and-sandbox"],
  ubiquity: ["--dangerously-skip-permissions", "--no-sandbox"],
};
const both = (...sets: { codex: string[]; ubiquity: string[] }[]) => ({
  codex: sets.flatMap((s) => s.codex),
  ubiquity: sets.flatMap((s) => s.ubiquity),
});
const PATCH_ADD = "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch\n";
const PATCH_UPDATE = "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+omega\n*** End Patch\n";

const CASES: Case[] = [
  { name: "text-json", ...J, prompt: "say hi", steps: ["Hello there."] },
  { name: "text-plain", codex: [], ubiquity: [], prompt: "say hi", steps: ["Hello there."] },
  {
    name: "reasoning-json",
    ...J,
    prompt: "think",
    steps: [{ reasoning: "**Thinking**\n\nAbout it.", text: "Done thinking." }],
  },
  {
    name: "usage-json",
    ...J,
    prompt: "say hi",
    steps: [{ text: "Hello.", usage: { input: 120, cached: 100, output: 30, reasoning: 12 } }],
  },
  {
    name: "shell-json",
    ...both(J, FULL),
    prompt: "run echo",
    steps: [{ shell: "echo made && touch marker" }, "Ran it."],
  },
  {
    name: "shell-fail-json",
    ...both(J, FULL),
    prompt: "run false",
    steps: [{ shell: "echo oops >&2; exit 3" }, "It failed."],
  },
  {
    name: "shell-text",
    ...FULL,
    prompt: "run echo",
    steps: [{ text: "Running it.", shell: "echo made" }, "Ran it."],
  },
  {
    name: "patch-add-json",
    ...both(J, FULL),
    prompt: "add b.txt",
    steps: [{ patch: PATCH_ADD }, "Added."],
  },
  {
    name: "patch-update-json",
    ...both(J, FULL),
    prompt: "edit a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [{ patch: PATCH_UPDATE }, "Edited."],
  },
  // Not comparable with codex-cli 0.171: it defers MCP tools behind tool_search and its router
  // refuses a direct call ("unsupported call"), so only ubiquity's item shows here.
  {
    name: "mcp-json",
    ...J,
    prompt: "echo via mcp",
    config: `\n[mcp_servers.every]\ncommand = "node"\nargs = [${JSON.stringify(join(repo, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))}]\n`,
    steps: [{ mcp: { name: "mcp__every__echo", args: { message: "hi there" } } }, "Echoed."],
  },
  {
    name: "server-401-json",
    ...J,
    prompt: "hi",
    steps: [{ status: 401, message: "Incorrect API key provided" }],
  },
  { name: "server-401-text", codex: [], ubiquity: [], prompt: "hi", steps: [{ status: 401, message: "bad key" }] },
  {
    name: "server-500-json",
    ...J,
    prompt: "hi",
    steps: [{ status: 500, message: "internal thing", headers: { "retry-after": "0" } }],
  },
  { name: "unknown-flag", codex: ["--no-such-flag"], ubiquity: ["--no-such-flag"], prompt: "hi", steps: ["x"] },
  {
    name: "unknown-flag-json",
    codex: ["--json", "--no-such-flag"],
    ubiquity: [...J.ubiquity, "--no-such-flag"],
    prompt: "hi",
    steps: ["x"],
  },
  { name: "empty-prompt", codex: [], ubiquity: [], prompt: "", steps: ["x"] },
  { name: "empty-prompt-json", ...J, prompt: "", steps: ["x"] },
  { name: "no-prompt-no-stdin", codex: [], ubiquity: [], steps: ["x"] },
  { name: "stdin-dash", codex: [], ubiquity: [], prompt: "-", stdin: "hi from stdin\n", steps: ["Hello."] },
  { name: "stdin-piped", codex: [], ubiquity: [], stdin: "hi from stdin\n", steps: ["Hello."] },
  { name: "stdin-and-prompt", codex: [], ubiquity: [], prompt: "summarize", stdin: "piped text\n", steps: ["Hello."] },
  {
    name: "output-last-message",
    codex: ["-o", "last.txt"],
    ubiquity: ["-o", "last.txt"],
    prompt: "say hi",
    steps: ["Hello there."],
  },
  {
    name: "output-last-message-json",
    codex: ["--json", "-o", "last.txt"],
    ubiquity: [...J.ubiquity, "-o", "last.txt"],
    prompt: "say hi",
    steps: [{ text: "Looking.", shell: "true" }, "Hello there."],
  },
  {
    name: "output-last-message-401",
    codex: ["--output-last-message", "last.txt"],
    ubiquity: ["--output-last-message", "last.txt"],
    prompt: "say hi",
    steps: [{ status: 401, message: "bad key" }],
  },
  {
    name: "output-last-message-cd",
    codex: ["-C", "sub", "-o", "last.txt"],
    ubiquity: ["--cwd", "sub", "-o", "last.txt"],
    prompt: "say hi",
    files: { "sub/x.txt": "x\n" },
    steps: ["Hello there."],
  },
  {
    name: "output-schema",
    codex: ["--json", "--output-schema", "schema.json"],
    ubiquity: [...J.ubiquity, "--output-schema", "schema.json"],
    prompt: "answer",
    files: {
      "schema.json": JSON.stringify({
        type: "object",
        properties: { answer: { type: "string" } },
        required: ["answer"],
        additionalProperties: false,
      }),
    },
    steps: ['{"answer":"42"}'],
  },
  {
    name: "output-schema-last-message",
    codex: ["--output-schema", "schema.json", "-o", "last.txt"],
    ubiquity: ["--output-schema", "schema.json", "-o", "last.txt"],
    prompt: "answer",
    files: {
      "schema.json": JSON.stringify({
        type: "object",
        properties: { answer: { type: "string" } },
        required: ["answer"],
        additionalProperties: false,
      }),
    },
    steps: ['{"answer":"42"}'],
  },
  {
    name: "cd",
    codex: ["-C", "sub", "--json"],
    ubiquity: ["--cwd", "sub", ...J.ubiquity],
    prompt: "where",
    files: { "sub/x.txt": "x\n" },
    steps: ["Here."],
  },
  { name: "no-git", codex: [], ubiquity: [], prompt: "hi", noGit: true, steps: ["Hello."] },
  {
    name: "no-git-skip",
    codex: ["--skip-git-repo-check"],
    ubiquity: ["--skip-git-repo-check"],
    prompt: "hi",
    noGit: true,
    steps: ["Hello."],
  },
  {
    name: "sandbox-read-only",
    codex: ["--json", "--sandbox", "read-only"],
    ubiquity: [...J.ubiquity, "--sandbox", "read-only"],
    prompt: "touch",
    steps: [{ shell: "touch marker" }, "Done."],
  },
  {
    name: "sandbox-workspace-write",
    codex: ["--json", "--sandbox", "workspace-write"],
    ubiquity: [...J.ubiquity, "--sandbox", "workspace-write"],
    prompt: "touch",
    steps: [{ shell: "touch marker" }, "Done."],
  },
  {
    name: "full-auto",
    codex: ["--json", "--full-auto"],
    ubiquity: [...J.ubiquity, "--full-auto"],
    prompt: "touch",
    steps: [{ shell: "touch marker" }, "Done."],
  },
  { name: "model-flag", codex: ["-m", "gpt-5.4"], ubiquity: ["-m", "gpt-5.4"], prompt: "hi", steps: ["x"] },
  {
    name: "config-override",
    codex: ["-c", 'model="gpt-5.4"'],
    ubiquity: ["-c", 'model="gpt-5.4"'],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "profile",
    codex: ["--profile", "fast"],
    ubiquity: ["--profile", "fast"],
    prompt: "hi",
    home: { ".codex/fast.config.toml": 'model = "gpt-5.4"\n' },
    steps: ["x"],
  },
  {
    name: "profile-legacy-table",
    codex: ["--profile", "fast"],
    ubiquity: ["--profile", "fast"],
    prompt: "hi",
    config: '\n[profiles.fast]\nmodel = "gpt-5.4"\n',
    steps: ["x"],
  },
  {
    name: "profile-missing",
    codex: ["--profile", "nope"],
    ubiquity: ["--profile", "nope"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "agents-md",
    ...J,
    prompt: "hi",
    files: { "AGENTS.md": "Always answer in French.\n" },
    home: { ".codex/AGENTS.md": "The user is called Ada.\n" },
    steps: ["Bonjour."],
  },
  {
    name: "custom-prompt",
    codex: [],
    ubiquity: [],
    prompt: "/prompts:greet NAME=Ada",
    home: { ".codex/prompts/greet.md": "Greet $NAME warmly.\n" },
    steps: ["Hello Ada."],
  },
  {
    name: "resume-last",
    ...J,
    prompt: "remember plums",
    steps: ["Noted.", "Plums."],
    second: { codex: ["resume", "--last", "--json"], ubiquity: ["--continue", ...J.ubiquity], prompt: "what fruit?" },
  },
  {
    name: "resume-id",
    ...J,
    prompt: "remember plums",
    steps: ["Noted.", "Plums."],
    second: {
      codex: ["resume", "$THREAD", "--json"],
      ubiquity: ["--resume", "$THREAD", ...J.ubiquity],
      prompt: "what fruit?",
    },
  },
  {
    name: "exec-resume-verbatim",
    ...J,
    prompt: "remember plums",
    steps: ["Noted.", "Plums."],
    second: { codex: ["resume", "--last", "--json"], ubiquity: ["resume", "--last", ...J.ubiquity], prompt: "again" },
  },
  {
    name: "max-turns-json",
    codex: ["--json", ...FULL.codex],
    ubiquity: [...J.ubiquity, ...FULL.ubiquity, "--max-turns", "1"],
    prompt: "loop",
    steps: [{ shell: "echo one" }, { shell: "echo two" }, "done"],
  },
];

/** A run's observable outcome. */
interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: RecordedRequest[];
  files: string[];
  lastMessage?: string;
}

type Cli = "codex" | "ubiquity";

/** The Responses stream of one answer, in the CLI's own tools (Codex: `exec_command`, custom `apply_patch`). */
function encode(step: Exclude<Step, string | { status: number }>, cli: Cli, n: number): FakeTurn {
  const output: Record<string, unknown>[] = [];
  if (step.reasoning)
    output.push({
      type: "reasoning",
      id: `rs_${n}`,
      summary: [{ type: "summary_text", text: step.reasoning }],
    });
  if (step.text)
    output.push({
      type: "message",
      id: `msg_${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: step.text, annotations: [] }],
    });
  if (step.shell !== undefined)
    output.push({
      type: "function_call",
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name: cli === "codex" ? "exec_command" : "Bash",
      arguments: JSON.stringify(cli === "codex" ? { cmd: step.shell } : { command: step.shell }),
      status: "completed",
    });
  if (step.mcp)
    output.push({
      type: "function_call",
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name: step.mcp.name,
      arguments: JSON.stringify(step.mcp.args),
      status: "completed",
    });
  if (step.patch !== undefined)
    output.push(
      cli === "codex"
        ? { type: "custom_tool_call", id: `ctc_${n}`, call_id: `call_${n}`, name: "apply_patch", input: step.patch }
        : {
            type: "function_call",
            id: `fc_${n}`,
            call_id: `call_${n}`,
            name: "apply_patch",
            arguments: JSON.stringify({ input: step.patch }),
            status: "completed",
          },
    );
  const u = step.usage ?? { input: 10, cached: 0, output: 5, reasoning: 0 };
  const usage = {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
  const base = { id: `resp_${n}`, object: "response", created_at: 1, model: MODEL };
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: { ...base, status: "in_progress", output: [] } },
  ];
  output.forEach((item, i) => {
    if (item.type === "reasoning") {
      // As OpenAI streams a summary: the item empty, then the summary's part and its text.
      const summary = { item_id: item.id, output_index: i, summary_index: 0 };
      events.push({ type: "response.output_item.added", output_index: i, item: { ...item, summary: [] } });
      events.push({
        type: "response.reasoning_summary_part.added",
        ...summary,
        part: { type: "summary_text", text: "" },
      });
      events.push({ type: "response.reasoning_summary_text.delta", ...summary, delta: step.reasoning });
      events.push({ type: "response.reasoning_summary_text.done", ...summary, text: step.reasoning });
      events.push({
        type: "response.reasoning_summary_part.done",
        ...summary,
        part: { type: "summary_text", text: step.reasoning },
      });
      events.push({ type: "response.output_item.done", output_index: i, item });
      return;
    }
    events.push({ type: "response.output_item.added", output_index: i, item });
    if (item.type === "message")
      events.push({
        type: "response.output_text.delta",
        item_id: item.id,
        output_index: i,
        content_index: 0,
        delta: step.text,
      });
    events.push({ type: "response.output_item.done", output_index: i, item });
  });
  events.push({ type: "response.completed", response: { ...base, status: "completed", output, usage } });
  const body = events
    .map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`)
    .join("");
  return { fault: "raw", contentType: "text/event-stream", body };
}

/** The answer for a request: by the number of tool results it carries; side requests (no tools) get "ok". */
function scriptOf(steps: Step[], cli: Cli) {
  let n = 0;
  return (request: RecordedRequest): FakeTurn => {
    const body = request.body as { tools?: unknown[] } | null;
    if (!body?.tools || body.tools.length < 2) return "ok";
    const step = (JSON.stringify(body).match(/"type":"(function_call_output|custom_tool_call_output)"/g) ?? []).length;
    const turn = steps[step] ?? "(script ended)";
    if (typeof turn === "object" && "status" in turn) return turn;
    return encode(typeof turn === "string" ? { text: turn } : turn, cli, n++);
  };
}

function exec(cmd: string[], cwd: string, env: Record<string, string>, stdin?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    const kill = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (code) => (clearTimeout(kill), resolve({ code, stdout, stderr })));
    if (stdin === undefined) child.stdin.end();
    else child.stdin.end(stdin);
  });
}

function commandOf(cli: Cli, flags: string[], prompt: string | undefined): string[] {
  const p = prompt === undefined ? [] : [prompt];
  if (cli === "codex") {
    // `resume …` is a subcommand: its own flags follow it.
    return [CODEX, "exec", ...flags, ...p];
  }
  return [process.execPath, join(repo, "bin", "ubiquity.mjs"), "-p", "--compat", "codex", ...flags, ...p];
}

function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === ".git"
      ? []
      : e.isDirectory()
        ? listFiles(join(dir, e.name), `${prefix}${e.name}/`)
        : [`${prefix}${e.name}`],
  );
}

async function runCase(cli: Cli, c: Case): Promise<Outcome[]> {
  const root = mkdtempSync(join(tmpdir(), `cxparity-${cli}-`));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(project);
  mkdirSync(join(home, ".codex"), { recursive: true });
  if (!c.noGit) spawnSync("git", ["init", "-q"], { cwd: project });
  for (const [path, text] of Object.entries(c.files ?? {})) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), text);
  }
  for (const [path, text] of Object.entries(c.home ?? {})) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  const server = await startProviderServer(scriptOf(c.steps, cli));
  writeFileSync(
    join(home, ".codex", "config.toml"),
    `model_provider = "fake"\nmodel = "${MODEL}"\n${c.config ?? ""}\n[model_providers.fake]\nname = "fake"\nbase_url = "${server.baseURL}"\nenv_key = "FAKE_KEY"\nwire_api = "responses"\n`,
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    CODEX_HOME: join(home, ".codex"),
    TERM: "dumb",
    NO_COLOR: "1",
    FAKE_KEY: "parity-key",
  };
  const outcomes: Outcome[] = [];
  try {
    let flags = cli === "codex" ? c.codex : c.ubiquity;
    let prompt = c.prompt;
    for (let run = 0; run < (c.second ? 2 : 1); run++) {
      const before = server.requests.length;
      const out = await exec(commandOf(cli, flags, prompt), project, env, c.stdin);
      const last = [join(project, "last.txt"), join(project, "sub", "last.txt")].find((f) => existsSync(f)) ?? "";
      outcomes.push({
        ...out,
        requests: server.requests.slice(before),
        files: listFiles(project).sort(),
        ...(last ? { lastMessage: readFileSync(last, "utf8") } : {}),
      });
      if (c.second) {
        const thread = /"thread_id":"([^"]+)"/.exec(out.stdout)?.[1] ?? "";
        const second = c.second;
        flags = (cli === "codex" ? second.codex : second.ubiquity).map((f) => f.replace("$THREAD", thread));
        prompt = second.prompt;
      }
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  return outcomes;
}

/** A JSON value's shape: keys with types, and the values that carry meaning kept (not ids, paths or costs). */
function shape(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.length ? value.map((v) => shape(v, key)) : [];
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v, k)]));
  if (typeof value === "string") {
    if (/^[0-9a-f-]{36}$/.test(value)) return "<uuid>";
    if (/(^|_)id$/.test(key) || value.length > 200) return `<string ${value.length}>`;
    return value.replace(/\/tmp\/cxparity-\w+-\w+/g, "$ROOT");
  }
  if (typeof value === "number" && /cost/i.test(key)) return "<number>";
  return value;
}

/** What reached the model: the user-visible parts of the last agent request's input (instructions, user turns). */
function sent(request: RecordedRequest | undefined): string {
  if (!request) return "";
  const body = request.body as {
    model?: string;
    instructions?: string;
    input?: { role?: string; content?: unknown }[];
  };
  const text = (content: unknown) =>
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((p: { text?: string }) => p.text ?? "").join("")
        : "";
  const users = (body.input ?? []).filter((m) => m.role === "user").map((m) => text(m.content).slice(-160));
  const all = `${body.instructions ?? ""}${(body.input ?? []).map((m) => text(m.content)).join("\n")}`;
  const marks = ["French", "Ada", "stdin", "piped text"].filter((w) => all.includes(w));
  return `model ${body.model}; users ${JSON.stringify(users)}; mentions ${marks.join(",")}`;
}

function report(cli: Cli, outs: Outcome[]): void {
  for (const [i, o] of outs.entries()) {
    console.log(`--- ${cli}${outs.length > 1 ? ` run ${i + 1}` : ""}: exit ${o.code}; files ${o.files.join(",")}`);
    const stderr = o.stderr
      .split("\n")
      .filter((l) => !/could not create PATH aliases/.test(l))
      .join("\n")
      .trim();
    if (stderr) console.log(`stderr: ${stderr.replace(/\/tmp\/cxparity-\w+-\w+/g, "$ROOT").slice(0, 900)}`);
    if (o.lastMessage !== undefined) console.log(`last message file: ${JSON.stringify(o.lastMessage)}`);
    const agent = o.requests.filter((r) => ((r.body as { tools?: unknown[] })?.tools?.length ?? 0) >= 2);
    console.log(`requests: ${agent.length} agent, ${o.requests.length - agent.length} side; ${sent(agent.at(-1))}`);
    if (process.env.PARITY_RAW) console.log(`stdout raw: ${o.stdout}`);
    for (const line of o.stdout.split("\n").filter(Boolean)) {
      try {
        console.log(JSON.stringify(shape(JSON.parse(line))));
      } catch {
        console.log(`text: ${line.slice(0, 300)}`);
      }
    }
  }
}

const wanted = process.argv.slice(2);
for (const c of CASES.filter(
  (c) => !wanted.length || wanted.some((w) => c.name === w || (w.endsWith("*") && c.name.startsWith(w.slice(0, -1)))),
)) {
  console.log(`\n===== ${c.name}: codex exec ${c.codex.join(" ")} | ubiquity -p ${c.ubiquity.join(" ")}`);
  console.log(`prompt ${JSON.stringify(c.prompt)}${c.stdin ? ` stdin ${JSON.stringify(c.stdin)}` : ""}`);
  const [a, b] = await Promise.all([runCase("codex", c), runCase("ubiquity", c)]);
  report("codex", a);
  report("ubiquity", b);
}
