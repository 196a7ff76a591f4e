/**
 * `ubiquity -p --message-format claude` against the real `claude -p`: what a differential run
 * (scripts/claude-parity.ts, Claude Code 2.1.197 from npm, both CLIs on the same scripted answers
 * of one fake Anthropic server, the same flags, each in its own HOME and project) found, and the
 * tests of the differences that were defects. The tests run the built bin on a scripted model; the
 * claude binary is not needed. A difference counts as a defect only where claude's documented
 * behaviour (the headless and Agent SDK docs: result, init, assistant, user and stream_event
 * messages) agrees with what the binary did.
 *
 * | compared | outcome |
 * | --- | --- |
 * | text: the answer alone on stdout, exit 0 | same |
 * | json: one result line; type, subtype, is_error, result, num_turns, session_id, duration_ms, duration_api_ms, total_cost_usd, usage.{input,output,cache_*}_tokens, modelUsage, permission_denials, stop_reason, uuid | same names and types; claude adds undocumented keys (api_error_status, ttft_ms, terminal_reason, fast_mode_state, usage.server_tool_use…): left as is |
 * | json --verbose: one array of every message | same |
 * | stream-json --verbose: system init, assistant (tool_use blocks), user (tool_result blocks with tool_use_id), result | same shapes; claude prints one assistant line per content block and `stop_reason: null` on them, ubiquity one line per response with its stop reason (both documented shapes); claude's user lines add `tool_use_result` and `timestamp`: left as is |
 * | stream-json --include-partial-messages: stream_event lines | **fixed**: ubiquity printed bare `content_block_delta`s, all at index 0 (a tool call's input too); claude prints the whole Anthropic stream — message_start, content_block_start (a tool call's id and name), deltas at the block's index, content_block_stop, message_delta (stop_reason), message_stop — as the Agent SDK's streaming guide documents. Left: claude prints the assistant line before its last block's content_block_stop, ubiquity after it (before message_delta); a tool call's input deltas come when the response's assistant message names the tool (the kernel's tool_input deltas carry no name) |
 * | system init: session_id, cwd, tools, mcp_servers, model, permissionMode, slash_commands, apiKeySource, output_style, agents, skills, plugins | same names; values are each agent's own (model `anthropic:…` with its provider, apiKeySource "none"); claude adds claude_code_version, memory_paths: left as is |
 * | model names: init.model, assistant message.model, modelUsage keys | `anthropic:claude-sonnet-4-5` against `claude-sonnet-4-5`: left as is (ubiquity's model names carry their provider; the value names the same model) |
 * | --max-turns 1 with a tool call: subtype error_max_turns, is_error, errors[], exit 1 | same; claude's num_turns counts the refused turn (2 against 1) and its result has no `result` key (ubiquity's carries the message): left as is (undocumented) |
 * | text output of a failed run (max turns, 401, 400, 529): claude prints the error on stdout, ubiquity on stderr; exit 1 both | left as is: the exit code is what scripts test, and ubiquity's stdout stays the answer |
 * | permission denial in -p (Write, Bash): tool_result is_error, permission_denials[{tool_name, tool_use_id, tool_input}], exit 0 | same |
 * | server 401 / 500 / 529: is_error true, exit 1 | claude reports subtype "success" with is_error true, ubiquity "error_during_execution" (the documented error subtype): left as is. **fixed**: total_cost_usd was null (documented as a number; claude prints 0) when the run used no tokens |
 * | retries of 500/529: claude prints `system/api_retry` lines in stream-json | left as is: ubiquity's retry plugin emits no message for a retry (needs a message type of its own, beyond the runner) |
 * | unknown flag, invalid --permission-mode / --output-format, empty prompt, no prompt and no stdin, unknown --resume id, --input-format stream-json without stream-json output | both refuse before any request, naming the problem on stderr; exit 1 (claude) against 2 (ubiquity's usage/configuration code, DESIGN §6): left as is |
 * | stdin as the prompt; stdin with a prompt | same outcome; ubiquity sends the piped text inside `<stdin>` after the prompt: left as is |
 * | --input-format stream-json (with --verbose) | same lines |
 * | text with --verbose | claude printed the final answer only; its docs say --verbose shows the full turn-by-turn output, which ubiquity prints (each assistant text on stdout, diagnostics on stderr): docs and binary disagree, left as is |
 * | stream-json without --verbose | claude refuses (exit 1), ubiquity prints the stream: left as is (lenient, and every claude script passes --verbose) |
 * | --allowedTools Bash(touch:*), --disallowedTools Read, --permission-mode acceptEdits (Write, Edit), plan (Write, also with --allowedTools Write), dontAsk (Read runs, Write denied), bypassPermissions (Bash; with --disallowedTools Bash(touch:*) denied) | same effects on the files and the same permission_denials |
 * | --permission-mode acceptEdits with Bash `touch marker` | **fixed**: claude runs it, as its permission-modes page documents (acceptEdits approves "common filesystem commands (mkdir, touch, mv, cp)"); ubiquity asked (denied in -p). Now mkdir, touch and cp run when the engine proves the command as it would under `Bash(mkdir:*)`-style allow rules, every file read or written inside the project and named; `mv` still asks (a move leaves later paths unprovable to the engine: fail closed), and so does anything more (`touch x && echo y`, a path outside, .git/) |
 * | acceptEdits, Write outside the project | refused by both; claude lists it in permission_denials, ubiquity's Write refuses it as outside the permitted folders (a tool error, not a denial): left as is |
 * | Glob and Grep calls | ubiquity runs them; this claude build offers no Glob/Grep tools (it answers "No such tool available" and points at Bash): left as is |
 * | --resume <session_id>, --continue | same: the session id printed again, the earlier turns sent |
 * | --system-prompt, --append-system-prompt | accepted by both, run succeeds |
 * | --model haiku | claude resolves it; ubiquity stops with a configuration error naming `anthropic:claude-haiku-4-5` (a model string names its provider): left as is |
 * | --max-turns 0 | claude runs without a limit; ubiquity refuses it as a usage error: left as is (undocumented in claude) |
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, streamMessages, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

afterAll(removeTempProjects);
beforeAll(requireDist);

/** Run `ubiquity -p --message-format claude` in a fresh project whose scripted model plays `steps`. */
async function claudeRun(args: string[], steps: unknown[], files: Record<string, string> = {}) {
  const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG, ...files }, { linkUbiquity: true });
  const log = join(dir, "model.log");
  writeFileSync(log, "");
  const out = await runCli(["-p", "--message-format", "claude", ...args], dir, {
    UBQ_STEPS: JSON.stringify(steps),
    UBQ_SESSIONS: join(dir, "sessions"),
    UBQ_LOG: log,
  });
  return { ...out, dir, requests: readFileSync(log, "utf8").split("\n").filter(Boolean).length };
}

