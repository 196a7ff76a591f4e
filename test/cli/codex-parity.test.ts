/**
 * `ubiquity -p --compat codex` (stream-json in `--message-format codex` where Codex has `--json`)
 * against the real `codex exec`: what a differential run (scripts/codex-parity.ts, codex-cli 0.171.0
 * from npm, both CLIs on the same scripted answers of one fake Responses-wire server, named by the
 * same `~/.codex/config.toml` `model_provider` in each one's own HOME and project) found, and the
 * tests of the differences that were defects. The tests run the built bin against the fake server;
 * the codex binary is not needed. A difference counts as a defect only where Codex's documentation
 * (developers.openai.com/codex: non-interactive mode, config-advanced) agrees with what the binary did.
 *
 * | compared | outcome |
 * | --- | --- |
 * | text: the answer alone on stdout, exit 0 | same; codex prints its progress (header, the prompt, each command, "tokens used") on stderr, ubiquity nothing: left as is (progress text is for people; `--verbose` shows ubiquity's) |
 * | --json: thread.started (thread_id), turn.started, item.completed agent_message, turn.completed | same names, order and types |
 * | turn.completed usage: input_tokens, cached_input_tokens, cache_write_input_tokens, output_tokens, reasoning_output_tokens | **fixed**: cache_write_input_tokens was missing. Left: reasoning_output_tokens (the kernel's usage has no reasoning count: printing 0 would be made up); ubiquity adds total_cost_usd and num_turns (documented) |
 * | reasoning item (a reasoning summary streamed) | same |
 * | command_execution: item.started (aggregated_output "", exit_code null, status in_progress), item.completed (exit_code, aggregated_output, status completed/failed) | **fixed**: item.started had no exit_code (codex: null); aggregated_output carried the Bash tool's note for the model ("…\n\n[Exit code 3]", "(no output)") and lacked the output's last newline ("made" against "made\n"). Left: `command` is the command as the model wrote it, codex's the argv it ran (`/bin/bash -lc '…'`) |
 * | apply_patch: file_change item.started (changes, in_progress), item.completed (changes[{path absolute, kind add/update/delete}], status) | **fixed**: no item.started (codex 0.171 starts a patch's item with its changes); a failed patch completed with `changes: []`, now the changes it meant |
 * | apply_patch Update of a file the run has not read | codex applies it; ubiquity's file tools refuse a change to a file not read in the run (status failed): left as is (the file-tools kit's read-before-write rule, a safety choice beyond the message shape) |
 * | mcp_tool_call (a `[mcp_servers]` entry of config.toml, read by both) | not compared: codex 0.171 defers MCP tools behind tool_search and its router refuses a direct call ("unsupported call"); todo_list likewise (this codex offers no plan tool to exec) |
 * | server 401: exit 1; --json `error` then `turn.failed` with the same message | **fixed**: ubiquity printed turn.failed only; a wrapper that watches `select(.type=="error")` saw nothing. **fixed**: its message told a user whose key comes from the config.toml model_provider's `env_key` to "check OPENAI_API_KEY", a variable the run never read; it now names the configured key and env_key. Left: codex retries a 401 five times with an `error` "Reconnecting… n/5" line each, ubiquity does not retry a refused key; the messages' wording; ubiquity's turn.failed adds usage, cost and num_turns |
 * | server 500: exit 1, error + turn.failed | same after the fix above; codex retries 5 times (stream retries too), ubiquity 3 (`maxRetries`) |
 * | unknown flag: exit 2, a message on stderr | same; with stream-json ubiquity also prints one `{"type":"error",…,"exit_code":2}` line on stdout (documented), codex nothing: left as is |
 * | empty prompt `""` | codex sends an empty prompt (exit 0), ubiquity refuses (exit 2, nothing sent): left as is (an empty prompt is a script's unset variable; refusing costs no tokens) |
 * | no prompt and empty stdin | both refuse before any request; exit 1 (codex) against 2 (ubiquity's usage code, DESIGN §6): left as is |
 * | `-` and piped stdin as the prompt; a prompt with stdin (`<stdin>` block) | same; codex keeps the piped text's last newline: left as is |
 * | -o / --output-last-message <file> (also with --json, with -C: the path is the caller's; a failed run writes an empty file) | **fixed**: ubiquity refused it (exit 2, "redirect stdout"), which a `--json -o` job cannot do; it now writes the file as codex does |
 * | --output-schema <file>: the last agent_message is the JSON text | same |
 * | -C/--cd dir | ubiquity's is --cwd (-C is refused naming it, documented): same outcome |
 * | outside a git repository without --skip-git-repo-check | codex refuses (exit 1), ubiquity runs: left as is (documented: any folder works); --skip-git-repo-check is refused naming why (documented) |
 * | --sandbox read-only / workspace-write, --full-auto, -m, -c key=value, --dangerously-bypass-approvals-and-sandbox | ubiquity refuses each (exit 2) naming its own flag (documented); this codex has no --full-auto any more (exit 2 too). **fixed**: -m's hint (`--model openai:<model>`) sends a user of config.toml's own model_provider to OpenAI instead; it now names a profile file for that |
 * | --profile <name> with ~/.codex/<name>.config.toml | **fixed**: codex (since 0.134, documented) lays `<name>.config.toml` over config.toml; ubiquity read only `[profiles.<name>]` and stopped (exit 2) "this file has no [profiles.<name>] table". It now reads the file (tables merged), then the legacy table |
 * | --profile with only a legacy `[profiles.<name>]` table | codex 0.171 refuses it (exit 1, "move those settings"); ubiquity still reads it: left as is (older Codex users' files keep working) |
 * | --profile <name> with neither | codex runs on the base config (exit 0), ubiquity stops naming both places (exit 2): left as is (fail closed: the named settings were meant) |
 * | AGENTS.md (~/.codex and the project) | both reach the model; a project's only once the folder is trusted (DESIGN §3a): left as is |
 * | /prompts:<name> ARG=… (~/.codex/prompts) | codex exec sends the words as they are (its prompts expand in the TUI only); ubiquity expands them (documented): left as is |
 * | resume --last / resume <id> → --continue / --resume <id> | same turns sent; codex's resumed turn.completed usage counts the earlier run's tokens too: left as is (undocumented). **fixed**: `ubiquity -p resume <id> "…"` (the habit typed after -p) started a new session with "resume <id> …" as its prompt (exit 0) and `-p resume --last` said "unknown flag --last": both are now exit 2 naming --resume and --continue |
 * | a turn limit (ubiquity --max-turns; codex has none) | ubiquity: error + turn.failed, exit 1 |
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer, type FakeTurn } from "../../src/testing/index";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const JSON_FLAGS = ["--output-format", "stream-json", "--message-format", "codex"];

interface Event {
  type: string;
  message?: string;
  error?: { message: string };
  usage?: Record<string, number>;
  item?: { id: string; type: string; [key: string]: unknown };
}

const events = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Event);

/** A Codex user's HOME: config.toml naming the fake server as its model_provider, and the `fast` profile file. */
function codexHome(server: FakeProviderServer): string {
  const home = tempProject({}, { packageJson: false });
  mkdirSync(join(home, ".codex"));
  writeFileSync(
    join(home, ".codex", "config.toml"),
    `model_provider = "fake"\nmodel = "gpt-5.5"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${server.baseURL}"\nenv_key = "FAKE_KEY"\nwire_api = "responses"\n`,
  );
  writeFileSync(join(home, ".codex", "fast.config.toml"), 'model = "gpt-5.4"\n');
  return home;
}

