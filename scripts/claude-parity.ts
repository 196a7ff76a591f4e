/**
 * Differential run of `ubiquity -p --message-format claude` against the real `claude -p` (Claude
 * Code from npm): both CLIs get the same flags and the same scripted model answers from a fake
 * Anthropic server (ubiquity/testing's `startProviderServer`), each in its own temp project and
 * HOME; the script prints, per case, what a script wrapping `claude -p` would see from each: the
 * exit code, stderr, and stdout (each JSON line reduced to its shape: keys, types, and the values
 * that carry meaning), each run's session ids labelled A, B… across the case's runs (a resume, a
 * fork), and the files a case asks to see (a hook's log of its stdin). Not a test: the tests
 * (test/cli/claude-parity.test.ts, round 2's claude-parity-2.test.ts, round 3's
 * claude-parity-3.test.ts) pin what it found without the claude binary.
 *
 *   CLAUDE_BIN=/path/to/claude npx jiti scripts/claude-parity.ts [case-name | prefix*…]
 *
 * Needs a build (`npx unbuild`). `PARITY_RAW=1` prints the raw stdout too, `PARITY_BODY=1` each
 * agent request's tools and conversation (what a resumed or multi-line run sends to the model),
 * `PARITY_SYSTEM=1` the end of its system prompt, `PARITY_RESULTS=1` each tool result the model
 * was sent, `PARITY_REQ=1` each request's path, model, max_tokens, thinking and headers. A case can
 * run several times in one project and HOME (`second`, `later`: `$SESSION` is the first run's
 * session id), give ubiquity flags of its own (`--trust --compat claude` for a project's .claude
 * files, which ubiquity applies only when the folder is trusted), answer by request rather than by
 * tool results (`byRequest`: a subagent's request, a later stdin line's, a retried request), set or
 * unset environment variables for both CLIs (`env`, `unsetEnv`), and send a signal once the run
 * has made n requests (`signal`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  second?: Later;
  /** Runs after the second, in the same project and HOME. */
  later?: Later[];
  /** Flags only ubiquity gets (e.g. `--trust --compat claude` for a project's .claude files). */
  ubiquityFlags?: string[];
  /** Project files printed after each run (hook logs, a structured output). */
  show?: string[];
  /** Every request is the agent's (a run with fewer than 3 tools, e.g. `--tools ""`). */
  allAgent?: boolean;
  /** Answer the agent's n-th request of a run with `steps[n]` (a subagent's or a later user line's request), not by tool results. */
  byRequest?: boolean;
  /** Answers for the requests to a model whose name contains the key (a fallback model's). */
  byModel?: Record<string, FakeTurn[]>;
  /** Environment variables both CLIs get (`$URL` is the fake server's root, `$BASEURL` its `/v1`). */
  env?: Record<string, string>;
  /** Environment variables removed from both CLIs' environment (ANTHROPIC_API_KEY for a bearer token). */
  unsetEnv?: string[];
  /** Send this signal once the run has made `afterRequests` agent requests (the model's answer never comes). */
  signal?: { name: NodeJS.Signals; afterRequests: number };
}

/** A later run of a case: its flags, prompt and stdin, and its own answers (else the case's). */
interface Later {
  flags: string[];
  prompt?: string;
  stdin?: string;
  steps?: FakeTurn[];
}

const call = (name: string, input: unknown, id = `toolu_${name.toLowerCase()}1`) => ({
  toolCalls: [{ name, input, id }],
});

const anthropicError = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } });

// ----- Round 2: sessions, stream-json input, structured output, MCP, settings, hooks, slash commands -----

const JSON_OUT = ["--output-format", "json"];
const STREAM = ["--output-format", "stream-json", "--verbose"];
const STREAM_IN = ["--input-format", "stream-json", ...STREAM];
const userLine = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;
const FIXED_ID = "5a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d";

/** A command hook that logs its stdin (event, keys, tool, prompt) to hooks.log and answers as `mode` says. */
const HOOK_SCRIPT = `import { appendFileSync, existsSync, writeFileSync } from "node:fs";
const mode = process.argv[2] ?? "log";
let raw = "";
process.stdin.on("data", (c) => (raw += c));
process.stdin.on("end", () => {
  const p = JSON.parse(raw || "{}");
  const entry = { event: p.hook_event_name, keys: Object.keys(p).sort(), tool: p.tool_name, input: p.tool_input, prompt: p.prompt, stop_hook_active: p.stop_hook_active, permission_mode: p.permission_mode, response: p.tool_response === undefined ? undefined : typeof p.tool_response === "object" ? Object.keys(p.tool_response).sort() : typeof p.tool_response, cwd_is_project: p.cwd === "$PROJECT", last: p.last_assistant_message };
  appendFileSync("$PROJECT/hooks.log", JSON.stringify(entry) + "\\n");
  const once = (then) => { if (existsSync("$PROJECT/.once")) return; writeFileSync("$PROJECT/.once", ""); then(); };
  const out = (o) => process.stdout.write(JSON.stringify(o));
  const fail = (text) => { process.stderr.write(text); process.exitCode = 2; };
  const pre = (o) => out({ hookSpecificOutput: { hookEventName: "PreToolUse", ...o } });
  switch (mode) {
    case "pre-deny": return pre({ permissionDecision: "deny", permissionDecisionReason: "no bash here" });
    case "pre-allow": return pre({ permissionDecision: "allow", permissionDecisionReason: "hook says yes" });
    case "pre-ask": return pre({ permissionDecision: "ask", permissionDecisionReason: "hook wants a human" });
    case "pre-update": return pre({ permissionDecision: "allow", updatedInput: { command: "touch rewritten" } });
    case "pre-context": return pre({ additionalContext: "pre context here" });
    case "exit2": return fail("blocked by exit 2");
    case "exit1": process.stderr.write("exit 1 stderr"); process.exitCode = 1; return;
    case "post-block": return out({ decision: "block", reason: "post says fix", hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "post context here" } });
    case "stop-block": return once(() => out({ decision: "block", reason: "stop says continue" }));
    case "stop-exit2": return once(() => fail("stop stderr continue"));
    case "prompt-context": return out({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "prompt context here" } });
    case "prompt-plain": return void process.stdout.write("plain context here");
    case "prompt-block": return out({ decision: "block", reason: "prompt blocked here" });
    case "continue-false": return out({ continue: false, stopReason: "halted by hook" });
    case "system-message": return out({ systemMessage: "a note for the user" });
    case "permreq-allow": return out({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } });
    case "session-context": return out({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "session context here" } });
  }
});
`;

/** Settings whose hooks run HOOK_SCRIPT: event → [matcher, mode]. */
function hookSettings(events: Record<string, [string | undefined, string]>): string {
  const hooks = Object.fromEntries(
    Object.entries(events).map(([event, [matcher, mode]]) => [
      event,
      [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: `node $PROJECT/hook.mjs ${mode}` }] }],
    ]),
  );
  return JSON.stringify({ hooks });
}

