/**
 * `ubiquity -p --message-format claude` against the real `claude -p`, round 2: what
 * scripts/claude-parity.ts found (Claude Code 2.1.197 from npm; both CLIs on the same scripted
 * answers of one fake Anthropic server, same flags, each in its own HOME and project; ~70 cases
 * that round 1, test/cli/claude-parity.test.ts, did not run), and the tests of the differences that
 * were defects. The tests run the built bin on a scripted model; the claude binary is not needed.
 * A difference is a defect only where Claude Code's documentation (CLI reference, headless, hooks,
 * skills, Agent SDK reference) agrees with what the binary did; project files (.claude/, .mcp.json)
 * were given to ubiquity with `--trust --compat claude`, since it applies them only then (DESIGN §3a).
 *
 * | compared | outcome |
 * | --- | --- |
 * | --resume <id> after a run with a tool call: init and result session ids; the request sent | same: the stored id in init and result; the earlier prompt, tool_use, tool_result and answer, then the new prompt (claude adds its system-reminder blocks) |
 * | --resume with --output-format json --verbose; with stream-json input and --replay-user-messages | same: this run's messages only (init, the echoed prompt marked isReplay, the answer, the result), not the stored turns |
 * | --session-id <uuid>, then --resume <uuid>; the same --session-id again | same; the reused id is refused by both (claude exit 1 "already in use", ubiquity exit 2) |
 * | --session-id not-a-uuid; --resume without a value; --resume of a --no-session-persistence run | refused by both before any request (exit 1 against 2, as in round 1) |
 * | --fork-session with --resume / --continue (stream-json init and result ids); then --resume of the original | same: a new id (B) in init and result, the fork's request has the stored turns; the original resumes without the fork's turn |
 * | --resume --fork-session --session-id <uuid>, then --resume <uuid> | same: the fork takes the given id and resumes under it |
 * | --resume <id> --session-id <uuid> without --fork-session | **fixed**: claude refuses ("--session-id can only be used with --continue or --resume if --fork-session is also specified"); ubiquity dropped the id in silence and went on in the stored session. Now refused before any request, naming --fork-session (the sessions plugin, so `summon()` options refuse it too) |
 * | --fork-session without --resume/--continue | claude ignores it; ubiquity refuses it as a usage error: left as is (a flag that changes nothing is refused) |
 * | --resume of a haiku session without --model; with another --model | same: the session's model when none is named, the named one otherwise |
 * | --name <title>, then --resume <title> | claude names the session and resumes it by the name; ubiquity has no session names: --name is an unknown flag (exit 2) and --resume <title> finds no session. Left as is: a missing feature refused loudly (CLI reference: `-n/--name`, `--resume` by id or name) |
 * | --session-id in capitals, then --resume in lower case | claude keeps the capitals and then finds no session; ubiquity stores the id in lower case and resumes: left as is (lenient) |
 * | --input-format stream-json, two user lines (also after --continue; with UserPromptSubmit and Stop hooks) | same requests (the second line's carries the first exchange), one result per line, hooks fire per line. Left: the second result's num_turns and usage are the session's so far in ubiquity, that line's alone in claude (total_cost_usd is cumulative in both); the Agent SDK docs do not say which for one query with several messages |
 * | --input-format stream-json, a line sent while a tool call runs | claude folds it into the running turn (a system-reminder after the tool result; one result), ubiquity answers it as a turn of its own after the first result: left as is (depends on when the line arrives) |
 * | --input-format stream-json, a user message of two text blocks | **fixed**: claude sends the model two blocks; ubiquity joined their text with nothing between ("block oneblock two"). Now a blank line separates them (sdk/live.ts, so a Claude-shaped message in `summon()`'s streaming input too) |
 * | --replay-user-messages | same lines; **fixed**: claude marks the echo `isReplay: true` (the Agent SDK's SDKUserMessageReplay), ubiquity did not |
 * | --input-format stream-json with control_request lines (initialize, interrupt) | claude answers each with a control_response and interrupts; ubiquity refuses the line as a usage error naming the shape it reads (`{"type":"user",…,"interrupt":true}` interrupts): left as is (the control protocol is the SDK's internal one, typed @alpha, not in the CLI docs) |
 * | --input-format stream-json, a line that is not JSON | refused by both |
 * | --json-schema, the model calls StructuredOutput (also a wrong value first) | same: structured_output, the refusal sent back as a tool error, the second call accepted; **fixed**: claude's json `result` is the value's JSON text, ubiquity's was "" (its own text output already printed the JSON). Left: num_turns counts the accepting call as a turn in claude |
 * | --json-schema, the model answers in text and never calls the tool | claude asks once and then ends with success and no structured_output; ubiquity asks up to maxStructuredOutputRetries and ends with error_max_structured_output_retries (the Agent SDK's documented subtype): left as is |
 * | --json-schema '{"type":"nonsense"}' | claude runs without it; ubiquity refuses the schema (exit 2): left as is (fail closed) |
 * | --mcp-config file, inline JSON, two files; --allowedTools mcp__ev__echo; the call without it | same servers, tools, results and permission_denials (server-everything over stdio) |
 * | --strict-mcp-config with a project .mcp.json; the same without --strict-mcp-config | same with it; without it claude also starts the project's server in -p, ubiquity skips it in an untrusted folder (said on stderr): left as is (DESIGN §3a) |
 * | --mcp-config with a server entry it cannot read | claude ignores the entry, ubiquity refuses the run: left as is (fail closed on bad files) |
 * | --permission-prompt-tool mcp__ap__approve (a stdio MCP server answering allow/deny JSON) | same: the tool gets tool_name, input, tool_use_id; allow runs the call, deny's message reaches the model and permission_denials |
 * | --settings inline allow, a settings file's deny (with bypassPermissions); a missing file; bad JSON | same effects; claude lists no permission_denials for the settings deny of Read, ubiquity does: left as is |
 * | --setting-sources user / project / user,bogus | same (claude also skips an untrusted project's allow rules, as ubiquity does untrusted) |
 * | --add-dir with acceptEdits (Write there); a missing --add-dir | same; ubiquity warns about the missing folder |
 * | --disallowedTools Bash(rm:*) with bypassPermissions (`rm -f a`, `echo hi && rm b`, `echo fine`) | same: both rm calls denied, echo runs |
 * | --tools Read; --tools ""; a call of a tool --tools left out | same (the unknown tool is a tool error in both) |
 * | --agents <json> and a call of the subagent | same requests and answers; claude adds task_started/task_updated/task_notification system lines: left as is |
 * | --disallowedTools Task | **fixed**: claude removes the Agent tool (Task is its former name, still accepted in rules); ubiquity's flag rule matched no tool and the subagent ran (fail open). Now a rule's `Task` names the Agent tool wherever rules are read (settings files already did) |
 * | the model calls `Task` (the Agent tool's former name) | claude runs the subagent, ubiquity answers "Unknown tool": left as is (the compat survey's finding; the offered name is Agent) |
 * | --agents '{nope' | claude ignores it, ubiquity refuses: left as is (fail closed) |
 * | --fallback-model with 529s | claude (one retry, as the harness sets) gives up with 529; ubiquity retries then answers on the fallback: not comparable here. --fallback-model equal to --model: claude accepts, ubiquity refuses: left as is |
 * | --max-budget-usd 0.0001 | both end error_max_budget_usd, exit 1; claude after the first request, ubiquity before it (it stops before a request that could pass the budget): left as is |
 * | hooks (--settings): PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart stdin payloads | same fields (session_id, transcript_path, cwd, permission_mode, hook_event_name, tool_name, tool_input, tool_use_id, tool_response, prompt, stop_hook_active, source); **fixed**: Stop's (and SubagentStop's) `last_assistant_message`, which the hooks reference documents, was missing (ubiquity's own `message` stays). Left: claude's newer prompt_id, duration_ms, background_tasks, session_crons; tool_response is the tool's structured result in claude, its text in ubiquity |
 * | PreToolUse deny / ask / exit 2 / exit 1; PostToolUse block with additionalContext, exit 2; Stop block and exit 2 (once); UserPromptSubmit additionalContext and plain stdout | same effects on the call and on what the model sees (the reason or stderr as the tool error, context next to the prompt or result, the Stop reason as the next user message); the wording around them differs |
 * | a PreToolUse hook whose matcher is `Task`, and an Agent call | **fixed**: claude runs the hook for the Agent tool (tool_name "Agent"); ubiquity skipped it, so a guard written before the rename let every subagent through. The Agent tool now also answers to a `Task` matcher |
 * | --settings env, and `echo $VAR` under --allowedTools Bash(echo:*) | ubiquity runs it and prints the value; claude refuses the expansion ("Contains simple_expansion") and, in -p, denies: left as is (the permission engine proves `echo` harmless whatever its words) |
 * | --settings permissions.defaultMode acceptEdits; --resume with another --permission-mode (plan) | same: the Write runs; the resumed run in plan mode refuses the Write |
 * | the model calls the Skill tool with args | same: the skill's text with its base folder reaches the model as the tool's result |
 * | PreToolUse allow / updatedInput from a hook script in the project | claude runs the call (rewritten); ubiquity does not count an untrusted folder's script's approval and says so: left as is (DESIGN §3a) |
 * | the same with --trust | still not counted: the harness's hook script writes its log into the project, and a script naming a file made since the folder was trusted does not count (said on stderr): left as is |
 * | a PermissionRequest hook answering allow | claude fires no PermissionRequest in -p (the call is refused); ubiquity fires it, and does not count the untrusted script's allow: same outcome (refused) |
 * | SubagentStop input | same fields with last_assistant_message (fixed above); claude adds agent_transcript_path (documented; ubiquity keeps a subagent's turns in the session's transcript, there is no file of its own to name): left as is |
 * | --permission-prompt-tool naming no tool | claude fails the run (exit 1) when a call first needs it; ubiquity denies each such call, naming the missing tool, and the run goes on (exit 0): left as is (fail closed either way) |
 * | UserPromptSubmit block or exit 2; continue:false from PreToolUse/PostToolUse | both stop without asking the model further; claude ends with subtype success, is_error false, exit 0, ubiquity with error_during_execution, exit 1: left as is (exit status undocumented; a run a hook stopped did not do its work) |
 * | systemMessage from a hook | claude prints nothing in -p, ubiquity a warning on stderr: left as is |
 * | /name args of a .claude/commands file; /skill args | same prompt text reaches the model (claude wraps it in command-message tags). Left for the lead: `$1` is the second word in claude 2.1.197 (`$N` counts from 0, as its skills docs say), the first in ubiquity unless the body uses `$0` (a deliberate rule of plugins/_kits/sources/arguments.ts: Anthropic's own plugins and the older commands docs write `$1` for the first word) |
 * | /nosuchcommand x | claude answers "Unknown command" without a request; ubiquity warns and sends the prompt as written: left as is |
 * | --system-prompt-file, --append-system-prompt-file; a missing file | same (the missing file refused by both) |
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, streamMessages, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

afterAll(removeTempProjects);
beforeAll(requireDist);

/** Run `ubiquity -p --message-format claude` in a fresh project whose scripted model plays `steps`; `requests` are the prompts it got. */
async function claudeRun(args: string[], steps: unknown[], input?: string) {
  const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
  const log = join(dir, "model.log");
  writeFileSync(log, "");
  const out = await runCli(
    ["-p", "--message-format", "claude", ...args],
    dir,
    { UBQ_STEPS: JSON.stringify(steps), UBQ_SESSIONS: join(dir, "sessions"), UBQ_LOG: log },
    { input },
  );
  const requests = readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { role: string; content: unknown }[]);
  return { ...out, dir, requests };
}