/** `ubiquity -p --compat codex` in `project` with the Codex HOME of `server`. */
async function codexRun(server: FakeProviderServer, project: string, args: string[]) {
  return runCli(["-p", "--compat", "codex", ...args], project, { HOME: codexHome(server), FAKE_KEY: "parity-key" });
}

const PATCH_ADD = "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch\n";
const PATCH_UPDATE = "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+omega\n*** End Patch\n";

/** The answer after `n` tool results: a failing command, a patch that adds, one that updates an unread file, the answer. */
const STEPS: FakeTurn[] = [
  { toolCalls: [{ name: "Bash", input: { command: "echo oops >&2; exit 3" } }] },
  { toolCalls: [{ name: "apply_patch", input: { input: PATCH_ADD } }] },
  { toolCalls: [{ name: "apply_patch", input: { input: PATCH_UPDATE } }] },
  { text: "All done.", usage: { inputTokens: 120, cacheReadTokens: 100, cacheWriteTokens: 7, outputTokens: 30 } },
];

describe("codex exec parity: a job's events, its last message and its profile", () => {
  let server: FakeProviderServer;
  let project: string;
  let run: Promise<Awaited<ReturnType<typeof codexRun>>>;
  beforeAll(async () => {
    server = await startProviderServer((request) => {
      const done = (JSON.stringify(request.body).match(/"type":"function_call_output"/g) ?? []).length;
      return STEPS[done] ?? "(script ended)";
    });
    project = tempProject({ "a.txt": "alpha\n" }, { packageJson: false });
    // codex exec --json --profile fast -o last.txt --dangerously-bypass-approvals-and-sandbox "…"
    run = codexRun(server, project, [
      ...JSON_FLAGS,
      "--profile",
      "fast",
      "-o",
      "last.txt",
      "--dangerously-skip-permissions",
      "--no-sandbox",
      "tidy up",
    ]);
  });
  afterAll(() => server?.close());

  it("--profile fast reads ~/.codex/fast.config.toml over config.toml, as codex does since 0.134", async () => {
    const out = await run;
    expect(out.code, out.stderr).toBe(0);
    expect((server.requests[0]!.body as { model: string }).model).toBe("gpt-5.4");
  });

  it("command_execution: exit_code null when started; the command's own output, the exit code apart", async () => {
    const lines = events((await run).stdout);
    const started = lines.find((e) => e.type === "item.started" && e.item?.type === "command_execution");
    expect(started?.item).toEqual({
      id: expect.any(String),
      type: "command_execution",
      command: "echo oops >&2; exit 3",
      aggregated_output: "",
      exit_code: null,
      status: "in_progress",
    });
    const done = lines.find((e) => e.type === "item.completed" && e.item?.id === started?.item?.id);
    expect(done?.item).toMatchObject({ aggregated_output: "oops\n", exit_code: 3, status: "failed" });
  });

  it("file_change: a patch's item starts with its changes; a failed one completes with the changes it meant", async () => {
    const lines = events((await run).stdout);
    const changes = lines.filter((e) => e.item?.type === "file_change");
    expect(changes.map((e) => [e.type, e.item?.changes, e.item?.status])).toEqual([
      ["item.started", [{ path: join(project, "b.txt"), kind: "add" }], "in_progress"],
      ["item.completed", [{ path: join(project, "b.txt"), kind: "add" }], "completed"],
      ["item.started", [{ path: join(project, "a.txt"), kind: "update" }], "in_progress"],
      ["item.completed", [{ path: join(project, "a.txt"), kind: "update" }], "failed"],
    ]);
    expect(changes[0]!.item!.id).toBe(changes[1]!.item!.id);
  });

  it("turn.completed's usage has codex's cache_write_input_tokens; -o writes the last message", async () => {
    const lines = events((await run).stdout);
    expect(lines.at(-1)).toMatchObject({
      type: "turn.completed",
      usage: { cache_write_input_tokens: expect.any(Number) },
    });
    expect(readFileSync(join(project, "last.txt"), "utf8")).toBe("All done.");
  });
});