type Line = { type: string; event?: Record<string, unknown>; message?: Record<string, unknown> };

describe.concurrent("claude -p parity: --message-format claude", () => {
  it("--include-partial-messages: each response is a whole Anthropic stream; a tool call's block starts with its id and name at its own index", async () => {
    const steps = [
      {
        text: "Reading it.",
        chunkSize: 4,
        toolCalls: [{ toolName: "Read", input: { file_path: "a.txt" }, id: "toolu_parity1" }],
      },
      { text: "It says alpha.", chunkSize: 5 },
    ];
    const out = await claudeRun(
      ["--output-format", "stream-json", "--verbose", "--include-partial-messages", "read a.txt"],
      steps,
      { "a.txt": "alpha\n" },
    );
    expect(out.code, out.stderr).toBe(0);
    const lines = streamMessages(out.stdout) as Line[];
    // The lines of each response: from its message_start, its stream events and its assistant line.
    const responses: Line[][] = [];
    for (const line of lines) {
      if (line.type === "stream_event" && line.event!.type === "message_start") responses.push([]);
      if (line.type === "stream_event" || line.type === "assistant") responses.at(-1)!.push(line);
    }
    expect(responses).toHaveLength(2);
    const summary = (response: Line[]) =>
      response.map((l) =>
        l.type === "assistant"
          ? "assistant"
          : `${l.event!.type}${l.event!.index === undefined ? "" : `@${l.event!.index}`}`,
      );
    expect(summary(responses[0]!)).toEqual([
      "message_start",
      "content_block_start@0",
      "content_block_delta@0",
      "content_block_delta@0",
      "content_block_delta@0",
      "content_block_stop@0",
      "content_block_start@1",
      "content_block_delta@1",
      "content_block_stop@1",
      "assistant",
      "message_delta",
      "message_stop",
    ]);
    const events = responses[0]!.map((l) => l.event ?? {});
    expect(events[1]).toMatchObject({ content_block: { type: "text", text: "" } });
    expect(events[6]).toMatchObject({
      content_block: { type: "tool_use", id: "toolu_parity1", name: "Read", input: {} },
    });
    expect(JSON.parse((events[7]!.delta as { partial_json: string }).partial_json)).toEqual({ file_path: "a.txt" });
    expect(events[10]).toMatchObject({ delta: { stop_reason: "tool_use", stop_sequence: null } });
    // The stream's message is the assistant line's: same id.
    const started = (events[0]!.message as { id: string }).id;
    expect(started).toMatch(/^msg_/);
    expect(responses[0]![9]!.message!.id).toBe(started);
    expect(summary(responses[1]!)).toEqual([
      "message_start",
      "content_block_start@0",
      "content_block_delta@0",
      "content_block_delta@0",
      "content_block_delta@0",
      "content_block_stop@0",
      "assistant",
      "message_delta",
      "message_stop",
    ]);
    expect(responses[1]![7]!.event).toMatchObject({ delta: { stop_reason: "end_turn" } });
    // Every stream line keeps the Agent SDK's envelope.
    for (const line of lines.filter((l) => l.type === "stream_event"))
      expect(line).toMatchObject({
        parent_tool_use_id: null,
        session_id: expect.any(String),
        uuid: expect.any(String),
      });
  });

  it("acceptEdits runs mkdir, touch and cp inside the project without asking, as claude's does; anything more still asks (denied in -p)", async () => {
    const bash = (command: string, n: number) => ({
      toolCalls: [{ toolName: "Bash", input: { command }, id: `toolu_fs${n}` }],
    });
    const steps = [
      bash("touch marker", 1),
      bash("mkdir d && cp a.txt d/b.txt", 2),
      bash("touch ../escaped", 3),
      bash("cp /etc/hostname copied", 4),
      bash("touch m2 && echo made", 5),
      bash("touch .git/hooks/pre-commit", 6),
      // A move leaves the engine unable to follow later paths: it still asks (claude's runs it).
      bash("mv a.txt moved.txt", 7),
      "done",
    ];
    const out = await claudeRun(["--output-format", "json", "--permission-mode", "acceptEdits", "tidy up"], steps, {
      "a.txt": "alpha\n",
      ".git/hooks/.keep": "",
    });
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as { permission_denials: { tool_use_id: string }[]; cwd?: string };
    expect(result.permission_denials.map((d) => d.tool_use_id)).toEqual([
      "toolu_fs3",
      "toolu_fs4",
      "toolu_fs5",
      "toolu_fs6",
      "toolu_fs7",
    ]);
    const dir = out.dir;
    expect(existsSync(join(dir, "marker"))).toBe(true);
    expect(readFileSync(join(dir, "d", "b.txt"), "utf8")).toBe("alpha\n");
    expect(existsSync(join(dir, "moved.txt"))).toBe(false);
    expect(existsSync(join(dir, "..", "escaped"))).toBe(false);
    expect(existsSync(join(dir, "copied"))).toBe(false);
    expect(existsSync(join(dir, "m2"))).toBe(false);
    expect(existsSync(join(dir, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("a run that failed before using any tokens costs 0, as claude prints it (total_cost_usd is a number)", async () => {
    const out = await claudeRun(
      ["--output-format", "json", "hi"],
      [{ error: { status: 401, message: "invalid x-api-key" } }],
    );
    expect(out.code).toBe(1);
    // One object (the result), not a list.
    const result = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ type: "result", is_error: true, total_cost_usd: 0 });
    expect(out.requests).toBe(1);
  });
});
