/**
 * Hooks that go on in the background, as Claude Code runs them: a command hook whose first line
 * is `{"async": true}` is not waited for (Anthropic's security-guidance plugin starts its
 * SessionStart setup so: a pip install), and an `asyncRewake` hook's report when it ends
 * (exit 2 and its stderr) reaches the model with the next tool result, after its `rewakeMessage`.
 */
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { tempDirs } from "../helpers/temp-dirs";
import { collect, ofType, resultOf } from "../helpers/collect";
import { recordingLogger, waitingTool } from "../helpers/hook-log";
import { inbox } from "../live/helpers";

const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-async-hooks-"));

describe('a command hook that answers {"async": true} on its first line', () => {
  it("is not waited for: the run ends while it still runs, and its later output is not read as its answer", async () => {
    const cwd = temp();
    // It would run until the test writes `release` (or its 30 s timeout): waited for, the run could not end first.
    const hook = `echo '{"async": true, "asyncTimeout": 30000}'; while [ ! -f release ]; do sleep 0.05; done; echo '{"metrics": 1}'; touch finished`;
    const { logger, said } = recordingLogger();
    const model = scriptedModel(["ok"]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        cwd,
        logger,
        hooks: { SessionStart: [{ hooks: [{ type: "command", command: hook, timeout: 30 }] }] },
      }),
    );
    expect(resultOf(messages).result).toBe("ok");
    expect(existsSync(join(cwd, "finished"))).toBe(false);
    writeFileSync(join(cwd, "release"), "");
    expect(said.filter((s) => s.level === "warn")).toEqual([]);
    // Its first line is not context for the model either.
    expect(JSON.stringify(model.requests[0]!.prompt)).not.toContain('"async"');
  });

  it("a first line that is other JSON (or not JSON) is still the answer, read when the hook ends", async () => {
    const cwd = temp();
    const model = scriptedModel(["ok"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        cwd,
        hooks: {
          UserPromptSubmit: [
            {
              hooks: [
                {
                  type: "command",
                  command: `echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-42"}}'`,
                },
              ],
            },
          ],
        },
      }),
    );
    expect(JSON.stringify(model.requests[0]!.prompt)).toContain("CTX-42");
  });
});

describe("asyncRewake", () => {
  it("is read from a settings file with its message and summary", () => {
    const problems: string[] = [];
    const read = readFileHooks(
      {
        Stop: [
          {
            hooks: [
              {
                type: "command",
                command: "review.sh",
                asyncRewake: true,
                rewakeMessage: "Background review:",
                rewakeSummary: "Review found issues",
              },
            ],
          },
        ],
      },
      (m) => problems.push(m),
    );
    expect(problems).toEqual([]);
    expect(read.Stop![0]!.hooks[0]).toEqual({
      type: "command",
      command: "review.sh",
      asyncRewake: true,
      rewakeMessage: "Background review:",
      rewakeSummary: "Review found issues",
    });
  });

  it("does not hold the turn, and its report (exit 2, stderr) reaches the model with the next tool result", async () => {
    const cwd = temp();
    const { logger, said, heard } = recordingLogger();
    // The second tool waits until the hook's report is queued (the plugin says so to the user).
    const queued = heard("Review found issues");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "First", input: {} }] },
      { toolCalls: [{ toolName: "Second", input: {} }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        cwd,
        logger,
        tools: [waitingTool("First"), waitingTool("Second", queued)],
        hooks: {
          PostToolUse: [
            {
              matcher: "First",
              hooks: [
                {
                  type: "command",
                  command: "cat >/dev/null; echo 'SQL built from user input in db.ts:12' >&2; exit 2",
                  asyncRewake: true,
                  rewakeMessage: "Background security review:",
                  rewakeSummary: "Review found issues",
                },
              ],
            },
          ],
        },
      }),
    );
    expect(resultOf(messages).isError).toBe(false);
    const results = ofType(messages, "tool_result").map((m) => String(m.output.content));
    // Not a block of the call it followed: the first result is the tool's own.
    expect(results[0]).toBe("First done");
    expect(results[1]).toContain("Second done");
    expect(results[1]).toContain("[Background security review:\nSQL built from user input in db.ts:12]");
    expect(JSON.stringify(model.requests[2]!.prompt)).toContain("SQL built from user input in db.ts:12");
    expect(said.some((s) => s.level === "info" && s.text.includes("Review found issues"))).toBe(true);
  });

  it("wakes a live session that sits idle: the report enters as its next message and the model answers it", async () => {
    const cwd = temp();
    const { logger, heard } = recordingLogger();
    const queued = heard("Lint found issues");
    const model = scriptedModel(["first answer", "fixing the lint errors"]);
    const input = inbox();
    input.push("write the module");
    const messages: Message[] = [];
    const session = summon(input, {
      presets: [],
      plugins: [hooksPlugin()],
      model,
      cwd,
      logger,
      hooks: {
        Stop: [
          {
            hooks: [
              {
                type: "command",
                command: "cat >/dev/null; echo '3 lint errors in module.ts' >&2; exit 2",
                asyncRewake: true,
                rewakeMessage: "Background lint:",
                rewakeSummary: "Lint found issues",
              },
            ],
          },
        ],
      },
    });
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      // Once idle and the report is in, the user sends nothing more: only the report can start more work.
      if (m.type === "result" && ++results === 1) void queued.then(() => input.end());
    }
    expect(model.requests).toHaveLength(2);
    const last = JSON.stringify(model.requests[1]!.prompt.at(-1));
    expect(last).toContain("Background lint:");
    expect(last).toContain("3 lint errors in module.ts");
    expect(ofType(messages, "result").map((r) => r.result)).toEqual(["first answer", "fixing the lint errors"]);
  });
});
