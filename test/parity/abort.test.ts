/** Parity: cancelling a run and bounding prompts (seed README: "Cancelling a run", "Asking the user a question"). */
import { describe, expect, it } from "vitest";
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { commandsGone } from "../helpers/processes";
import { tempDirs } from "../helpers/temp-dirs";
import { call, run } from "./helpers";

const temp = tempDirs();

const QUESTIONS = [
  {
    question: "Which one?",
    header: "Pick",
    options: [
      { label: "A", description: "first" },
      { label: "B", description: "second" },
    ],
  },
];

describe("abort", () => {
  it("an abort during Bash kills the command and ends the run as interrupted; the next tool call is refused", async () => {
    const cwd = realpathSync(temp());
    const marker = join(cwd, "after");
    const began = join(cwd, "began");
    const controller = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `touch ${began}; sleep 1; touch ${marker}` }, id: "b1" }] },
      call("Write", { file_path: join(cwd, "w"), content: "x" }, "w"),
      "done",
    ]);
    // Abort once the command is running (its first step done), however slow the machine.
    const watch = setInterval(() => existsSync(began) && controller.abort(), 10);
    const messages = await run("go", {
      model,
      cwd,
      permissionMode: "bypassPermissions",
      abortSignal: controller.signal,
    }).finally(() => clearInterval(watch));
    expect(existsSync(began)).toBe(true);
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/abort|interrupt/i);
    expect(existsSync(join(cwd, "w"))).toBe(false);
    // The command was killed, not waited for: once no process runs it, its last step never ran.
    await commandsGone(cwd, marker);
    expect(existsSync(marker)).toBe(false);
    const bash = ofType(messages, "tool_result").find((m) => m.toolUseId === "b1")!;
    expect(bash.output.isError).toBe(true);
  });

  it("an abort ends a pending permission prompt and interrupts the run", async () => {
    const cwd = realpathSync(temp());
    const controller = new AbortController();
    const model = scriptedModel([call("Write", { file_path: join(cwd, "w"), content: "x" }, "w"), "done"]);
    const messages = await run("go", {
      model,
      cwd,
      abortSignal: controller.signal,
      canUseTool: () => {
        setTimeout(() => controller.abort(), 50);
        return new Promise(() => {}); // never answers
      },
    });
    expect(resultOf(messages).isError).toBe(true);
    expect(existsSync(join(cwd, "w"))).toBe(false);
    expect(model.requests).toHaveLength(1);
  });

  it("permissionPromptTimeoutMs bounds a prompt; expiry denies", async () => {
    const cwd = realpathSync(temp());
    const model = scriptedModel([call("Write", { file_path: join(cwd, "w"), content: "x" }, "w"), "done"]);
    const messages = await run("go", {
      model,
      cwd,
      permissionPromptTimeoutMs: 100,
      canUseTool: () => new Promise(() => {}),
    });
    const r = ofType(messages, "tool_result").find((m) => m.toolUseId === "w")!;
    expect(r.output.isError).toBe(true);
    expect(existsSync(join(cwd, "w"))).toBe(false);
    expect(resultOf(messages).subtype).toBe("success");
  });
});

describe("AskUserQuestion", () => {
  it("the handler renders the questions and returns answers through updatedInput; the model gets them", async () => {
    const cwd = temp();
    const model = scriptedModel([call("AskUserQuestion", { questions: QUESTIONS }, "q"), "done"]);
    const messages = await run("go", {
      model,
      cwd,
      permissionMode: "bypassPermissions",
      allowedTools: ["AskUserQuestion", "Read"],
      canUseTool: async (name, input) => {
        if (name !== "AskUserQuestion") return { behavior: "deny", message: "no" };
        const answers: Record<string, string> = {};
        for (const q of (input as { questions: { question: string }[] }).questions) answers[q.question] = "B";
        return { behavior: "allow", updatedInput: { ...input, answers } };
      },
    });
    const r = ofType(messages, "tool_result").find((m) => m.toolUseId === "q")!;
    expect(r.output.isError).toBeFalsy();
    expect(r.output.content).toContain("Which one?");
    expect(r.output.content).toContain("B");
  });

  it("an allow without answers is an error result; dontAsk declines without prompting", async () => {
    const cwd = temp();
    const m1 = scriptedModel([call("AskUserQuestion", { questions: QUESTIONS }, "q"), "done"]);
    const r1 = ofType(
      await run("go", { model: m1, cwd, canUseTool: async () => ({ behavior: "allow" }) }),
      "tool_result",
    )[0]!;
    expect(r1.output.isError).toBe(true);
    let asked = 0;
    const m2 = scriptedModel([call("AskUserQuestion", { questions: QUESTIONS }, "q"), "done"]);
    const r2 = ofType(
      await run("go", {
        model: m2,
        cwd,
        permissionMode: "dontAsk",
        canUseTool: async () => (asked++, { behavior: "allow", updatedInput: {} }),
      }),
      "tool_result",
    )[0]!;
    expect(asked).toBe(0);
    expect(r2.output.isError).toBe(true);
  });
});
