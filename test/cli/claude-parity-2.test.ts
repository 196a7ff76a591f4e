/**
 * TABLE
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

describe.concurrent("claude -p parity, round 2: flags", () => {
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
