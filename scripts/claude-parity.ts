/**
 * Differential run of `ubiquity -p --message-format claude` against the real `claude -p` (Claude
 * Code from npm): both CLIs get the same flags and the same scripted model answers from a fake
 * Anthropic server (ubiquity/testing's `startProviderServer`), each in its own temp project and
 * HOME; the script prints, per case, what a script wrapping `claude -p` would see from each: the
 * exit code, stderr, and stdout (each JSON line reduced to its shape: keys, types, and the values
 * that carry meaning). Not a test: the tests (test/cli/claude-parity.test.ts) pin what it found
 * without the claude binary.
 *
 *   CLAUDE_BIN=/path/to/claude npx jiti scripts/claude-parity.ts [case-name-substring…]
 *
 * Needs a build (`npx unbuild`). `PARITY_RAW=1` prints the raw stdout too.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startProviderServer, type FakeTurn, type RecordedRequest } from "../src/testing/index";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLAUDE = process.env.CLAUDE_BIN ?? "claude";

/** One case: the flags after `-p`, the prompt (none: stdin only), stdin, and the agent's answers by step. */
interface Case {
  name: string;
  flags: string[];
  prompt?: string;
  stdin?: string;
  /** The answer to the agent request after `step` tool results. */
  steps: FakeTurn[];
  files?: Record<string, string>;
  /** Run twice: the second run's flags, with `$SESSION` replaced by the first run's session id. */
  second?: { flags: string[]; prompt?: string };
}

const call = (name: string, input: unknown, id = `toolu_${name.toLowerCase()}1`) => ({
  toolCalls: [{ name, input, id }],
});

const anthropicError = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } });

