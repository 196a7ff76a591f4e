/** Parity: hook events as the seed README states them (seed README: "Hooks"). */
import { describe, expect, it } from "vitest";
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HookInput } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { call, run, systemOf, toolResultsOf, userTextsOf } from "./helpers";

const temp = tempDirs();

describe("hooks", () => {
  it("PreToolUse with matcher Write|Edit blocks a write; the reason reaches the model", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, ".env");
    const model = scriptedModel([call("Write", { file_path: f, content: "K=1" }, "w"), "done"]);
    const seen: HookInput[] = [];
    const messages = await run("go", {
      model,
      cwd,
      permissionMode: "bypassPermissions",
      canUseTool: async () => ({ behavior: "allow" }),
      hooks: {
        PreToolUse: [
          {
            matcher: "Write|Edit",
            hooks: [
              async (input) => {
                seen.push(input);
                return String(JSON.stringify(input.toolInput)).includes(".env")
                  ? { decision: "block", reason: "Refusing to touch .env" }
                  : undefined;
              },
            ],
          },
        ],
      },
    });
    expect(seen).toHaveLength(1);
    expect(existsSync(f)).toBe(false);
    const r = ofType(messages, "tool_result").find((m) => m.toolUseId === "w")!;
    expect(r.output.isError).toBe(true);
    expect(r.output.content).toContain("Refusing to touch .env");
    expect(toolResultsOf(model.requests[1]!).join("\n")).toContain("Refusing to touch .env");
  });

  it("the first hook to block wins and the rest are skipped; a hook that throws is skipped, not fatal", async () => {
    const cwd = realpathSync(temp());
    const order: string[] = [];
    const model = scriptedModel([call("Glob", { pattern: "*" }, "g"), "done"]);
    const messages = await run("go", {
      model,
      cwd,
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => {
                order.push("throws");
                throw new Error("hook bug");
              },
              async () => {
                order.push("blocks");
                return { decision: "block", reason: "no" };
              },
              async () => {
                order.push("never");
                return undefined;
              },
            ],
          },
        ],
      },
    });
    expect(order).toEqual(["throws", "blocks"]);
    expect(resultOf(messages).subtype).toBe("success");
  });

  it("PreToolUse updatedInput rewrites the input; later hooks in the chain see the rewrite, and the tool runs with it", async () => {
    const cwd = realpathSync(temp());
    const a = join(cwd, "a.txt");
    const b = join(cwd, "b.txt");
    const model = scriptedModel([call("Write", { file_path: a, content: "x" }, "w"), "done"]);
    const later: unknown[] = [];
    await run("go", {
      model,
      cwd,
      permissionMode: "acceptEdits",
      hooks: {
        PreToolUse: [
          { hooks: [async (input) => ({ updatedInput: { ...(input.toolInput as object), file_path: b } })] },
          { hooks: [async (input) => void later.push(input.toolInput)] },
        ],
      },
    });
    expect(later).toEqual([{ file_path: b, content: "x" }]);
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(true);
  });

  it("UserPromptSubmit and SessionStart inject additionalContext", async () => {
    const cwd = temp();
    const model = scriptedModel(["done"]);
    await run("hello there", {
      model,
      cwd,
      hooks: {
        UserPromptSubmit: [{ hooks: [async () => ({ additionalContext: "CTX-FROM-PROMPT-HOOK" })] }],
        SessionStart: [{ hooks: [async () => ({ additionalContext: "CTX-FROM-SESSION-HOOK" })] }],
      },
    });
    const user = userTextsOf(model.requests[0]!).join("\n");
    expect(user).toContain("CTX-FROM-PROMPT-HOOK");
    expect(user).toContain("CTX-FROM-SESSION-HOOK");
    expect(user).toContain("hello there");
  });

  it("a Stop hook that blocks sends the agent back with reason as the next prompt; the run still succeeds", async () => {
    const cwd = temp();
    let stops = 0;
    const model = scriptedModel(["first answer", "second answer"]);
    const notes: HookInput[] = [];
    const messages = await run("go", {
      model,
      cwd,
      hooks: {
        Stop: [
          { hooks: [async () => (stops++ === 0 ? { decision: "block", reason: "Run the tests first." } : undefined)] },
        ],
        Notification: [{ hooks: [async (i) => void notes.push(i)] }],
      },
    });
    expect(model.requests).toHaveLength(2);
    const texts = userTextsOf(model.requests[1]!);
    expect(texts.at(-1)).toContain("Run the tests first.");
    expect(JSON.stringify(model.requests[1]!.prompt)).toContain("first answer");
    expect(resultOf(messages)).toMatchObject({ subtype: "success", isError: false, result: "second answer" });
    expect(notes.map((n) => n.extra.reason)).toEqual(["stopped"]);
  });

  it("a Stop hook that never relents is bounded by maxTurns, which the run reports (Notification max_turns)", async () => {
    const cwd = temp();
    const model = scriptedModel(() => "again");
    const notes: HookInput[] = [];
    const messages = await run("go", {
      model,
      cwd,
      maxTurns: 3,
      hooks: {
        Stop: [{ hooks: [async () => ({ decision: "block", reason: "not yet" })] }],
        Notification: [{ hooks: [async (i) => void notes.push(i)] }],
      },
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "error_max_turns", isError: true });
    expect(model.requests).toHaveLength(3);
    expect(notes.map((n) => n.extra.reason)).toEqual(["max_turns"]);
  });

  it("Notification fires with permission_required when a call waits on approval, and error when the run raises", async () => {
    const cwd = realpathSync(temp());
    const notes: HookInput[] = [];
    const model = scriptedModel([
      call("Write", { file_path: join(cwd, "x"), content: "" }, "w"),
      { error: { status: 400, message: "bad request" } },
    ]);
    const messages = await run("go", {
      model,
      cwd,
      maxRetries: 0,
      hooks: { Notification: [{ hooks: [async (i) => void notes.push(i)] }] },
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "error_during_execution", isError: true });
    expect(notes.map((n) => n.extra.reason)).toEqual(["permission_required", "error"]);
    expect(notes[0]!.toolName).toBe("Write");
  });

  it("when any hook is configured the system prompt says hooks are watching", async () => {
    const cwd = temp();
    const a = scriptedModel(["done"]);
    await run("go", { model: a, cwd, hooks: { Stop: [{ hooks: [async () => undefined] }] } });
    const b = scriptedModel(["done"]);
    await run("go", { model: b, cwd });
    expect(systemOf(a.requests[0]!)).toMatch(/hook/i);
    expect(systemOf(b.requests[0]!)).not.toMatch(/hooks/i);
  });

  it("PostToolUse sees the tool's output", async () => {
    const cwd = realpathSync(temp());
    writeFileSync(join(cwd, "f.txt"), "content-123\n");
    const seen: HookInput[] = [];
    const model = scriptedModel([call("Read", { file_path: join(cwd, "f.txt") }, "r"), "done"]);
    await run("go", {
      model,
      cwd,
      hooks: { PostToolUse: [{ matcher: "Read", hooks: [async (i) => void seen.push(i)] }] },
    });
    expect(seen).toHaveLength(1);
    expect(String(seen[0]!.toolOutput)).toContain("content-123");
    expect(seen[0]!.toolUseId).toBe("r");
  });
});
