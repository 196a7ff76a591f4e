/**
 * Claude Code hook events ubiquity fires at its own lifecycle points, through `summon()` with real
 * command hooks (shell scripts that write their stdin JSON to a file): PostToolBatch after the
 * response's tool calls ran (context for the next model call; exit 2 ends the loop before it),
 * StopFailure when a model error ends the turn (matched on the error type, its answer ignored),
 * InstructionsLoaded for each memory file. Events ubiquity has no point for load with one note
 * each (a real plugin's hooks file: panayiotism/claude-harness, see test/fixtures/compat/SOURCE.md);
 * `${CLAUDE_PROJECT_DIR}` in an exec-form hook's `args` is the project folder.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel, type ScriptedModel } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import memoryPlugin from "../../plugins/memory/index";
import settingsPlugin from "../../plugins/settings/index";
import sessionsPlugin from "../../plugins/sessions/index";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { recordedBash } from "../helpers/recorded-bash";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { capture, lines, script } from "../helpers/hook-scripts";

const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-claude-events-"));
const { tool: shell, ran } = recordedBash();
const HARNESS = fileURLToPath(new URL("../fixtures/compat/plugins/claude-harness/", import.meta.url));

/** A hook that appends its stdin JSON (one line) to `log`. */
const recorder = (dir: string, log: string) => ({
  type: "command" as const,
  command: `${script(dir, "record.sh", 'cat >> "$1"; printf "\\n" >> "$1"')} ${log}`,
});

/** The text of every user message of the model's `n`th request, joined. */
function userText(model: ScriptedModel, n: number): string {
  return model.requests[n]!.prompt.filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string" ? [m.content] : (m.content as { text?: string }[]).map((p) => p.text ?? ""),
    )
    .join("\n");
}

function run(cwd: string, model: ScriptedModel, options: Options, plugins: unknown[] = [hooksPlugin()]) {
  ran.length = 0;
  return collect(summon("go", { presets: [], plugins: plugins as never, model, tools: [shell], cwd, ...options }));
}

const twoCalls = () =>
  scriptedModel([
    {
      toolCalls: [
        { toolName: "Bash", input: { command: "ls" }, id: "a" },
        { toolName: "Bash", input: { command: "pwd" }, id: "b" },
      ],
    },
    "done",
  ]);