const CASES: Case[] = [
  { name: "text", flags: [], prompt: "say hi", steps: ["Hello there."] },
  { name: "json", flags: ["--output-format", "json"], prompt: "say hi", steps: ["Hello there."] },
  {
    name: "json-verbose",
    flags: ["--output-format", "json", "--verbose"],
    prompt: "say hi",
    steps: ["Hello there."],
  },
  {
    name: "stream-json-no-verbose",
    flags: ["--output-format", "stream-json"],
    prompt: "say hi",
    steps: ["Hello there."],
  },
  {
    name: "stream-read",
    flags: ["--output-format", "stream-json", "--verbose"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\nbeta\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "It says alpha and beta."],
  },
  {
    name: "stream-partial",
    flags: ["--output-format", "stream-json", "--verbose", "--include-partial-messages"],
    prompt: "say hi",
    steps: ["Hello there."],
  },
  {
    name: "stream-partial-tool",
    flags: ["--output-format", "stream-json", "--verbose", "--include-partial-messages"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [{ text: "Reading it.", ...call("Read", { file_path: "$PROJECT/a.txt" }) }, "It says alpha."],
  },
  {
    name: "max-turns",
    flags: ["--output-format", "json", "--max-turns", "1"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "done"],
  },
  {
    name: "max-turns-stream",
    flags: ["--output-format", "stream-json", "--verbose", "--max-turns", "1"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "done"],
  },
  {
    name: "text-verbose",
    flags: ["--verbose"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [{ text: "Reading it.", ...call("Read", { file_path: "$PROJECT/a.txt" }) }, "It says alpha."],
  },
  {
    name: "json-partial",
    flags: ["--output-format", "json", "--verbose", "--include-partial-messages"],
    prompt: "say hi",
    steps: ["Hello there."],
  },
  {
    name: "max-turns-text",
    flags: ["--max-turns", "1"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "done"],
  },
  {
    name: "denied-write",
    flags: ["--output-format", "json"],
    prompt: "write b.txt",
    steps: [call("Write", { file_path: "$PROJECT/b.txt", content: "x\n" }), "could not write"],
  },
  {
    name: "denied-bash-stream",
    flags: ["--output-format", "stream-json", "--verbose"],
    prompt: "run touch",
    steps: [call("Bash", { command: "touch marker" }), "could not"],
  },
  { name: "unknown-flag", flags: ["--no-such-flag"], prompt: "hi", steps: ["x"] },
  { name: "unknown-flag-json", flags: ["--output-format", "json", "--no-such-flag"], prompt: "hi", steps: ["x"] },
  { name: "bad-permission-mode", flags: ["--permission-mode", "bogus"], prompt: "hi", steps: ["x"] },
  { name: "bad-output-format", flags: ["--output-format", "yaml"], prompt: "hi", steps: ["x"] },
  {
    name: "server-401",
    flags: ["--output-format", "json"],
    prompt: "hi",
    steps: [{ status: 401, body: anthropicError("authentication_error", "invalid x-api-key") }],
  },
  {
    name: "server-401-text",
    flags: [],
    prompt: "hi",
    steps: [{ status: 401, body: anthropicError("authentication_error", "invalid x-api-key") }],
  },
  {
    name: "server-400-text",
    flags: [],
    prompt: "hi",
    steps: [{ status: 400, message: "bad request thing" }],
  },
  {
    name: "server-500",
    flags: ["--output-format", "json"],
    prompt: "hi",
    steps: [{ status: 500, message: "internal thing", headers: { "retry-after": "0" } }],
  },
  {
    name: "server-529-stream",
    flags: ["--output-format", "stream-json", "--verbose"],
    prompt: "hi",
    steps: [{ status: 529, body: anthropicError("overloaded_error", "Overloaded"), headers: { "retry-after": "0" } }],
  },
  {
    name: "server-529-text",
    flags: [],
    prompt: "hi",
    steps: [{ status: 529, body: anthropicError("overloaded_error", "Overloaded"), headers: { "retry-after": "0" } }],
  },
  { name: "empty-prompt", flags: [], prompt: "", steps: ["x"] },
  { name: "no-prompt-no-stdin", flags: [], steps: ["x"] },
  { name: "stdin-prompt", flags: ["--output-format", "json"], stdin: "hi from stdin\n", steps: ["Hello."] },
  {
    name: "stdin-and-prompt",
    flags: ["--output-format", "json"],
    prompt: "summarize",
    stdin: "piped text\n",
    steps: ["Hello."],
  },
  {
    name: "input-stream-json",
    flags: ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"],
    stdin: `${JSON.stringify({ type: "user", message: { role: "user", content: "first" } })}\n`,
    steps: ["One."],
  },
  {
    name: "input-stream-json-no-verbose",
    flags: ["--output-format", "stream-json", "--input-format", "stream-json"],
    stdin: `${JSON.stringify({ type: "user", message: { role: "user", content: "first" } })}\n`,
    steps: ["One."],
  },
  {
    name: "input-stream-json-text-out",
    flags: ["--input-format", "stream-json"],
    stdin: `${JSON.stringify({ type: "user", message: { role: "user", content: "first" } })}\n`,
    steps: ["One."],
  },
  {
    name: "allowed-bash",
    flags: ["--output-format", "json", "--allowedTools", "Bash(touch:*)"],
    prompt: "run touch",
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "disallowed-read",
    flags: ["--output-format", "stream-json", "--verbose", "--disallowedTools", "Read"],
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "ok"],
  },
  {
    name: "accept-edits-write",
    flags: ["--output-format", "json", "--permission-mode", "acceptEdits"],
    prompt: "write b.txt",
    steps: [call("Write", { file_path: "$PROJECT/b.txt", content: "x\n" }), "written"],
  },
  {
    name: "accept-edits-edit",
    flags: ["--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"],
    prompt: "edit a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [
      call("Read", { file_path: "$PROJECT/a.txt" }),
      call("Edit", { file_path: "$PROJECT/a.txt", old_string: "alpha", new_string: "omega" }),
      "edited",
    ],
  },
  {
    name: "plan-write",
    flags: ["--output-format", "json", "--permission-mode", "plan"],
    prompt: "write b.txt",
    steps: [call("Write", { file_path: "$PROJECT/b.txt", content: "x\n" }), "planned"],
  },
  {
    name: "bypass-bash",
    flags: ["--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"],
    prompt: "run touch",
    steps: [call("Bash", { command: "touch marker && echo made" }), "ok"],
  },
  {
    name: "bypass-disallowed-bash",
    flags: ["--output-format", "json", "--permission-mode", "bypassPermissions", "--disallowedTools", "Bash(touch:*)"],
    prompt: "run touch",
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "plan-allowed-write",
    flags: ["--output-format", "json", "--permission-mode", "plan", "--allowedTools", "Write"],
    prompt: "write b.txt",
    steps: [call("Write", { file_path: "$PROJECT/b.txt", content: "x\n" }), "ok"],
  },
  {
    name: "dontask-read-write",
    flags: ["--output-format", "json", "--permission-mode", "dontAsk"],
    prompt: "read then write",
    files: { "a.txt": "alpha\n" },
    steps: [
      call("Read", { file_path: "$PROJECT/a.txt" }),
      call("Write", { file_path: "$PROJECT/b.txt", content: "x\n" }),
      "ok",
    ],
  },
  {
    name: "accept-edits-bash-touch",
    flags: ["--output-format", "json", "--permission-mode", "acceptEdits"],
    prompt: "run touch",
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "accept-edits-write-outside",
    flags: ["--output-format", "json", "--permission-mode", "acceptEdits"],
    prompt: "write outside",
    steps: [call("Write", { file_path: "$PROJECT/../outside.txt", content: "x\n" }), "ok"],
  },
  {
    name: "glob-grep",
    flags: ["--output-format", "stream-json", "--verbose"],
    prompt: "find",
    files: { "a.txt": "alpha\n", "b.md": "beta alpha\n" },
    steps: [call("Glob", { pattern: "*.txt" }), call("Grep", { pattern: "alpha" }), "found"],
  },
  {
    name: "resume",
    flags: ["--output-format", "json"],
    prompt: "remember plums",
    steps: ["Noted.", "Plums."],
    second: { flags: ["--output-format", "json", "--resume", "$SESSION"], prompt: "what fruit?" },
  },
  {
    name: "continue",
    flags: ["--output-format", "json"],
    prompt: "remember plums",
    steps: ["Noted.", "Plums."],
    second: { flags: ["--output-format", "json", "--continue"], prompt: "what fruit?" },
  },
  { name: "resume-unknown", flags: ["--resume", "00000000-0000-4000-8000-000000000000"], prompt: "hi", steps: ["x"] },
  {
    name: "system-prompt",
    flags: ["--output-format", "json", "--system-prompt", "You are a parrot."],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "append-system-prompt",
    flags: ["--output-format", "json", "--append-system-prompt", "Always rhyme."],
    prompt: "hi",
    steps: ["x"],
  },
  { name: "model-alias", flags: ["--output-format", "json", "--model", "haiku"], prompt: "hi", steps: ["x"] },
  { name: "max-turns-zero", flags: ["--max-turns", "0"], prompt: "hi", steps: ["x"] },
];