/** Run once, on the first call: the cases of a describe read one run's outcome. */
function once<T>(start: () => Promise<T>): () => Promise<T> {
  let run: Promise<T> | undefined;
  return () => (run ??= start());
}

type Line = { type: string; subtype?: string; tools?: string[]; message?: { content: unknown } };

describe.concurrent("claude -p parity, round 2: one stream-json session (input blocks, replay, a Task rule, a Stop hook)", () => {
  const reviewer = '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}';
  const stopHook = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "cat > stop.json" }] }] } });
  const line = JSON.stringify({
    type: "user",
    message: {
      role: "user",
      content: [
        { type: "text", text: "block one" },
        { type: "text", text: "block two" },
      ],
    },
  });
  const shared = once(() =>
    claudeRun(
      [
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--replay-user-messages",
        "--agents",
        reviewer,
        "--disallowedTools",
        "Task",
        "--settings",
        stopHook,
      ],
      [
        {
          toolCalls: [
            {
              toolName: "Agent",
              input: { subagent_type: "reviewer", description: "review", prompt: "review a.txt" },
              id: "toolu_task1",
            },
          ],
        },
        "Done.",
      ],
      `${line}\n`,
    ),
  );

  it("a user line's text blocks reach the model apart (claude sends them as two blocks), not glued into one word", async () => {
    const out = await shared();
    expect(out.code, out.stderr).toBe(0);
    const user = out.requests[0]!.find((m) => m.role === "user")!;
    const text = JSON.stringify(user.content);
    expect(text).toContain("block one\\n\\nblock two");
    expect(text).not.toContain("block oneblock two");
  });

  it("--replay-user-messages marks the echoed user line isReplay, as claude's does (the Agent SDK's SDKUserMessageReplay)", async () => {
    const out = await shared();
    const echoes = (streamMessages(out.stdout) as (Line & { isReplay?: boolean })[]).filter(
      (l) => l.type === "user" && l.isReplay,
    );
    expect(echoes).toHaveLength(1);
    expect(echoes[0]!.message!.content).toBe("block one\n\nblock two");
  });

  it("--disallowedTools Task removes the Agent tool, as claude's does (Task is the Agent tool's former name): no subagent runs", async () => {
    const out = await shared();
    const lines = streamMessages(out.stdout) as Line[];
    const init = lines.find((l) => l.type === "system" && l.subtype === "init")!;
    expect(init.tools).not.toContain("Agent");
    const results = lines
      .filter((l) => l.type === "user")
      .flatMap((l) => l.message!.content as { type: string; tool_use_id?: string; is_error?: boolean }[])
      .filter((b) => b.type === "tool_result");
    expect(results).toEqual([expect.objectContaining({ tool_use_id: "toolu_task1", is_error: true })]);
    // The main agent's two requests; a subagent would have made a third.
    expect(out.requests).toHaveLength(2);
  });

  it("a Stop command hook's input carries last_assistant_message, the name Claude Code's hooks reference gives it", async () => {
    const out = await shared();
    const input = JSON.parse(readFileSync(join(out.dir, "stop.json"), "utf8")) as Record<string, unknown>;
    expect(input).toMatchObject({ hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "Done." });
  });
});

