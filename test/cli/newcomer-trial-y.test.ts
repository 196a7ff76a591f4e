/**
 * What a newcomer's trial (y, 2026-12-07: a team lead moving CI jobs from `codex exec` and
 * `claude -p` to Ubiquity — JSON and stream-json read with jq, exit codes, --max-turns,
 * --allowedTools, a session continued in a later step, the prompt on stdin, cost in the result —
 * and a small Node service reviewing a pull request's diff through `summon()` with a custom tool, a
 * custom system prompt and typed results; the packed package in an empty project with its own
 * HOME, fake provider servers on 127.0.0.1 behind the real AI SDK packages) met:
 * - `codex exec --json` scripts had nothing to read: the runner printed Ubiquity's or Claude Code's
 *   messages only, and `--json` said "not codex's event names". `--message-format codex` (or
 *   `UBIQUITY_MESSAGE_FORMAT=codex`) now prints Codex's events — `thread.started` (its `thread_id`
 *   resumes with `--resume`), `item.completed` agent messages, `command_execution` with its
 *   `exit_code`, `turn.completed` with the usage, and the cost, which Codex does not print;
 * - `git diff | ubiquity -p -` (codex exec's `-`: the prompt is stdin) sent the model the word "-"
 *   as the instruction, with the diff in a `<stdin>` block after it: `-` now means stdin is the prompt;
 * - codex exec's `--ephemeral`, `--ignore-user-config` and `--ignore-rules` were a bare "unknown
 *   flag": each now names what to pass (`--no-session-persistence`) or why to drop it;
 * - `--disallowedTools bash` (lower case) left Bash offered and running, and `--allowedTools Wirte`
 *   approved nothing, without a word (claude is silent too): a rule of the flags that names no tool
 *   of the run but is near one is now named with the tool meant;
 * - `codex exec review --base main` (and `codex review`), a PR review job's command, was "`ubiquity
 *   exec` is not a command" with `codex exec`'s general advice: it now names the diff to pipe in;
 * - `-c` in a later CI step that runs in another folder (or HOME) found no session and started a new
 *   one silently (claude stops: "No conversation found to continue"): the run now says so on stderr,
 *   naming the folder and `--resume <id>`;
 * - `--max-budget-usd` on a model with no known price stopped the run naming `modelPricing` and
 *   `maxBudgetTokens`, options a CI step has no flag for: it now says where modelPricing goes and
 *   names `--max-budget-tokens`;
 * - no page said how a CI job runs: the checkout is untrusted (its config skipped without `--trust`
 *   or UBIQUITY_TRUST=1), nothing prompts, and sessions live under HOME. The runner guide has an
 *   "In a CI job" paragraph and block, run here as written;
 * - an exhaustive `switch` over `ResultMessage["subtype"]` in the service failed tsc on
 *   `error_session_write` and `error_stale_writer`, which the message stream's page did not list:
 *   it lists them now, and says a plugin may add its own.
 * Noticed and left (kernel, src/): an aborted run (`abortSignal: AbortSignal.timeout(…)`) ends
 * "Run aborted." without the signal's reason; `ResultMessage.modelUsage`'s doc comment says tool
 * calls are counted in `usage` only, where each model's `toolCalls` are filled in.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { requireDist } from "../helpers/project";

let app: string | undefined;
/** The user's project: the packed package installed into an empty folder. */
function project(): string {
  if (app) return app;
  const dir = tempDir("ubiquity-trial-y-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "ci-jobs", private: true, type: "module" }));
  writeFileSync(join(dir, "notes.md"), "release notes\n");
  installPacked(dir);
  app = dir;
  return dir;
}

/** A fresh HOME, as each CI job has. */
function freshHome(): string {
  return tempDir("ubiquity-trial-y-home-");
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The bin the project installed, run as a CI step runs it (no terminal; `input` on stdin, else stdin closed). */
function ubiquity(args: string[], cwd: string, env: Record<string, string>, input = ""): Promise<Run> {
  return new Promise((resolve) => {
    const bin = join(project(), "node_modules", "ubiquity", "bin", "ubiquity.mjs");
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "1", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

/** One printed line, as a jq filter reads it: a codex event or a Ubiquity message. */
interface Line {
  type: string;
  thread_id?: string;
  item: { id: string; type: string; text?: string; aggregated_output?: string };
  error: { message: string };
  usage?: unknown;
  total_cost_usd?: number | null;
  text?: string;
  result?: string;
}

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);

let server: FakeProviderServer;
beforeAll(async () => {
  requireDist();
  // An OpenAI model on the Responses wire: a Bash call, then the answer (each step of the job).
  server = await startProviderServer((request) => {
    const body = JSON.stringify(request.body);
    return body.includes("function_call_output")
      ? { text: "The tests pass.", usage: { inputTokens: 1200, outputTokens: 20, cacheReadTokens: 200 } }
      : {
          toolCalls: [{ name: "Bash", input: { command: "echo tests ok" } }],
          usage: { inputTokens: 1000, outputTokens: 30 },
        };
  });
});
afterAll(async () => {
  await server?.close();
  removePackedDirs();
});

describe("a codex exec --json job", () => {
  it("--message-format codex prints codex's events, with the thread to resume and the cost", async () => {
    const home = freshHome();
    const env = { HOME: home, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL };
    const flags = [
      "-p",
      "--model",
      "openai:gpt-4o",
      "--allowedTools",
      "Bash(echo:*)",
      "--output-format",
      "stream-json",
    ];
    const step1 = await ubiquity([...flags, "--message-format", "codex", "run the tests"], project(), env);
    expect(step1.code, step1.stderr).toBe(0);
    const events = lines(step1.stdout);
    expect(events[0]).toEqual({ type: "thread.started", thread_id: expect.any(String) });
    expect(events[1]).toEqual({ type: "turn.started" });
    // jq 'select(.type == "item.completed" and .item.type == "command_execution")'
    const command = events.find((e) => e.type === "item.completed" && e.item.type === "command_execution");
    expect(command?.item).toMatchObject({ command: "echo tests ok", exit_code: 0, status: "completed" });
    expect(command?.item.aggregated_output).toContain("tests ok");
    expect(events.some((e) => e.type === "item.started" && e.item.id === command?.item.id)).toBe(true);
    // jq -r 'select(.type == "item.completed" and .item.type == "agent_message") | .item.text' | tail -1
    const messages = events.filter((e) => e.type === "item.completed" && e.item.type === "agent_message");
    expect(messages.at(-1)?.item.text).toBe("The tests pass.");
    const done = events.at(-1)!;
    expect(done.type).toBe("turn.completed");
    expect(done.usage).toEqual({
      input_tokens: 2200,
      cached_input_tokens: 200,
      cache_write_input_tokens: 0,
      output_tokens: 50,
    });
    expect(done.total_cost_usd).toBeGreaterThan(0);

    // A later step of the job: `codex exec resume <thread_id>` is `--resume <thread_id>`.
    const thread = events[0]!.thread_id!;
    const step2 = await ubiquity(
      ["-p", "--resume", thread, "--output-format", "stream-json", "--allowedTools", "Bash(echo:*)", "again"],
      project(),
      { ...env, UBIQUITY_MESSAGE_FORMAT: "codex" },
    );
    expect(step2.code, step2.stderr).toBe(0);
    expect(lines(step2.stdout)[0]).toEqual({ type: "thread.started", thread_id: thread });
  });

  it("a failed turn is turn.failed (exit 1); a usage error one error line (exit 2); json has no codex form", async () => {
    const env = { HOME: freshHome() };
    const failed = await ubiquity(
      [
        "-p",
        "--model",
        "test",
        "--max-turns",
        "1",
        "--output-format",
        "stream-json",
        "--message-format",
        "codex",
        "read notes.md",
      ],
      project(),
      env,
    );
    expect(failed.code).toBe(1);
    const last = lines(failed.stdout).at(-1)!;
    expect(last.type).toBe("turn.failed");
    expect(last.error.message).toContain("maximum number of turns");
    // Read has no codex item: it comes as a tool_call, which codex's consumers skip.
    expect(lines(failed.stdout).find((e) => e.type === "item.started")?.item).toMatchObject({
      type: "tool_call",
      tool: "Read",
    });

    const json = await ubiquity(
      ["-p", "--model", "test", "--output-format", "json", "--message-format", "codex", "hi"],
      project(),
      env,
    );
    expect(json.code).toBe(2);
    expect(lines(json.stdout)).toEqual([
      { type: "error", message: expect.stringContaining("--output-format stream-json"), exit_code: 2 },
    ]);

    // A live session (--input-format stream-json): each prompt is a turn, with its own usage.
    const live = await ubiquity(
      [
        "-p",
        "--model",
        "test",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--message-format",
        "codex",
      ],
      project(),
      env,
      `${JSON.stringify({ type: "user", text: "hi" })}\n${JSON.stringify({ type: "user", text: "hi" })}\n`,
    );
    expect(live.code, live.stderr).toBe(0);
    const turns = lines(live.stdout).filter((e) => e.type.startsWith("turn."));
    expect(turns.map((e) => e.type)).toEqual(["turn.started", "turn.completed", "turn.started", "turn.completed"]);
    const [one, two] = [turns[1]!.usage, turns[3]!.usage] as { input_tokens: number }[];
    expect(two!.input_tokens).toBeLessThan(one!.input_tokens * 1.5);

    const codexJson = await ubiquity(["-p", "--model", "test", "--json", "hi"], project(), env);
    expect(codexJson.code).toBe(2);
    expect(codexJson.stderr).toContain("--output-format stream-json --message-format codex");
  });
});

describe("codex exec's other habits", () => {
  it("`-` reads the prompt from stdin: the model gets the piped text, not the word -", async () => {
    const run = await ubiquity(
      ["-p", "--model", "test", "--output-format", "stream-json", "-"],
      project(),
      { HOME: freshHome() },
      "read notes.md\n",
    );
    expect(run.code, run.stderr).toBe(0);
    const user = lines(run.stdout).find((m) => m.type === "user");
    expect(user?.text).toBe("read notes.md");
    expect(lines(run.stdout).at(-1)?.result).toContain("release notes");

    const empty = await ubiquity(["-p", "--model", "test", "-"], project(), { HOME: freshHome() });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("`-` reads it from standard input");
  });

  it("--ephemeral, --ignore-user-config and --ignore-rules say what to do here", async () => {
    const cases: [string, string][] = [
      ["--ephemeral", "--no-session-persistence"],
      ["--ignore-user-config", "read only with --compat codex"],
      ["--ignore-rules", "execpolicy .rules files are not read"],
    ];
    for (const [flag, fix] of cases) {
      const run = await ubiquity(["-p", "--model", "test", flag, "hi"], project(), { HOME: freshHome() });
      expect(run.code, flag).toBe(2);
      expect(run.stderr).toContain(`${flag} is a codex exec flag ubiquity does not take`);
      expect(run.stderr).toContain(fix);
    }
  });
});

describe("codex review", () => {
  it("codex exec review and codex review name the diff to pipe into ubiquity -p; review -p stays a prompt", async () => {
    const env = { HOME: freshHome() };
    for (const argv of [
      ["exec", "review", "--base", "main"],
      ["review", "--uncommitted"],
    ]) {
      const run = await ubiquity(argv, project(), env);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr).toContain('git diff <branch>...HEAD | ubiquity -p "review this diff"');
    }
    const prompt = await ubiquity(["review", "-p", "--model", "test"], project(), env);
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(prompt.stdout).toContain('you said "review"');
  });
});

describe("a claude -p job", () => {
  it("a rule flag naming no tool but near one is named with the tool meant; real names are quiet", async () => {
    const env = { HOME: freshHome() };
    const typo = await ubiquity(
      [
        "-p",
        "--model",
        "test",
        "--disallowedTools",
        "bash",
        "--allowedTools",
        "Read,Wirte",
        "--output-format",
        "stream-json",
        'call Bash {"command":"echo ran"}',
      ],
      project(),
      env,
    );
    expect(typo.stderr).toContain('the rule "bash" (--disallowedTools, disallowedTools) names no tool of this run');
    expect(typo.stderr).toContain('did you mean "Bash"?');
    expect(typo.stderr).toContain('the rule "Wirte" (--allowedTools, approvedTools)');
    expect(typo.stderr).toContain('did you mean "Write"?');

    const fine = await ubiquity(
      [
        "-p",
        "--model",
        "test",
        "--allowedTools",
        "Read,Bash(npm test:*),mcp__github__*,Task",
        "--disallowedTools",
        "WebFetch",
        "hi",
      ],
      project(),
      env,
    );
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stderr).not.toContain("names no tool");
  });

  it("-c in a later step with no session in its folder says a new session starts; then it continues", async () => {
    const home = freshHome();
    const other = join(project(), "app");
    mkdirSync(other, { recursive: true });
    const first = await ubiquity(["-p", "--model", "test", "-c", "--output-format", "json", "hi"], other, {
      HOME: home,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`no stored session for ${other}`);
    expect(first.stderr).toContain("--resume <id>");
    const again = await ubiquity(["-p", "--model", "test", "-c", "--output-format", "json", "again"], other, {
      HOME: home,
    });
    expect(again.stderr).not.toContain("no stored session");
    expect(JSON.parse(again.stdout).sessionId).toBe(JSON.parse(first.stdout).sessionId);
  });
});

describe("the runner guide's CI job", () => {
  it("runs as written (on the offline model): the second step resumes the first step's session", async () => {
    const guide = readFileSync(join(project(), "node_modules", "ubiquity", "docs", "guide", "runner.md"), "utf8");
    const block = /\*\*In a CI job\.\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block, "docs/guide/runner.md has no CI block").toBeDefined();
    const steps = block!.split("\n").filter((l) => l.startsWith("npx ubiquity "));
    expect(steps).toHaveLength(2);
    const home = freshHome();
    // Each step as written, on the offline model; the shell's redirection and $(jq …) done here.
    const argv = (line: string) =>
      [...line.replace(/ > first\.json$/, "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(2);
    const first = await ubiquity(["--model", "test", ...argv(steps[0]!)], project(), { HOME: home });
    expect(first.code, first.stderr).toBe(0);
    const result = JSON.parse(first.stdout) as { sessionId: string; totalCostUsd: number | null; result: string };
    expect(result.totalCostUsd).toBeNull();
    const second = argv(steps[1]!).map((a) => (a.includes("$(jq -r .sessionId first.json)") ? result.sessionId : a));
    const next = await ubiquity(["--model", "test", "--output-format", "json", ...second], project(), { HOME: home });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).sessionId).toBe(result.sessionId);
  });

  it("a spending cap on a model with no price names the runner's way out", async () => {
    const run = await ubiquity(["-p", "--model", "test", "--max-budget-usd", "0.5", "hi"], project(), {
      HOME: freshHome(),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--max-budget-tokens in the runner");
    expect(run.stderr).toContain("in ubiquity.config.ts");
  });
});

describe("the review service's types", () => {
  it("every result subtype the installed declarations have is listed on the message stream's page", () => {
    const pkg = join(project(), "node_modules", "ubiquity");
    const subtypes = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".d.ts")) {
          const text = readFileSync(path, "utf8");
          for (const block of text.matchAll(/interface ResultSubtypes \{([^}]*)\}/g))
            for (const key of block[1]!.matchAll(/(\w+): true/g)) subtypes.add(key[1]!);
        }
      }
    };
    walk(join(pkg, "dist", "types"));
    expect(subtypes).toContain("error_stale_writer");
    const page = readFileSync(join(pkg, "docs", "guide", "messages.md"), "utf8");
    expect([...subtypes].filter((s) => !page.includes(`\`${s}\``))).toEqual([]);
  });
});