/** A run's observable outcome. */
interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: RecordedRequest[];
  files: string[];
}

/** The agent's answer for a request: by the number of tool results it carries; side requests (no tools) get "ok". */
function scriptOf(steps: FakeTurn[], project: string) {
  return (request: RecordedRequest): FakeTurn => {
    const body = request.body as { tools?: unknown[] } | null;
    if (!body?.tools || body.tools.length < 3) return "ok";
    const step = (JSON.stringify(body).match(/"type":"tool_result"/g) ?? []).length;
    const turn = steps[step] ?? "(script ended)";
    return JSON.parse(JSON.stringify(turn).replaceAll("$PROJECT", project)) as FakeTurn;
  };
}

function exec(
  cmd: string[],
  cwd: string,
  env: Record<string, string>,
  stdin?: string,
): Promise<Omit<Outcome, "requests" | "files">> {
  return new Promise((resolve) => {
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

type Cli = "claude" | "ubiquity";

function commandOf(cli: Cli, flags: string[], prompt: string | undefined): string[] {
  const withModel = flags.includes("--model")
    ? flags
    : [...flags, "--model", cli === "claude" ? "claude-sonnet-4-5" : "anthropic:claude-sonnet-4-5"];
  const p = prompt === undefined ? [] : [prompt];
  return cli === "claude"
    ? [CLAUDE, "-p", ...withModel, ...p]
    : [process.execPath, join(repo, "bin", "ubiquity.mjs"), "-p", "--message-format", "claude", ...withModel, ...p];
}

async function runCase(cli: Cli, c: Case): Promise<Outcome[]> {
  const root = mkdtempSync(join(tmpdir(), `parity-${cli}-`));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(project);
  mkdirSync(home);
  for (const [path, text] of Object.entries(c.files ?? {})) writeFileSync(join(project, path), text);
  const server = await startProviderServer(scriptOf(c.steps, project));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    TERM: "dumb",
    NO_COLOR: "1",
    ANTHROPIC_API_KEY: "parity-key",
    ANTHROPIC_BASE_URL: cli === "claude" ? server.url : server.baseURL,
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    IS_SANDBOX: "1",
    // claude retries even a 401 about ten times with backoff: one retry shows the path and keeps the run short.
    CLAUDE_CODE_MAX_RETRIES: "1",
  };
  const outcomes: Outcome[] = [];
  try {
    let flags = c.flags;
    let prompt = c.prompt;
    for (let run = 0; run < (c.second ? 2 : 1); run++) {
      const before = server.requests.length;
      const out = await exec(commandOf(cli, flags, prompt), project, env, c.stdin);
      const { readdirSync } = await import("node:fs");
      outcomes.push({ ...out, requests: server.requests.slice(before), files: readdirSync(project).sort() });
      if (c.second) {
        let session = "";
        try {
          session = (JSON.parse(out.stdout) as { session_id: string }).session_id;
        } catch {}
        flags = c.second.flags.map((f) => f.replace("$SESSION", session));
        prompt = c.second.prompt;
      }
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  return outcomes;
}

/** A JSON value's shape: keys with types, and the values that carry meaning kept (types of ids, times, uuids). */
function shape(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.length ? value.map((v) => shape(v, key)) : [];
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v, k)]));
  if (typeof value === "string") {
    if (/^[0-9a-f-]{36}$/.test(value)) return "<uuid>";
    if (/(^|_)(id|uuid|cwd)$|session/.test(key) || value.length > 160) return `<string ${value.length}>`;
    return value;
  }
  if (typeof value === "number" && /ms$|cost|tokens|_usd|costUSD/i.test(key)) return `<number>`;
  return value;
}