/** A case whose hooks come from `--settings hooks.json`. */
function hookCase(
  name: string,
  events: Record<string, [string | undefined, string]>,
  steps: FakeTurn[],
  more: Partial<Case> = {},
): Case {
  return {
    name,
    flags: [...STREAM, "--settings", "$PROJECT/hooks.json"],
    prompt: "go",
    steps,
    files: { "hook.mjs": HOOK_SCRIPT, "hooks.json": hookSettings(events), "a.txt": "alpha\n" },
    show: ["hooks.log"],
    ...more,
  };
}

/** A stdio MCP server (the SDK's) whose `approve` tool answers permission prompts: allows Read and `touch`, denies the rest. */
const APPROVER = `import { McpServer } from "$REPO/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js";
import { StdioServerTransport } from "$REPO/node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js";
import { appendFileSync } from "node:fs";
import { z } from "$REPO/node_modules/zod/index.js";
const server = new McpServer({ name: "approver", version: "1.0.0" });
server.tool("approve", { tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string().optional() }, async (args) => {
  appendFileSync("$PROJECT/approver.log", JSON.stringify({ keys: Object.keys(args).sort(), tool: args.tool_name, input: args.input }) + "\\n");
  const ok = args.tool_name === "Read" || String(args.input.command ?? "").startsWith("touch");
  const answer = ok ? { behavior: "allow", updatedInput: args.input } : { behavior: "deny", message: "approver says no" };
  return { content: [{ type: "text", text: JSON.stringify(answer) }] };
});
await server.connect(new StdioServerTransport());
`;

const EVERYTHING = "$REPO/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const mcpJson = (name: string, extra: object = {}) =>
  JSON.stringify({ mcpServers: { [name]: { command: "node", args: [EVERYTHING, "stdio"], ...extra } } });