describe("codex exec parity: a failed turn and the resume habit", () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startProviderServer([{ status: 401, message: "Incorrect API key provided" }]);
  });
  afterAll(() => server?.close());

  it("a 401 is an error event then turn.failed with the same message, exit 1; -o leaves an empty file", async () => {
    const project = tempProject({ "last.txt": "an earlier job's answer" }, { packageJson: false });
    const out = await codexRun(server, project, [...JSON_FLAGS, "--output-last-message", "last.txt", "hi"]);
    expect(out.code).toBe(1);
    const [error, failed] = events(out.stdout).slice(-2);
    expect(error).toEqual({ type: "error", message: expect.stringContaining("Incorrect API key provided") });
    expect(failed).toMatchObject({ type: "turn.failed", error: { message: error!.message } });
    // The key came from the model_provider's env_key (FAKE_KEY): the hint does not send the user to OPENAI_API_KEY.
    expect(error!.message).toContain("env_key");
    expect(error!.message).not.toContain("OPENAI_API_KEY");
    expect(readFileSync(join(project, "last.txt"), "utf8")).toBe("");
  });

  it("`-p resume <id>` and `-p resume --last` name --resume and --continue instead of running; -m names a profile", async () => {
    const project = tempProject({}, { packageJson: false });
    const byId = await codexRun(server, project, ["resume", "01a2502f-9a32-7693-8e55-c297123d7275", "again"]);
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain("--resume <id>");
    const last = await codexRun(server, project, ["resume", "--last", "again"]);
    expect(last.code).toBe(2);
    expect(last.stderr).toContain("ubiquity -p --continue");
    // codex exec -m on config.toml's own provider: --model openai:… would go to OpenAI, so the hint
    // names the bare name, which --compat codex runs on that provider (trial zj).
    const model = await codexRun(server, project, ["-m", "gpt-5.4", "hi"]);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain("runs on ~/.codex/config.toml's model_provider");
    expect(server.requests).toHaveLength(1);
    expect(existsSync(join(project, "last.txt"))).toBe(false);
  });
});