function report(cli: Cli, outs: Outcome[]): void {
  for (const [i, o] of outs.entries()) {
    console.log(`--- ${cli}${outs.length > 1 ? ` run ${i + 1}` : ""}: exit ${o.code}; files ${o.files.join(",")}`);
    if (o.stderr.trim()) console.log(`stderr: ${o.stderr.trim().slice(0, 600)}`);
    const agent = o.requests.filter((r) => ((r.body as { tools?: unknown[] })?.tools?.length ?? 0) >= 3);
    const side = o.requests.length - agent.length;
    const users = agent.at(-1)
      ? JSON.stringify(
          (agent.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages
            .filter((m) => m.role === "user")
            .map((m) => m.content),
        ).slice(0, 400)
      : "";
    const system = agent[0] ? JSON.stringify((agent[0].body as { system?: unknown }).system ?? "").slice(-200) : "";
    console.log(
      `requests: ${agent.length} agent (models ${[...new Set(agent.map((r) => (r.body as { model: string }).model))].join(",")}), ${side} side; last users ${users}`,
    );
    if (process.env.PARITY_SYSTEM) console.log(`system tail: ${system}`);
    if (process.env.PARITY_RAW) console.log(`stdout raw: ${o.stdout}`);
    const lines = o.stdout.split("\n").filter(Boolean);
    for (const line of lines) {
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
  console.log(
    `\n===== ${c.name}: -p ${c.flags.join(" ")} ${c.prompt === undefined ? "(no prompt)" : JSON.stringify(c.prompt)}${c.stdin ? ` stdin ${JSON.stringify(c.stdin)}` : ""}`,
  );
  const [a, b] = await Promise.all([runCase("claude", c), runCase("ubiquity", c)]);
  report("claude", a);
  report("ubiquity", b);
}