describe("PostToolBatch", () => {
  it("fires once per response with every call (input, id, what the model reads); its context reaches the next call", async () => {
    const cwd = temp();
    const log = join(cwd, "batch.log");
    const context = script(
      cwd,
      "context.sh",
      `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"BATCH-CONTEXT: run the tests"}}'`,
    );
    const model = twoCalls();
    const messages = await run(cwd, model, {
      hooks: { PostToolBatch: [{ hooks: [recorder(cwd, log), { type: "command", command: context }] }] },
    });
    expect(resultOf(messages).isError).toBe(false);
    expect(ran).toEqual(["ls", "pwd"]);
    const seen = lines(log);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      hook_event_name: "PostToolBatch",
      session_id: messages[0]!.sessionId,
      cwd,
      tool_calls: [
        { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "a", tool_response: "ran: ls" },
        { tool_name: "Bash", tool_input: { command: "pwd" }, tool_use_id: "b", tool_response: "ran: pwd" },
      ],
    });
    expect(model.requests).toHaveLength(2);
    expect(userText(model, 0)).not.toContain("BATCH-CONTEXT");
    expect(userText(model, 1)).toContain("BATCH-CONTEXT: run the tests");
  });

  it("its context is kept in the transcript: a resumed session sends it where the model read it", async () => {
    const cwd = temp();
    const context = script(
      cwd,
      "context.sh",
      `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"BATCH-CONTEXT: kept"}}'`,
    );
    const options = {
      sessionDir: join(cwd, "sessions"),
      hooks: { PostToolBatch: [{ hooks: [{ type: "command" as const, command: context }] }] },
    };
    const plugins = [hooksPlugin(), sessionsPlugin()];
    const model = twoCalls();
    const first = await run(cwd, model, options, plugins);
    expect(ofType(first, "system").some((m) => m.subtype === "hook_context")).toBe(true);
    // What the model read live, in its second request: the tool results, then the hook's context.
    const live = model.requests[1]!.prompt.filter((m) => m.role !== "system");
    expect(JSON.stringify(live.at(-1))).toContain("BATCH-CONTEXT: kept");

    const again = scriptedModel(["resumed"]);
    const resumed = await run(cwd, again, { ...options, hooks: {}, resume: resultOf(first).sessionId }, plugins);
    expect(resultOf(resumed).isError).toBe(false);
    const replayed = again.requests[0]!.prompt.filter((m) => m.role !== "system");
    // The same conversation, then the new prompt merged into the trailing user message.
    expect(replayed.slice(0, live.length - 1)).toEqual(live.slice(0, -1));
    expect(JSON.stringify(replayed[live.length - 1])).toContain("BATCH-CONTEXT: kept");
  });

  it("exit 2 ends the loop before the next model call, with its stderr as the reason", async () => {
    const cwd = temp();
    const block = script(cwd, "block.sh", 'cat >/dev/null; echo "the batch broke the build" >&2; exit 2');
    const model = twoCalls();
    const messages = await run(cwd, model, {
      hooks: { PostToolBatch: [{ hooks: [{ type: "command", command: block }] }] },
    });
    expect(ran).toEqual(["ls", "pwd"]);
    expect(model.requests).toHaveLength(1);
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("the batch broke the build");
  });

  it('{"decision": "block"} ends the loop too; a response without tool calls fires no PostToolBatch', async () => {
    const cwd = temp();
    const log = join(cwd, "batch.log");
    const block = script(cwd, "block.sh", `cat >/dev/null; echo '{"decision":"block","reason":"enough for now"}'`);
    const model = twoCalls();
    const messages = await run(cwd, model, {
      hooks: { PostToolBatch: [{ hooks: [{ type: "command", command: block }] }] },
    });
    expect(model.requests).toHaveLength(1);
    expect(resultOf(messages).result).toContain("enough for now");

    const plain = scriptedModel(["just text"]);
    await run(cwd, plain, { hooks: { PostToolBatch: [{ hooks: [recorder(cwd, log)] }] } });
    expect(lines(log)).toEqual([]);
  });
});

describe("StopFailure", () => {
  it("fires instead of Stop when a model error ends the turn, matched on its type; exit 2 changes nothing", async () => {
    const cwd = temp();
    const rateLog = join(cwd, "rate.log");
    const serverLog = join(cwd, "server.log");
    const stopLog = join(cwd, "stop.log");
    const block = script(cwd, "block.sh", 'cat >/dev/null; echo "retry later" >&2; exit 2');
    const model = scriptedModel([{ error: { status: 429, message: "rate limited: slow down" } }]);
    const messages = await run(cwd, model, {
      hooks: {
        StopFailure: [
          { matcher: "rate_limit", hooks: [recorder(cwd, rateLog)] },
          { matcher: "server_error", hooks: [recorder(cwd, serverLog)] },
          { hooks: [{ type: "command", command: block }] },
        ],
        Stop: [{ hooks: [recorder(cwd, stopLog)] }],
      },
    });
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("Model request failed");
    expect(result.result).not.toContain("retry later");
    const [seen] = lines(rateLog);
    expect(seen).toMatchObject({ hook_event_name: "StopFailure", error: "rate_limit", cwd });
    expect(seen!.error_details).toContain("rate limited: slow down");
    expect(lines(serverLog)).toEqual([]);
    expect(lines(stopLog)).toEqual([]);
  });

  it("names a server error server_error and carries the last assistant text", async () => {
    const cwd = temp();
    const log = join(cwd, "failure.log");
    const model = scriptedModel([
      { text: "Looking first.", toolCalls: [{ toolName: "Bash", input: { command: "ls" }, id: "a" }] },
      { error: { status: 503 } },
    ]);
    await run(cwd, model, { hooks: { StopFailure: [{ matcher: "server_error", hooks: [recorder(cwd, log)] }] } });
    expect(lines(log)).toMatchObject([{ error: "server_error", last_assistant_message: "Looking first." }]);
  });
});