const ROUND_2: Case[] = [
  // Sessions.
  {
    name: "resume-tool-stream",
    flags: STREAM,
    byRequest: true,
    prompt: "read a.txt",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "It says alpha."],
    second: { flags: [...STREAM, "--resume", "$SESSION"], prompt: "and again?", steps: ["Still alpha."] },
  },
  {
    name: "session-id",
    flags: [...JSON_OUT, "--session-id", FIXED_ID],
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--resume", FIXED_ID], prompt: "what fruit?", steps: ["Plums."] },
    later: [{ flags: [...JSON_OUT, "--session-id", FIXED_ID], prompt: "again", steps: ["x"] }],
  },
  { name: "session-id-invalid", flags: [...JSON_OUT, "--session-id", "not-a-uuid"], prompt: "hi", steps: ["x"] },
  {
    name: "fork-session",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--resume", "$SESSION", "--fork-session"], prompt: "and pears", steps: ["Forked."] },
    later: [{ flags: [...JSON_OUT, "--resume", "$SESSION"], prompt: "what fruit?", steps: ["Plums only."] }],
  },
  {
    name: "continue-fork-stream",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...STREAM, "--continue", "--fork-session"], prompt: "and pears", steps: ["Forked."] },
  },
  { name: "fork-without-resume", flags: [...JSON_OUT, "--fork-session"], prompt: "hi", steps: ["x"] },
  {
    name: "resume-other-model",
    flags: [...JSON_OUT, "--model", "claude-haiku-4-5"],
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--resume", "$SESSION", "$NOMODEL"], prompt: "what fruit?", steps: ["Plums."] },
    later: [
      {
        flags: [...JSON_OUT, "--resume", "$SESSION", "--model", "claude-opus-4-1"],
        prompt: "and now?",
        steps: ["Plums."],
      },
    ],
  },
  {
    name: "no-session-persistence",
    flags: [...JSON_OUT, "--no-session-persistence"],
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--resume", "$SESSION"], prompt: "what fruit?", steps: ["Plums."] },
  },
  {
    name: "resume-with-session-id",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    second: {
      flags: [...JSON_OUT, "--resume", "$SESSION", "--session-id", FIXED_ID],
      prompt: "what fruit?",
      steps: ["Plums."],
    },
  },
  {
    name: "fork-with-session-id",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    second: {
      flags: [...JSON_OUT, "--resume", "$SESSION", "--fork-session", "--session-id", FIXED_ID],
      prompt: "what fruit?",
      steps: ["Plums."],
    },
    later: [{ flags: [...JSON_OUT, "--resume", FIXED_ID], prompt: "again?", steps: ["Plums again."] }],
  },
  // stream-json input.
  {
    name: "input-multi",
    flags: STREAM_IN,
    stdin: userLine("first") + userLine("second"),
    byRequest: true,
    steps: ["One.", "Two."],
  },
  {
    name: "input-multi-replay",
    flags: [...STREAM_IN, "--replay-user-messages"],
    stdin: userLine("first") + userLine("second"),
    byRequest: true,
    steps: ["One.", "Two."],
  },
  {
    name: "input-multi-tool",
    flags: STREAM_IN,
    stdin: userLine("read it") + userLine("thanks"),
    files: { "a.txt": "alpha\n" },
    byRequest: true,
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), "Alpha.", "Welcome."],
  },
  {
    name: "input-control-interrupt",
    flags: STREAM_IN,
    stdin: `${JSON.stringify({ type: "control_request", request_id: "req_1", request: { subtype: "initialize" } })}\n${userLine("first")}${JSON.stringify({ type: "control_request", request_id: "req_2", request: { subtype: "interrupt" } })}\n`,
    byRequest: true,
    steps: ["One."],
  },
  {
    name: "input-blocks",
    flags: STREAM_IN,
    stdin: `${JSON.stringify({
      type: "user",
      message: {
        role: "user",
        content: [
          { type: "text", text: "block one" },
          { type: "text", text: "block two" },
        ],
      },
    })}\n`,
    steps: ["One."],
  },
  {
    name: "input-bad-line",
    flags: STREAM_IN,
    stdin: `not json\n${userLine("first")}`,
    steps: ["One."],
  },
  // Structured output.
  {
    name: "json-schema",
    flags: [
      ...JSON_OUT,
      "--json-schema",
      '{"type":"object","properties":{"fruit":{"type":"string"}},"required":["fruit"]}',
    ],
    prompt: "name a fruit",
    steps: [call("StructuredOutput", { fruit: "plum" }), "Done."],
  },
  {
    name: "json-schema-stream",
    flags: [
      ...STREAM,
      "--json-schema",
      '{"type":"object","properties":{"fruit":{"type":"string"}},"required":["fruit"]}',
    ],
    prompt: "name a fruit",
    steps: [call("StructuredOutput", { fruit: 3 }), call("StructuredOutput", { fruit: "plum" }, "toolu_so2"), "Done."],
  },
  {
    name: "json-schema-text-answer",
    flags: [
      ...JSON_OUT,
      "--json-schema",
      '{"type":"object","properties":{"fruit":{"type":"string"}},"required":["fruit"]}',
    ],
    prompt: "name a fruit",
    steps: ['{"fruit":"plum"}', call("StructuredOutput", { fruit: "plum" }), "Done."],
  },
  // MCP.
  {
    name: "mcp-config-file",
    flags: [...STREAM, "--mcp-config", "$PROJECT/mcp.json", "--allowedTools", "mcp__ev__echo"],
    prompt: "echo",
    files: { "mcp.json": mcpJson("ev") },
    steps: [call("mcp__ev__echo", { message: "hi there" }), "Echoed."],
  },
  {
    name: "mcp-config-inline-denied",
    flags: [...JSON_OUT, "--mcp-config", mcpJson("ev")],
    prompt: "echo",
    steps: [call("mcp__ev__echo", { message: "hi there" }), "Not echoed."],
  },
  {
    name: "mcp-strict",
    flags: [...STREAM, "--mcp-config", mcpJson("ev"), "--strict-mcp-config", "--max-turns", "1"],
    prompt: "hi",
    files: { ".mcp.json": mcpJson("proj") },
    steps: ["Hi."],
  },
  {
    name: "mcp-project-not-strict",
    flags: [...STREAM, "--mcp-config", mcpJson("ev"), "--max-turns", "1"],
    prompt: "hi",
    files: { ".mcp.json": mcpJson("proj") },
    steps: ["Hi."],
  },
  {
    name: "mcp-bad-config",
    flags: [...JSON_OUT, "--mcp-config", '{"mcpServers":{"x":{"nope":1}}}'],
    prompt: "hi",
    steps: ["Hi."],
  },
  {
    name: "permission-prompt-tool",
    flags: [
      ...JSON_OUT,
      "--mcp-config",
      JSON.stringify({ mcpServers: { ap: { command: "node", args: ["$PROJECT/approver.mjs"] } } }),
      "--permission-prompt-tool",
      "mcp__ap__approve",
    ],
    prompt: "touch and rm",
    files: { "approver.mjs": APPROVER, "a.txt": "alpha\n" },
    show: ["approver.log"],
    steps: [call("Bash", { command: "touch made" }), call("Bash", { command: "rm a.txt" }, "toolu_bash2"), "done"],
  },
  // Settings and rules.
  {
    name: "settings-inline-allow",
    flags: [...JSON_OUT, "--settings", '{"permissions":{"allow":["Bash(touch:*)"]}}'],
    prompt: "touch",
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "settings-file-deny",
    flags: [...JSON_OUT, "--permission-mode", "bypassPermissions", "--settings", "$PROJECT/s.json"],
    prompt: "read",
    files: { "s.json": '{"permissions":{"deny":["Read(./secret.txt)"]}}', "secret.txt": "s3cret\n" },
    steps: [call("Read", { file_path: "$PROJECT/secret.txt" }), "ok"],
  },
  {
    name: "settings-bad-json",
    flags: [...JSON_OUT, "--settings", "{not json"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "settings-missing-file",
    flags: [...JSON_OUT, "--settings", "$PROJECT/none.json"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "setting-sources-user-only",
    flags: [...JSON_OUT, "--setting-sources", "user"],
    ubiquityFlags: ["--trust", "--compat", "claude"],
    prompt: "touch",
    files: { ".claude/settings.json": '{"permissions":{"allow":["Bash(touch:*)"]}}' },
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "setting-sources-project",
    flags: [...JSON_OUT, "--setting-sources", "project"],
    ubiquityFlags: ["--trust", "--compat", "claude"],
    prompt: "touch",
    files: { ".claude/settings.json": '{"permissions":{"allow":["Bash(touch:*)"]}}' },
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "setting-sources-bad",
    flags: [...JSON_OUT, "--setting-sources", "user,bogus"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "add-dir-write",
    flags: [...JSON_OUT, "--permission-mode", "acceptEdits", "--add-dir", "$HOME/other"],
    prompt: "write there",
    files: { "~/other/keep.txt": "k\n" },
    steps: [call("Write", { file_path: "$HOME/other/b.txt", content: "x\n" }), "ok"],
  },
  {
    name: "add-dir-missing",
    flags: [...JSON_OUT, "--add-dir", "$HOME/nowhere"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "disallowed-rm-pattern",
    flags: [...JSON_OUT, "--permission-mode", "bypassPermissions", "--disallowedTools", "Bash(rm:*)"],
    prompt: "rm",
    files: { "a.txt": "alpha\n", "b.txt": "beta\n" },
    steps: [
      call("Bash", { command: "rm -f a.txt" }),
      call("Bash", { command: "echo hi && rm b.txt" }, "toolu_bash2"),
      call("Bash", { command: "echo fine" }, "toolu_bash3"),
      "ok",
    ],
  },
  {
    name: "tools-read-only",
    flags: [...STREAM, "--tools", "Read", "--max-turns", "1"],
    prompt: "hi",
    steps: ["Hi."],
  },
  {
    name: "tools-none",
    flags: [...JSON_OUT, "--tools", ""],
    prompt: "hi",
    allAgent: true,
    steps: ["Hi."],
  },
  {
    name: "tools-call-unlisted",
    flags: [...JSON_OUT, "--tools", "Read,Write"],
    prompt: "hi",
    allAgent: true,
    steps: [call("Bash", { command: "touch marker" }), "ok"],
  },
  {
    name: "agents-json",
    flags: [...STREAM, "--agents", '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}'],
    prompt: "review",
    byRequest: true,
    steps: [
      call("Agent", { subagent_type: "reviewer", description: "review", prompt: "review a.txt" }),
      "Looks good.",
      "Reviewed.",
    ],
  },
  {
    name: "agents-task-name",
    flags: [...JSON_OUT, "--agents", '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}'],
    prompt: "review",
    byRequest: true,
    steps: [
      call("Task", { subagent_type: "reviewer", description: "review", prompt: "review a.txt" }),
      "Looks good.",
      "Reviewed.",
    ],
  },
  {
    name: "disallowed-task",
    flags: [
      ...JSON_OUT,
      "--agents",
      '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}',
      "--disallowedTools",
      "Task",
    ],
    prompt: "review",
    byRequest: true,
    steps: [
      call("Agent", { subagent_type: "reviewer", description: "review", prompt: "review a.txt" }),
      "Looks good.",
      "Reviewed.",
    ],
  },
  {
    name: "agents-bad-json",
    flags: [...JSON_OUT, "--agents", "{nope"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "fallback-model",
    flags: [...JSON_OUT, "--fallback-model", "claude-haiku-4-5"],
    prompt: "hi",
    steps: [{ status: 529, body: anthropicError("overloaded_error", "Overloaded"), headers: { "retry-after": "0" } }],
    byModel: { haiku: ["From haiku."] },
  },
  {
    name: "fallback-same-model",
    flags: [...JSON_OUT, "--fallback-model", "claude-sonnet-4-5"],
    prompt: "hi",
    steps: ["x"],
  },
  {
    name: "max-budget",
    flags: [...JSON_OUT, "--max-budget-usd", "0.0001"],
    prompt: "read twice",
    files: { "a.txt": "alpha\n" },
    steps: [
      call("Read", { file_path: "$PROJECT/a.txt" }),
      call("Read", { file_path: "$PROJECT/a.txt" }, "toolu_read2"),
      "done",
    ],
  },
  // Hooks through --settings.
  hookCase(
    "hook-payloads",
    {
      PreToolUse: ["Bash", "log"],
      PostToolUse: ["Bash", "log"],
      UserPromptSubmit: [undefined, "log"],
      Stop: [undefined, "log"],
    },
    [call("Bash", { command: "echo hi" }), "Done."],
    { flags: [...STREAM, "--settings", "$PROJECT/hooks.json", "--allowedTools", "Bash(echo:*)"] },
  ),
  hookCase("hook-pre-deny", { PreToolUse: ["Bash", "pre-deny"] }, [call("Bash", { command: "echo hi" }), "Denied."], {
    flags: [...STREAM, "--settings", "$PROJECT/hooks.json", "--allowedTools", "Bash(echo:*)"],
  }),
  hookCase("hook-pre-allow", { PreToolUse: ["Bash", "pre-allow"] }, [
    call("Bash", { command: "touch marker" }),
    "Made.",
  ]),
  hookCase("hook-pre-ask", { PreToolUse: ["Bash", "pre-ask"] }, [call("Bash", { command: "echo hi" }), "Asked."], {
    flags: [...STREAM, "--settings", "$PROJECT/hooks.json", "--allowedTools", "Bash(echo:*)"],
  }),
  hookCase("hook-pre-update", { PreToolUse: ["Bash", "pre-update"] }, [
    call("Bash", { command: "touch original" }),
    "Ok.",
  ]),
  hookCase("hook-pre-exit2", { PreToolUse: ["Bash", "exit2"] }, [call("Bash", { command: "echo hi" }), "Blocked."], {
    flags: [...STREAM, "--settings", "$PROJECT/hooks.json", "--allowedTools", "Bash(echo:*)"],
  }),
  hookCase("hook-pre-exit1", { PreToolUse: ["Bash", "exit1"] }, [call("Bash", { command: "echo hi" }), "Ran."], {
    flags: [...STREAM, "--settings", "$PROJECT/hooks.json", "--allowedTools", "Bash(echo:*)"],
  }),
  hookCase("hook-pre-context", { PreToolUse: ["Read", "pre-context"] }, [
    call("Read", { file_path: "$PROJECT/a.txt" }),
    "Ok.",
  ]),
  hookCase("hook-post-block", { PostToolUse: ["Read", "post-block"] }, [
    call("Read", { file_path: "$PROJECT/a.txt" }),
    "Ok.",
  ]),
  hookCase("hook-post-exit2", { PostToolUse: ["Read", "exit2"] }, [
    call("Read", { file_path: "$PROJECT/a.txt" }),
    "Ok.",
  ]),
  hookCase("hook-stop-block", { Stop: [undefined, "stop-block"] }, ["First.", "Second."], { byRequest: true }),
  hookCase("hook-stop-exit2", { Stop: [undefined, "stop-exit2"] }, ["First.", "Second."], { byRequest: true }),
  hookCase("hook-prompt-context", { UserPromptSubmit: [undefined, "prompt-context"] }, ["Ok."]),
  hookCase("hook-prompt-plain", { UserPromptSubmit: [undefined, "prompt-plain"] }, ["Ok."]),
  hookCase("hook-prompt-block", { UserPromptSubmit: [undefined, "prompt-block"] }, ["Ok."]),
  hookCase("hook-prompt-exit2", { UserPromptSubmit: [undefined, "exit2"] }, ["Ok."]),
  hookCase("hook-continue-false", { PreToolUse: ["Read", "continue-false"] }, [
    call("Read", { file_path: "$PROJECT/a.txt" }),
    "Ok.",
  ]),
  hookCase("hook-post-continue-false", { PostToolUse: ["Read", "continue-false"] }, [
    call("Read", { file_path: "$PROJECT/a.txt" }),
    "Ok.",
  ]),
  hookCase("hook-system-message", { Stop: [undefined, "system-message"] }, ["Ok."]),
  hookCase("hook-session-start", { SessionStart: [undefined, "session-context"] }, ["Ok."]),
  hookCase(
    "hook-multi-line-prompts",
    { UserPromptSubmit: [undefined, "log"], Stop: [undefined, "log"] },
    ["One.", "Two."],
    {
      flags: [...STREAM_IN, "--settings", "$PROJECT/hooks.json"],
      prompt: undefined,
      stdin: userLine("first") + userLine("second"),
      byRequest: true,
    },
  ),
  {
    name: "continue-stream-input",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    byRequest: true,
    second: {
      flags: [...STREAM_IN, "--continue"],
      stdin: userLine("what fruit?") + userLine("and then?"),
      steps: ["Plums.", "Pears."],
    },
  },
  {
    name: "json-schema-invalid",
    flags: [...JSON_OUT, "--json-schema", '{"type":"nonsense"}'],
    prompt: "hi",
    steps: ["x"],
  },
  { name: "json-schema-not-json", flags: [...JSON_OUT, "--json-schema", "{nope"], prompt: "hi", steps: ["x"] },
  {
    name: "session-id-upper",
    flags: [...JSON_OUT, "--session-id", FIXED_ID.toUpperCase()],
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--resume", FIXED_ID], prompt: "what fruit?", steps: ["Plums."] },
  },
  { name: "resume-no-value", flags: [...JSON_OUT, "--resume"], prompt: "hi", steps: ["x"] },
  {
    name: "mcp-config-two-files",
    flags: [...STREAM, "--mcp-config", "$PROJECT/a.json", "$PROJECT/b.json", "--max-turns", "1"],
    prompt: "hi",
    files: { "a.json": mcpJson("one"), "b.json": mcpJson("two") },
    steps: ["Hi."],
  },
  {
    name: "resume-plan-mode",
    flags: [...JSON_OUT, "--permission-mode", "acceptEdits"],
    prompt: "write a",
    steps: [call("Write", { file_path: "$PROJECT/a.txt", content: "a\n" }), "ok"],
    second: {
      flags: [...JSON_OUT, "--resume", "$SESSION", "--permission-mode", "plan"],
      prompt: "write b",
      steps: ["unused", call("Write", { file_path: "$PROJECT/b.txt", content: "b\n" }, "toolu_write2"), "ok"],
    },
  },
  hookCase(
    "hook-matcher-task",
    { PreToolUse: ["Task", "log"] },
    [
      call("Agent", { subagent_type: "reviewer", description: "review", prompt: "review a.txt" }),
      "Looks good.",
      "Done.",
    ],
    {
      flags: [
        ...STREAM,
        "--settings",
        "$PROJECT/hooks.json",
        "--agents",
        '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}',
      ],
      byRequest: true,
    },
  ),
  {
    name: "settings-env",
    flags: [...JSON_OUT, "--settings", '{"env":{"PARITY_FOO":"bar"}}', "--allowedTools", "Bash(echo:*)"],
    prompt: "echo",
    steps: [call("Bash", { command: "echo $PARITY_FOO" }), "ok"],
  },
  {
    name: "settings-default-mode",
    flags: [...JSON_OUT, "--settings", '{"permissions":{"defaultMode":"acceptEdits"}}'],
    prompt: "write",
    steps: [call("Write", { file_path: "$PROJECT/b.txt", content: "x\n" }), "ok"],
  },
  {
    name: "skill-tool-call",
    flags: STREAM,
    ubiquityFlags: ["--trust", "--compat", "claude"],
    prompt: "use the plum skill",
    files: {
      ".claude/skills/plum/SKILL.md":
        "---\nname: plum\ndescription: Talks about plums\n---\nTalk about plums: $ARGUMENTS\n",
    },
    steps: [call("Skill", { skill: "plum", args: "ripe" }), "Plums."],
  },
  {
    name: "agents-tools-restricted",
    flags: [
      ...JSON_OUT,
      "--agents",
      '{"reader":{"description":"Reads","prompt":"You read.","tools":["Read"]}}',
      "--permission-mode",
      "bypassPermissions",
    ],
    prompt: "delegate",
    byRequest: true,
    steps: [
      call("Agent", { subagent_type: "reader", description: "read", prompt: "touch x" }),
      call("Bash", { command: "touch sub-marker" }, "toolu_subbash"),
      "Could not.",
      "Done.",
    ],
  },
  {
    name: "resume-json-verbose",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--verbose", "--resume", "$SESSION"], prompt: "what fruit?", steps: ["Plums."] },
  },
  {
    name: "resume-stream-replay",
    flags: JSON_OUT,
    prompt: "remember plums",
    steps: ["Noted."],
    byRequest: true,
    second: {
      flags: [...STREAM_IN, "--replay-user-messages", "--resume", "$SESSION"],
      stdin: userLine("what fruit?"),
      steps: ["Plums."],
    },
  },
  hookCase(
    "hook-pre-allow-trusted",
    { PreToolUse: ["Bash", "pre-allow"] },
    [call("Bash", { command: "touch marker" }), "Made."],
    {
      ubiquityFlags: ["--trust"],
    },
  ),
  hookCase(
    "hook-pre-update-trusted",
    { PreToolUse: ["Bash", "pre-update"] },
    [call("Bash", { command: "touch original" }), "Ok."],
    {
      ubiquityFlags: ["--trust"],
    },
  ),
  hookCase(
    "hook-permission-request",
    { PermissionRequest: ["Bash", "permreq-allow"] },
    [call("Bash", { command: "touch marker" }), "Made."],
    {
      ubiquityFlags: ["--trust"],
    },
  ),
  hookCase(
    "hook-subagent-stop",
    { SubagentStop: [undefined, "log"] },
    [
      call("Agent", { subagent_type: "reviewer", description: "review", prompt: "review a.txt" }),
      "Looks good.",
      "Done.",
    ],
    {
      flags: [
        ...STREAM,
        "--settings",
        "$PROJECT/hooks.json",
        "--agents",
        '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}',
      ],
      byRequest: true,
    },
  ),
  {
    name: "permission-prompt-tool-missing",
    flags: [...JSON_OUT, "--permission-prompt-tool", "mcp__nope__approve"],
    prompt: "touch",
    steps: [call("Bash", { command: "touch made" }), "done"],
  },
  {
    name: "resume-by-name",
    flags: [...JSON_OUT, "--name", "plum-work"],
    prompt: "remember plums",
    steps: ["Noted."],
    second: { flags: [...JSON_OUT, "--resume", "plum-work"], prompt: "what fruit?", steps: ["Plums."] },
  },
  // Slash commands and prompt files.
  {
    name: "slash-command",
    flags: JSON_OUT,
    ubiquityFlags: ["--trust", "--compat", "claude"],
    prompt: "/greet Bob and Ann",
    files: { ".claude/commands/greet.md": "---\ndescription: Greets\n---\nSay hello to $ARGUMENTS. First: $1.\n" },
    steps: ["Hello Bob."],
  },
  {
    name: "slash-skill",
    flags: JSON_OUT,
    ubiquityFlags: ["--trust", "--compat", "claude"],
    prompt: "/plum ripe ones",
    files: {
      ".claude/skills/plum/SKILL.md":
        "---\nname: plum\ndescription: Talks about plums\n---\nTalk about plums: $ARGUMENTS\n",
    },
    steps: ["Plums."],
  },
  {
    name: "slash-unknown",
    flags: JSON_OUT,
    prompt: "/nosuchcommand x",
    steps: ["x"],
  },
  {
    name: "system-prompt-file",
    flags: [...JSON_OUT, "--system-prompt-file", "$PROJECT/sys.txt"],
    prompt: "hi",
    files: { "sys.txt": "You are a parrot from a file." },
    steps: ["x"],
  },
  {
    name: "append-system-prompt-file",
    flags: [...JSON_OUT, "--append-system-prompt-file", "$PROJECT/app.txt"],
    prompt: "hi",
    files: { "app.txt": "Always rhyme, from a file." },
    steps: ["x"],
  },
  {
    name: "system-prompt-file-missing",
    flags: [...JSON_OUT, "--system-prompt-file", "$PROJECT/none.txt"],
    prompt: "hi",
    steps: ["x"],
  },
];

// ----- Round 3: what the model sees of tool results, server failures, init/result fields, env, signals -----

/** A 1x1 PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const BYPASS = ["--permission-mode", "bypassPermissions"];
const retried = (first: FakeTurn): Pick<Case, "steps" | "byRequest"> => ({
  steps: [first, "Recovered."],
  byRequest: true,
});

const ROUND_3: Case[] = [
  // What the model sees (PARITY_RESULTS=1 prints each tool_result it was sent in full).
  {
    name: "read-format",
    flags: [...STREAM],
    prompt: "read",
    files: { "a.txt": "one\ntwo\nthree\nfour\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt", offset: 2, limit: 2 }), "Ok."],
  },
  {
    name: "read-missing",
    flags: [...STREAM],
    prompt: "read",
    steps: [call("Read", { file_path: "$PROJECT/nope.txt" }), "Ok."],
  },
  {
    name: "read-directory",
    flags: [...STREAM],
    prompt: "read",
    files: { "sub/x.txt": "x" },
    steps: [call("Read", { file_path: "$PROJECT/sub" }), "Ok."],
  },
  {
    name: "read-empty",
    flags: [...STREAM],
    prompt: "read",
    files: { "e.txt": "" },
    steps: [call("Read", { file_path: "$PROJECT/e.txt" }), "Ok."],
  },
  {
    name: "read-relative",
    flags: [...STREAM],
    prompt: "read",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "a.txt" }), "Ok."],
  },
  {
    name: "read-image",
    flags: [...STREAM],
    prompt: "read",
    files: { "i.png": "$PNG" },
    steps: [call("Read", { file_path: "$PROJECT/i.png" }), "Ok."],
  },
  { name: "read-no-input", flags: [...STREAM], prompt: "read", steps: [call("Read", {}), "Ok."] },
  { name: "read-bad-type", flags: [...STREAM], prompt: "read", steps: [call("Read", { file_path: 42 }), "Ok."] },
  {
    name: "bash-exit-stderr",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    steps: [call("Bash", { command: "echo out; echo err >&2; exit 3" }), "Ok."],
  },
  {
    name: "bash-stderr-only",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    steps: [call("Bash", { command: "echo err >&2" }), "Ok."],
  },
  {
    name: "bash-no-output",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    steps: [call("Bash", { command: "true" }), "Ok."],
  },
  {
    name: "bash-timeout",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    steps: [call("Bash", { command: "echo start; sleep 20", timeout: 1000 }), "Ok."],
  },
  {
    name: "bash-huge",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    steps: [call("Bash", { command: "seq 1 100000" }), "Ok."],
  },
  {
    name: "edit-not-found",
    flags: [...STREAM, ...BYPASS],
    prompt: "edit",
    files: { "a.txt": "alpha\nbeta\nalpha\n" },
    steps: [
      call("Read", { file_path: "$PROJECT/a.txt" }),
      call("Edit", { file_path: "$PROJECT/a.txt", old_string: "gamma", new_string: "x" }, "toolu_edit1"),
      "Ok.",
    ],
  },
  {
    name: "edit-not-unique",
    flags: [...STREAM, ...BYPASS],
    prompt: "edit",
    files: { "a.txt": "alpha\nbeta\nalpha\n" },
    steps: [
      call("Read", { file_path: "$PROJECT/a.txt" }),
      call("Edit", { file_path: "$PROJECT/a.txt", old_string: "alpha", new_string: "x" }, "toolu_edit1"),
      "Ok.",
    ],
  },
  {
    name: "edit-unread",
    flags: [...STREAM, ...BYPASS],
    prompt: "edit",
    files: { "a.txt": "alpha\n" },
    steps: [call("Edit", { file_path: "$PROJECT/a.txt", old_string: "alpha", new_string: "x" }), "Ok."],
  },
  {
    name: "edit-same-strings",
    flags: [...STREAM, ...BYPASS],
    prompt: "edit",
    files: { "a.txt": "alpha\n" },
    steps: [
      call("Read", { file_path: "$PROJECT/a.txt" }),
      call("Edit", { file_path: "$PROJECT/a.txt", old_string: "alpha", new_string: "alpha" }, "toolu_edit1"),
      "Ok.",
    ],
  },
  {
    name: "write-success",
    flags: [...STREAM, ...BYPASS],
    prompt: "write",
    steps: [call("Write", { file_path: "$PROJECT/n.txt", content: "new\n" }), "Ok."],
  },
  {
    name: "read-long-file",
    flags: [...STREAM],
    prompt: "read",
    files: { "big.txt": Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n") },
    steps: [call("Read", { file_path: "$PROJECT/big.txt" }), "Ok."],
  },
  {
    name: "read-long-line",
    flags: [...STREAM],
    prompt: "read",
    files: { "wide.txt": `${"x".repeat(5000)}\nshort\n` },
    steps: [call("Read", { file_path: "$PROJECT/wide.txt" }), "Ok."],
  },
  {
    name: "write-unread-existing",
    flags: [...STREAM, ...BYPASS],
    prompt: "write",
    files: { "a.txt": "alpha\n" },
    steps: [call("Write", { file_path: "$PROJECT/a.txt", content: "new\n" }), "Ok."],
  },
  {
    name: "bash-cd-persists",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    files: { "sub/x.txt": "x" },
    steps: [call("Bash", { command: "cd sub" }), call("Bash", { command: "pwd" }, "toolu_bash2"), "Ok."],
  },
  { name: "unknown-tool-call", flags: [...STREAM], prompt: "go", steps: [call("Frobnicate", { x: 1 }), "Ok."] },
  // Server failures (byRequest: the retry of a request gets the next answer).
  {
    name: "fail-500-then-ok",
    flags: [...JSON_OUT],
    prompt: "hi",
    ...retried({ status: 500, message: "internal thing", headers: { "retry-after": "0" } }),
  },
  {
    name: "fail-529-then-ok",
    flags: [...STREAM],
    prompt: "hi",
    ...retried({
      status: 529,
      body: anthropicError("overloaded_error", "Overloaded"),
      headers: { "retry-after": "0" },
    }),
  },
  {
    name: "fail-429-retry-after",
    flags: [...STREAM],
    prompt: "hi",
    ...retried({ status: 429, body: anthropicError("rate_limit_error", "slow down"), headers: { "retry-after": "1" } }),
  },
  {
    name: "fail-malformed-sse",
    flags: [...JSON_OUT],
    prompt: "hi",
    ...retried({
      fault: "raw",
      status: 200,
      contentType: "text/event-stream",
      body: "event: message_start\ndata: {not json\n\n",
    }),
  },
  {
    name: "fail-html-200",
    flags: [...JSON_OUT],
    prompt: "hi",
    ...retried({ fault: "raw", status: 502, contentType: "text/html", body: "<html>bad gateway</html>" }),
  },
  { name: "fail-reset-mid-stream", flags: [...STREAM], prompt: "hi", ...retried({ fault: "reset-mid-stream" }) },
  { name: "fail-reset-text", flags: [], prompt: "hi", ...retried({ fault: "reset-mid-stream" }) },
  { name: "fail-drop", flags: [...JSON_OUT], prompt: "hi", ...retried({ drop: true }) },
  {
    name: "fail-500-always",
    flags: [...STREAM],
    prompt: "hi",
    steps: [{ status: 500, message: "internal thing", headers: { "retry-after": "0" } }],
    byRequest: false,
  },
  // init and result, field by field (PARITY_RAW=1 for the values).
  {
    name: "fields-tool-stream",
    flags: [...STREAM, "--allowedTools", "Read"],
    prompt: "read",
    files: { "a.txt": "alpha\n" },
    steps: [
      {
        ...call("Read", { file_path: "$PROJECT/a.txt" }),
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 10 },
      },
      { text: "Done.", usage: { inputTokens: 200, outputTokens: 5 } },
    ],
  },
  {
    name: "fields-denial-json",
    flags: [...JSON_OUT],
    prompt: "write",
    steps: [call("Write", { file_path: "$PROJECT/n.txt", content: "x" }), "Denied."],
  },
  { name: "fields-plan-init", flags: [...STREAM, "--permission-mode", "plan"], prompt: "hi", steps: ["Hi."] },
  {
    name: "fields-partial-tool",
    flags: [...STREAM, "--include-partial-messages", "--allowedTools", "Read"],
    prompt: "read",
    files: { "a.txt": "alpha\n" },
    steps: [{ text: "Reading.", ...call("Read", { file_path: "$PROJECT/a.txt" }) }, "Done."],
  },
  // Environment variables (PARITY_REQ=1 prints model, max_tokens, thinking and the headers of each request).
  {
    name: "env-auth-token",
    flags: [...JSON_OUT],
    prompt: "hi",
    steps: ["Hi."],
    env: { ANTHROPIC_AUTH_TOKEN: "parity-bearer" },
    unsetEnv: ["ANTHROPIC_API_KEY"],
  },
  {
    name: "env-custom-headers",
    flags: [...JSON_OUT],
    prompt: "hi",
    steps: ["Hi."],
    env: { ANTHROPIC_CUSTOM_HEADERS: "X-Parity-One: one\nX-Parity-Two: two" },
  },
  {
    name: "env-model",
    flags: [...JSON_OUT, "$NOMODEL"],
    prompt: "hi",
    steps: ["Hi."],
    env: { ANTHROPIC_MODEL: "claude-sonnet-4-5" },
  },
  {
    name: "env-max-output",
    flags: [...JSON_OUT],
    prompt: "hi",
    steps: ["Hi."],
    env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "1234" },
  },
  { name: "env-thinking", flags: [...JSON_OUT], prompt: "hi", steps: ["Hi."], env: { MAX_THINKING_TOKENS: "2048" } },
  {
    name: "env-bash-timeout",
    flags: [...STREAM, ...BYPASS],
    prompt: "go",
    steps: [call("Bash", { command: "echo start; sleep 20" }), "Ok."],
    env: { BASH_DEFAULT_TIMEOUT_MS: "1000" },
  },
  {
    name: "env-base-url-root",
    flags: [...JSON_OUT],
    prompt: "hi",
    steps: ["Hi."],
    env: { ANTHROPIC_BASE_URL: "$URL" },
  },
  // Signals while the model's answer is awaited.
  {
    name: "sigint-json",
    flags: [...JSON_OUT],
    prompt: "hi",
    steps: [{ fault: "silent" }],
    signal: { name: "SIGINT", afterRequests: 1 },
  },
  {
    name: "sigterm-stream",
    flags: [...STREAM],
    prompt: "hi",
    steps: [{ fault: "silent" }],
    signal: { name: "SIGTERM", afterRequests: 1 },
  },
  {
    name: "sigint-text",
    flags: [],
    prompt: "hi",
    steps: [{ fault: "silent" }],
    signal: { name: "SIGINT", afterRequests: 1 },
  },
  {
    name: "sigterm-after-tool",
    flags: [...STREAM, "--allowedTools", "Read"],
    prompt: "read",
    files: { "a.txt": "alpha\n" },
    steps: [call("Read", { file_path: "$PROJECT/a.txt" }), { fault: "silent" }],
    signal: { name: "SIGTERM", afterRequests: 2 },
  },
];

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
  ...ROUND_2,
  ...ROUND_3,
];

/** A run's observable outcome. */
interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: RecordedRequest[];
  files: string[];
  /** The `show` files' contents after the run. */
  shown: string[];
  project: string;
  allAgent: boolean;
}

/** Whether a request is the agent's: it offers tools (claude's side requests, titles and the like, offer none). */
function isAgent(request: RecordedRequest, all = false): boolean {
  return all || ((request.body as { tools?: unknown[] } | null)?.tools?.length ?? 0) >= 3;
}

/** The agent's answer for a request: by the number of tool results it carries; side requests get "ok". */
function scriptOf(steps: () => FakeTurn[], project: string, c: Case, counter: { n: number }) {
  return (request: RecordedRequest): FakeTurn => {
    if (!isAgent(request, c.allAgent)) return "ok";
    const model = (request.body as { model?: string }).model ?? "";
    const mine = Object.entries(c.byModel ?? {}).find(([key]) => model.includes(key))?.[1];
    const step = c.byRequest ? counter.n++ : (JSON.stringify(request.body).match(/"type":"tool_result"/g) ?? []).length;
    const turn = (mine ?? steps())[step] ?? "(script ended)";
    return JSON.parse(JSON.stringify(turn).replaceAll("$PROJECT", project)) as FakeTurn;
  };
}

/** `$PROJECT`, `$HOME`, `$REPO` and `$SESSION` in a flag, a file or stdin. */
function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\$(PROJECT|HOME|REPO|SESSION)\b/g, (_, name: string) => vars[name] ?? "");
}

/** The session id a run printed: its json result, or the last stream-json line naming one. */
function sessionOf(stdout: string): string {
  let session = "";
  for (const line of stdout.split("\n")) {
    try {
      session = (JSON.parse(line) as { session_id?: string }).session_id ?? session;
    } catch {}
  }
  return session;
}

function exec(
  cmd: string[],
  cwd: string,
  env: Record<string, string>,
  stdin?: string,
  signal?: { name: NodeJS.Signals; afterRequests: number; count: () => number },
): Promise<Pick<Outcome, "code" | "stdout" | "stderr">> {
  return new Promise((resolve) => {
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    const kill = setTimeout(() => child.kill("SIGKILL"), 120_000);
    // A signal goes a second after the awaited request arrived (the run is then waiting on the model).
    const poll =
      signal &&
      setInterval(() => {
        if (signal.count() < signal.afterRequests) return;
        clearInterval(poll);
        setTimeout(() => child.kill(signal.name), 1000);
      }, 100);
    child.on("close", (code, sig) => {
      clearTimeout(kill);
      if (poll) clearInterval(poll);
      resolve({ code: code ?? (sig ? -1 : null), stdout, stderr: sig ? `${stderr}(killed by ${sig})` : stderr });
    });
    if (stdin === undefined) child.stdin.end();
    else child.stdin.end(stdin);
  });
}

type Cli = "claude" | "ubiquity";

/** The flags with `--model claude-sonnet-4-5` added unless they name a model (or say `$NOMODEL`); ubiquity's `claude-…` models get their provider. */
function commandOf(cli: Cli, flags: string[], prompt: string | undefined): string[] {
  const named = flags.includes("--model") || flags.includes("$NOMODEL");
  const withModel = (named ? flags.filter((f) => f !== "$NOMODEL") : [...flags, "--model", "claude-sonnet-4-5"]).map(
    (f, i, all) =>
      cli === "ubiquity" && /^(--model|--fallback-model)$/.test(all[i - 1] ?? "") && f.startsWith("claude-")
        ? `anthropic:${f}`
        : f,
  );
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
  const vars: Record<string, string> = { PROJECT: project, HOME: home, REPO: repo, SESSION: "" };
  for (const [path, text] of Object.entries(c.files ?? {})) {
    const file = join(path.startsWith("~/") ? home : project, path.replace(/^~\//, ""));
    mkdirSync(dirname(file), { recursive: true });
    const content = text === "$PNG" ? Buffer.from(PNG_1X1, "base64") : fill(text, vars);
    writeFileSync(file, content, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
  const runs: Later[] = [c, ...(c.second ? [c.second] : []), ...(c.later ?? [])];
  let current = 0;
  const counter = { n: 0 };
  const server = await startProviderServer(scriptOf(() => runs[current]!.steps ?? c.steps, project, c, counter));
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
  const urls = { URL: server.url, BASEURL: server.baseURL };
  for (const [name, value] of Object.entries(c.env ?? {}))
    env[name] = value.replace(/\$(URL|BASEURL)\b/g, (_, k: "URL" | "BASEURL") => urls[k]);
  for (const name of c.unsetEnv ?? []) delete env[name];
  const outcomes: Outcome[] = [];
  try {
    for (const [i, run] of runs.entries()) {
      current = i;
      counter.n = 0;
      const before = server.requests.length;
      const flags = [...run.flags, ...(cli === "ubiquity" ? (c.ubiquityFlags ?? []) : [])].map((f) => fill(f, vars));
      const prompt = run.prompt === undefined ? undefined : fill(run.prompt, vars);
      const stdin = run.stdin === undefined ? undefined : fill(run.stdin, vars);
      const agentRequests = () => server.requests.slice(before).filter((r) => isAgent(r, c.allAgent)).length;
      const signal = c.signal && { ...c.signal, count: agentRequests };
      const out = await exec(commandOf(cli, flags, prompt), project, env, stdin, signal);
      const shown = (c.show ?? []).map((f) => {
        const file = join(project, f);
        return `${f}: ${existsSync(file) ? readFileSync(file, "utf8").trim() : "(none)"}`;
      });
      outcomes.push({
        ...out,
        requests: server.requests.slice(before),
        files: readdirSync(project).sort(),
        shown,
        project,
        allAgent: c.allAgent === true,
      });
      if (i === 0) vars.SESSION = sessionOf(out.stdout);
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

/** A request's conversation in one line: each message's role and blocks (texts cut, reminders named). */
function conversationOf(request: RecordedRequest): string {
  const body = request.body as { messages: { role: string; content: unknown }[] };
  const block = (b: Record<string, unknown>): string => {
    if (b.type === "text") {
      const text = String(b.text);
      return text.startsWith("<system-reminder>") ? "<reminder>" : JSON.stringify(text.slice(0, 80));
    }
    if (b.type === "tool_use") return `tool_use(${String(b.name)} ${JSON.stringify(b.input).slice(0, 60)})`;
    if (b.type === "tool_result")
      return `tool_result(${b.is_error ? "error " : ""}${JSON.stringify(b.content).slice(0, 120)})`;
    return String(b.type);
  };
  return body.messages
    .map((m) => {
      const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as []);
      return `${m.role[0]}:[${blocks.map(block).join(", ")}]`;
    })
    .join(" ");
}

/** Each run's session ids (init's, then every other line's that differs), labelled A, B, C… in order of appearance across the case. */
function sessionLabels(outs: Outcome[]): string[] {
  const labels = new Map<string, string>();
  const label = (id: string) => {
    if (!labels.has(id)) labels.set(id, String.fromCharCode(65 + labels.size));
    return labels.get(id)!;
  };
  return outs.map((o) =>
    o.stdout
      .split("\n")
      .flatMap((line) => {
        try {
          const m = JSON.parse(line) as { type?: string; subtype?: string; session_id?: string };
          return m.session_id ? [`${m.type}${m.subtype ? `/${m.subtype}` : ""}=${label(m.session_id)}`] : [];
        } catch {
          return [];
        }
      })
      .filter((x, i, all) => i === 0 || x.split("=")[1] !== all[i - 1]!.split("=")[1] || x.startsWith("result"))
      .join(" "),
  );
}

function report(cli: Cli, outs: Outcome[]): void {
  const sessions = sessionLabels(outs);
  for (const [i, o] of outs.entries()) {
    const clean = (text: string) => text.replaceAll(o.project, "$PROJECT");
    console.log(`--- ${cli}${outs.length > 1 ? ` run ${i + 1}` : ""}: exit ${o.code}; files ${o.files.join(",")}`);
    if (o.stderr.trim()) console.log(`stderr: ${clean(o.stderr.trim()).slice(0, 600)}`);
    if (sessions[i]) console.log(`sessions: ${sessions[i]}`);
    for (const shown of o.shown) console.log(`show ${clean(shown).slice(0, 1500)}`);
    const agent = o.requests.filter((r) => isAgent(r, o.allAgent));
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
      `requests: ${agent.length} agent (models ${[...new Set(agent.map((r) => (r.body as { model: string }).model))].join(",")}), ${side} side; last users ${clean(users)}`,
    );
    if (process.env.PARITY_BODY)
      for (const [n, r] of agent.entries()) {
        const tools = ((r.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);
        console.log(`request ${n + 1}: tools ${tools.length} [${tools.slice(0, 40).join(",")}]`);
        console.log(`  ${clean(conversationOf(r)).slice(0, 1500)}`);
      }
    if (process.env.PARITY_RESULTS)
      for (const r of agent) {
        const body = r.body as { messages: { content: unknown }[] };
        const last = body.messages.at(-1)?.content;
        for (const b of Array.isArray(last) ? (last as Record<string, unknown>[]) : [])
          if (b.type === "tool_result") {
            const content = typeof b.content === "string" ? b.content : JSON.stringify(b.content);
            const text =
              content.length > 900
                ? `${content.slice(0, 500)} …(${content.length} chars)… ${content.slice(-300)}`
                : content;
            console.log(`tool_result${b.is_error ? " ERROR" : ""}: ${clean(text)}`);
          }
      }
    if (process.env.PARITY_REQ)
      for (const r of agent) {
        const b = r.body as { model?: string; max_tokens?: number; thinking?: unknown };
        const h = Object.keys(r.headers).filter((k) => /^x-|authorization|anthropic/.test(k));
        const auth = r.headers.authorization ? `authorization=${r.headers.authorization.slice(0, 14)}…` : "";
        console.log(
          `request ${r.path}: model ${b.model} max_tokens ${b.max_tokens} thinking ${JSON.stringify(b.thinking)} ${auth} headers ${h.sort().join(",")} ${r.headers["x-parity-one"] ?? ""}`,
        );
      }
    if (process.env.PARITY_SYSTEM) console.log(`system tail: ${clean(system)}`);
    if (process.env.PARITY_RAW) console.log(`stdout raw: ${clean(o.stdout)}`);
    const lines = o.stdout.split("\n").filter(Boolean);
    for (const line of lines) {
      try {
        console.log(clean(JSON.stringify(shape(JSON.parse(line)))));
      } catch {
        console.log(`text: ${clean(line).slice(0, 300)}`);
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
