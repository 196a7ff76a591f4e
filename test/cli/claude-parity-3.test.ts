/**
 * `ubiquity -p --message-format claude` against the real `claude -p`, round 3: what
 * scripts/claude-parity.ts found (Claude Code 2.1.197 from npm; both CLIs on the same scripted
 * answers of one fake Anthropic server, same flags, each in its own HOME and project; ~50 cases
 * rounds 1 and 2 did not run: what the model is sent as tool results (`PARITY_RESULTS=1`), server
 * failures, init and result field by field (`PARITY_RAW=1`), Claude Code's environment variables
 * (`PARITY_REQ=1` prints each request's model, max_tokens, thinking and headers) and signals), and
 * the tests of the differences that were defects. The tests run the built bin on a scripted model
 * or the fake server; the claude binary is not needed. A difference is a defect only where Claude
 * Code's documentation (env-vars, headless, Agent SDK reference) agrees with what the binary did.
 *
 * | compared | outcome |
 * | --- | --- |
 * | Read with offset/limit; a relative path; an image (PNG) | same content; claude numbers lines `2\ttwo`, ubiquity pads the number (`     2\ttwo`, the older Claude Code format) and says which lines a partial read covered; both attach the image as an `image` block (ubiquity adds a text block naming it): left as is |
 * | Read of a missing file, a directory, an empty file | all tool errors (the empty file a note) with other wording; claude's directory error is the bare `EISDIR…`, ubiquity's says to name a file inside: left as is |
 * | Read of 2 500 lines; of a 5 000-character line | claude 2.1.197 sent every line and the whole long line; ubiquity sends lines 1-2000 with a note naming the offset to continue from, and cuts a line at 2 000 characters, marked: left as is (a bounded read that says how to go on; the official docs found state no line limit to compare with) |
 * | Write over a file not read first | both a tool error asking to Read it first |
 * | Bash `cd sub`, then `pwd` | claude keeps the directory (its Bash tool docs: the working directory persists); ubiquity starts each call in the project (its Bash description tells the model: "cd and variables do not carry over"). Left as is for the lead: deliberate here, and the permission engine judges every path from the project folder |
 * | Read with no file_path; with a number for it | both a tool error naming the parameter; claude wraps it in `<tool_use_error>InputValidationError…`, ubiquity writes "Invalid arguments for Read: … → at file_path": left as is (wording) |
 * | Bash exit 3 with stdout and stderr; stderr only; no output | same content (is_error on the non-zero exit); claude heads it "Exit code 3", ubiquity ends it "[Exit code 3]"; "(Bash completed with no output)" against "(no output)": left as is |
 * | Bash with timeout 1000 (`sleep 20`) | claude 2.1.197 moves the command to the background and tells the model where its output goes; ubiquity kills it and says so (a tool error with the output so far): left as is (claude's auto-backgrounding is undocumented; a killed command is the documented timeout) |
 * | Bash printing 575 KB | claude saves it to a file and sends a 2 KB preview with the path; ubiquity sends 30 000 characters, head and tail, with a marker naming what was cut: left as is (both bounded) |
 * | Edit: old_string not found, found twice, file not read first, old = new | all tool errors with the same meaning; claude's `<tool_use_error>` wrapper and wording differ: left as is |
 * | Write of a new file; a call of an unknown tool | same outcome, other wording (ubiquity lists the tools offered) |
 * | Glob/Grep with no match | not comparable: this claude build offers no Glob/Grep (round 1) |
 * | 500, 529 (retry-after 0), 429 (retry-after 1), a malformed SSE stream, a 502 HTML page, a stream reset mid-message, a dropped connection, each then an answer | same: both retry and answer, exit 0, result success. claude prints `system/api_retry` lines in stream-json (left in round 1) and the SSE parse error on stderr |
 * | 500 every time | both exit 1, is_error; claude (one retry, as the harness sets) subtype success with api_error_status 500 and num_turns 1, ubiquity (3 retries) error_during_execution with num_turns 0 (round 1's finding) |
 * | result, a run with a cached tool turn: usage, total_cost_usd, num_turns, permission_denials | same values (usage.input_tokens 240 in both, cost 0.0011475, num_turns 2) |
 * | result.modelUsage[model].inputTokens | **fixed**: claude prints the uncached input tokens (240, as usage.input_tokens); ubiquity printed every input token (300), so a script adding cacheReadInputTokens and cacheCreationInputTokens counted the cache twice. Left: claude adds webSearchRequests, contextWindow, maxOutputTokens per model; `costUSD` is printed since trial zd (null for a model with no known price) |
 * | system/init with --permission-mode plan; tools, mcp_servers, slash_commands, agents, skills, plugins, output_style, cwd, model | same names and kinds (round 1); permissionMode "plan" in both. Left: apiKeySource "ANTHROPIC_API_KEY" in claude, "none" in ubiquity (round 1); claude adds claude_code_version, memory_paths |
 * | --include-partial-messages with text then a tool call | same event sequence (message_start, text block 0, tool_use block 1 with id and name, input_json_delta, content_block_stop, message_delta tool_use, message_stop). Left: claude adds `system/status` lines and `ttft_ms` on message_start |
 * | ANTHROPIC_AUTH_TOKEN without ANTHROPIC_API_KEY | same: `authorization: Bearer …`, no x-api-key |
 * | ANTHROPIC_CUSTOM_HEADERS ("X-Parity-One: one\nX-Parity-Two: two") | **fixed**: claude sends both headers, as its env-vars page documents ("Name: Value, newline-separated"); ubiquity dropped them in silence, so a gateway that routes or authenticates by a header refused the run. The model plugin now sends them with every Anthropic request (providerSettings.headers win); a line that is not a header stops the run naming its number, never its text |
 * | ANTHROPIC_MODEL without --model | claude uses it; ubiquity stops naming `--model anthropic:…` (existing, deliberate) |
 * | CLAUDE_CODE_MAX_OUTPUT_TOKENS=1234, MAX_THINKING_TOKENS=2048, BASH_DEFAULT_TIMEOUT_MS=1000 | claude sends max_tokens 1234 / thinking budget 2048 / backgrounds the `sleep 20` after 1 s; ubiquity read none of them and said nothing (max_tokens 64000, no thinking, the command ran 20 s). **fixed** as named: a run now warns on stderr for each one set (and BASH_MAX_TIMEOUT_MS), with the option that does the job here, as a Claude settings file's `env` already did; a variable whose option the config sets is not named |
 * | ANTHROPIC_BASE_URL without /v1 | claude asks for /v1/messages, ubiquity for /messages (the AI SDK appends to the base URL as given); the fake server answers both. Left as is: a real endpoint's 404 names the fix (plugins/model/failure-hint.ts) |
 * | `-p … run` (a one-word prompt that is a subcommand's name) | ubiquity reads `run` as its subcommand and stops with "no prompt"; claude has subcommands of its own (mcp, doctor…): left as is |
 * | SIGINT while the model's answer is awaited (json, text) | claude exits 0 and prints nothing; ubiquity exits 130 with an error_during_execution result ("interrupted (Ctrl-C)") in json, the error on stderr in text: left as is (an interrupted run did not do its work; undocumented in claude) |
 * | SIGTERM while waiting (stream-json; after a tool result) | both exit 143 and keep the lines printed so far; ubiquity also prints a result (error_during_execution, "terminated (SIGTERM)", its usage and cost so far), claude none: left as is |
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

afterAll(removeTempProjects);
beforeAll(requireDist);

type Result = { type: string; usage: Record<string, number>; modelUsage: Record<string, Record<string, number>> };

describe.concurrent("claude -p parity, round 3", () => {
  it("json: modelUsage inputTokens are the uncached input tokens, as usage.input_tokens", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG, "a.txt": "alpha\n" }, { linkUbiquity: true });
    const steps = [
      {
        toolCalls: [{ toolName: "Read", input: { file_path: "a.txt" }, id: "toolu_usage1" }],
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 10 },
      },
      { text: "Done.", usage: { inputTokens: 200, outputTokens: 5 } },
    ];
    const out = await runCli(
      ["-p", "--message-format", "claude", "--output-format", "json", "--allowedTools", "Read", "read a.txt"],
      dir,
      { UBQ_STEPS: JSON.stringify(steps), UBQ_SESSIONS: join(dir, "sessions") },
    );
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as Result;
    expect(result.usage).toMatchObject({
      input_tokens: 240,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 10,
    });
    const [perModel] = Object.values(result.modelUsage);
    expect(perModel).toEqual({
      inputTokens: 240,
      outputTokens: 25,
      cacheReadInputTokens: 50,
      cacheCreationInputTokens: 10,
      costUSD: null, // the offline model has no price
    });
  });

  it("ANTHROPIC_CUSTOM_HEADERS reach every request; Claude Code's unread variables are named on stderr", async () => {
    const server = await startProviderServer(["Hi gw-secret-value-1234."]);
    try {
      const dir = tempProject({ "ubiquity.config.mjs": "export default { maxTokens: 2000 };" });
      const out = await runCli(["-p", "--model", "anthropic:claude-sonnet-4-5", "hi"], dir, {
        HOME: join(dir, "home"),
        ANTHROPIC_API_KEY: "parity-key",
        ANTHROPIC_BASE_URL: server.baseURL,
        ANTHROPIC_CUSTOM_HEADERS: "X-Parity-One: one\nX-Parity-Two:  two words \nX-Gateway-Key: gw-secret-value-1234",
        MAX_THINKING_TOKENS: "2048",
        BASH_DEFAULT_TIMEOUT_MS: "1000",
        // The config sets maxTokens: this one decides nothing here either way, so it is not named.
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: "1234",
      });
      expect(out.code, out.stderr).toBe(0);
      // A header may carry the gateway's key: masked wherever the run writes, as an MCP server's headers are.
      expect(out.stdout.trim()).toBe("Hi [redacted].");
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.headers).toMatchObject({
        "x-parity-one": "one",
        "x-parity-two": "two words",
        "x-gateway-key": "gw-secret-value-1234",
      });
      const warning = out.stderr.split("\n").find((line) => line.includes("Claude Code's"));
      expect(warning).toMatch(/MAX_THINKING_TOKENS \(set maxThinkingTokens in the config\)/);
      expect(warning).toMatch(/BASH_DEFAULT_TIMEOUT_MS \(Bash takes a timeout per call/);
      expect(warning).not.toMatch(/CLAUDE_CODE_MAX_OUTPUT_TOKENS/);
    } finally {
      await server.close();
    }
  });

  it("ANTHROPIC_CUSTOM_HEADERS with a line that is not a header stops the run before any request, without echoing the line", async () => {
    const server = await startProviderServer(["Hi."]);
    try {
      const dir = tempProject({});
      const out = await runCli(["-p", "--output-format", "json", "--model", "anthropic:claude-sonnet-4-5", "hi"], dir, {
        HOME: join(dir, "home"),
        ANTHROPIC_API_KEY: "parity-key",
        ANTHROPIC_BASE_URL: server.baseURL,
        ANTHROPIC_CUSTOM_HEADERS: "X-Ok: fine\nBearer-secret-value-no-colon",
      });
      expect(out.code).not.toBe(0);
      expect(server.requests).toHaveLength(0);
      expect(out.stdout + out.stderr).toMatch(/ANTHROPIC_CUSTOM_HEADERS line 2 is not a header/);
      expect(out.stdout + out.stderr).not.toContain("secret-value");
    } finally {
      await server.close();
    }
  });
});