describe.concurrent("claude -p parity, round 2: flags and hooks", () => {
  it("a PreToolUse hook matching Task runs for the Agent tool, as claude's does: its exit 2 stops the subagent", async () => {
    const guard = {
      hooks: {
        PreToolUse: [
          {
            matcher: "Task",
            hooks: [{ type: "command", command: "cat > pre.json; echo no subagents here >&2; exit 2" }],
          },
        ],
      },
    };
    const out = await claudeRun(
      [
        "--output-format",
        "stream-json",
        "--verbose",
        "--agents",
        '{"reviewer":{"description":"Reviews code","prompt":"You review code."}}',
        "--settings",
        JSON.stringify(guard),
        "review",
      ],
      [
        {
          toolCalls: [
            { toolName: "Agent", input: { subagent_type: "reviewer", description: "r", prompt: "go" }, id: "toolu_g1" },
          ],
        },
        "Done.",
      ],
    );
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out.dir, "pre.json"), "utf8"))).toMatchObject({ tool_name: "Agent" });
    const results = (streamMessages(out.stdout) as Line[])
      .filter((l) => l.type === "user")
      .flatMap((l) => l.message!.content as { type: string; content?: string; is_error?: boolean }[])
      .filter((b) => b.type === "tool_result");
    expect(results).toEqual([
      expect.objectContaining({ is_error: true, content: expect.stringContaining("no subagents here") }),
    ]);
    expect(out.requests).toHaveLength(2);
  });

  it("--session-id with --continue (or --resume) and no --fork-session is refused before any request, as claude refuses it (it was ignored)", async () => {
    const out = await claudeRun(
      ["--output-format", "json", "--continue", "--session-id", "5a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "hi"],
      ["x"],
    );
    expect(out.code).toBe(2);
    expect(`${out.stdout}${out.stderr}`).toContain("add forkSession (--fork-session)");
    expect(out.requests).toHaveLength(0);
  });

  it("--json-schema with json output: a run that ended on its StructuredOutput call has the value's JSON as result, as claude's has", async () => {
    const out = await claudeRun(
      [
        "--output-format",
        "json",
        "--json-schema",
        '{"type":"object","properties":{"fruit":{"type":"string"}},"required":["fruit"]}',
        "name a fruit",
      ],
      [{ toolCalls: [{ toolName: "StructuredOutput", input: { fruit: "plum" }, id: "toolu_so1" }] }],
    );
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as { result: string; structured_output: unknown };
    expect(result.structured_output).toEqual({ fruit: "plum" });
    expect(JSON.parse(result.result)).toEqual({ fruit: "plum" });
  });
});