describe("InstructionsLoaded", () => {
  it("fires once per memory file at the session's start: its path, memory type and why it was loaded", async () => {
    const cwd = temp();
    const log = join(cwd, "instructions.log");
    writeFileSync(join(cwd, "UBIQUITY.md"), "Use tabs.\nSee @rules.md\n");
    writeFileSync(join(cwd, "rules.md"), "Never push on Fridays.\n");
    const model = scriptedModel(["done"]);
    await run(
      cwd,
      model,
      {
        memorySources: ["project"],
        hooks: { InstructionsLoaded: [{ matcher: "session_start|include", hooks: [recorder(cwd, log)] }] },
      },
      [hooksPlugin(), memoryPlugin()],
    );
    const seen = lines(log);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      hook_event_name: "InstructionsLoaded",
      file_path: join(cwd, "UBIQUITY.md"),
      memory_type: "Project",
      load_reason: "session_start",
    });
    expect(seen[1]).toMatchObject({
      file_path: join(cwd, "rules.md"),
      memory_type: "Project",
      load_reason: "include",
      parent_file_path: join(cwd, "UBIQUITY.md"),
    });
  });
});

describe("Claude Code events ubiquity never fires", () => {
  it("a real plugin's hooks file using TeammateIdle and TaskCompleted loads; TeammateIdle is named once as not fired", async () => {
    const cwd = temp();
    const { warnings, logger } = capture();
    const model = scriptedModel(["done"]);
    const messages = await run(cwd, model, { claudePlugins: [HARNESS], logger }, [settingsPlugin(), hooksPlugin()]);
    expect(resultOf(messages).isError).toBe(false);
    const notes = warnings.filter((w) => w.includes('"TeammateIdle"'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain("is not fired by ubiquity");
    expect(notes[0]).toContain(join(HARNESS, "hooks", "hooks.json"));
    // TaskCompleted is fired (on the todo list): no note.
    expect(warnings.join("\n")).not.toContain('"TaskCompleted"');
    expect(warnings.join("\n")).not.toContain("not one ubiquity fires");
  });

  it("two settings files using CwdChanged: one note; the files' other hooks run", async () => {
    const cwd = temp();
    mkdirSync(join(cwd, ".claude"));
    const guard = script(cwd, "guard.sh", 'cat >/dev/null; echo "blocked by the settings guard" >&2; exit 2');
    const cwdHook = { CwdChanged: [{ hooks: [{ type: "command", command: "direnv export json" }] }] };
    writeFileSync(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({
        hooks: { ...cwdHook, PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] },
      }),
    );
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ hooks: cwdHook }));
    const { warnings, logger } = capture();
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "ls" }, id: "a" }] }, "done"]);
    const messages = await run(cwd, model, { compat: ["claude"], settingSources: ["project", "local"], logger }, [
      settingsPlugin(),
      hooksPlugin(),
    ]);
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("blocked by the settings guard");
    expect(ran).toEqual([]);
    const notes = warnings.filter((w) => w.includes('"CwdChanged"'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain("is not fired by ubiquity");
  });

  it("without a note handler the reader reports it like any skipped event, saying why", () => {
    const reports: string[] = [];
    const noted: string[] = [];
    const value = { CwdChanged: [{ hooks: [{ type: "command", command: "true" }] }], Bogus: [] };
    readFileHooks(
      value,
      (m) => reports.push(m),
      undefined,
      (event) => noted.push(event),
    );
    expect(noted).toEqual(["CwdChanged"]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('"Bogus"');
    reports.length = 0;
    readFileHooks(value, (m) => reports.push(m));
    expect(reports[0]).toContain("the working directory never changes during a run");
  });
});

describe("${CLAUDE_PROJECT_DIR} in an exec-form hook", () => {
  it("is the project folder in `args` (no shell fills it there)", async () => {
    const cwd = temp();
    script(cwd, "guard.sh", 'cat >/dev/null; echo "blocked by the project guard" >&2; exit 2');
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "ls" }, id: "a" }] }, "done"]);
    const messages = await run(cwd, model, {
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "sh", args: ["${CLAUDE_PROJECT_DIR}/guard.sh"] }] },
        ],
      },
    });
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content: "blocked by the project guard",
      isError: true,
    });
    expect(ran).toEqual([]);
  });
});
