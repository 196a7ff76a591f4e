/**
 * What a PreToolUse hook's approve may answer: the question the permission mode raises (a Write in
 * default mode), never an ask rule's nor a sensitive path's. Claude Code: "a hook that returns
 * allow doesn't skip the deny-rule and ask-rule steps", and protected paths need a grant of their
 * own. A hook is a script; when anything the agent can write (the script, a module it loads, a
 * file it reads) decides its answer, its approve must not open what always asks (red team k, K1).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import hooksPlugin from "ubiquity/plugins/hooks";
import permissions from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { recordingHandler, runCalls, tempDir } from "../permissions/helpers";

const approveAll = { PreToolUse: [{ hooks: [async () => ({ decision: "approve" as const })] }] };

describe("a PreToolUse hook's approve", () => {
  it("answers the permission mode's question: the Write runs and nobody is asked", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "the handler said no" });
    const { results } = await runCalls([{ toolName: "Write", input: { file_path: "notes.txt", content: "x\n" } }], {
      cwd,
      tools: builtinTools(),
      plugins: [permissions(), hooksPlugin()],
      hooks: approveAll,
      canUseTool: handler,
    });
    expect(asked).toEqual([]);
    expect(results[0]!.output.isError).toBe(false);
    expect(existsSync(join(cwd, "notes.txt"))).toBe(true);
  });

  it("does not answer an ask rule's question: the handler is asked, and its no stands", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "the handler said no" });
    const { results } = await runCalls([{ toolName: "Write", input: { file_path: "notes.txt", content: "x\n" } }], {
      cwd,
      tools: builtinTools(),
      plugins: [permissions(), hooksPlugin()],
      hooks: approveAll,
      permissionMode: "acceptEdits",
      askTools: ["Write(./notes.txt)"],
      canUseTool: handler,
    });
    expect(asked.map((a) => a.toolName)).toEqual(["Write"]);
    expect(results[0]!.output.content).toBe("the handler said no");
    expect(existsSync(join(cwd, "notes.txt"))).toBe(false);
  });

  it("does not answer a sensitive path's question (a git hook), in acceptEdits or without a handler", async () => {
    const cwd = tempDir();
    execFileSync("git", ["init", "-q"], { cwd });
    mkdirSync(join(cwd, ".git", "hooks"), { recursive: true });
    const write = {
      toolName: "Write",
      input: { file_path: ".git/hooks/pre-commit", content: "#!/bin/sh\ntouch pwned\n" },
    };
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "the handler said no" });
    const withHandler = await runCalls([write], {
      cwd,
      tools: builtinTools(),
      plugins: [permissions(), hooksPlugin()],
      hooks: approveAll,
      permissionMode: "acceptEdits",
      canUseTool: handler,
    });
    expect(asked.map((a) => a.toolName)).toEqual(["Write"]);
    expect(withHandler.results[0]!.output.content).toBe("the handler said no");
    const unattended = await runCalls([write], {
      cwd,
      tools: builtinTools(),
      plugins: [permissions(), hooksPlugin()],
      hooks: approveAll,
      permissionMode: "acceptEdits",
    });
    expect(unattended.results[0]!.output.isError).toBe(true);
    expect(String(unattended.results[0]!.output.content)).toMatch(/Writes to sensitive paths always ask/);
    expect(existsSync(join(cwd, ".git", "hooks", "pre-commit"))).toBe(false);
  });
});
