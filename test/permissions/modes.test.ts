/** Each permission mode, through summon() with the real Write, Read and Bash tools. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinTools } from "../../plugins/tools/index";
import { recordingHandler, runCalls, tempDir } from "./helpers";

const write = (file_path: string, content = "x\n") => ({ toolName: "Write", input: { file_path, content } });
const bash = (command: string) => ({ toolName: "Bash", input: { command } });
const read = (file_path: string) => ({ toolName: "Read", input: { file_path } });

describe("permission modes", () => {
  it("default: a write asks (and, with no handler, is denied saying so); a read runs", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "a.txt"), "hello\n");
    const { results, result } = await runCalls([read("a.txt"), write("new.txt")], { cwd, tools: builtinTools() });
    expect(results[0]!.output).toMatchObject({ isError: false, content: "     1\thello" });
    expect(results[1]!.output.isError).toBe(true);
    expect(results[1]!.output.content).toContain("No canUseTool handler is configured");
    expect(existsSync(join(cwd, "new.txt"))).toBe(false);
    expect(result.permissionDenials).toMatchObject([{ toolName: "Write", toolUseId: "call_1" }]);
  });

  it("default: the handler's yes runs the write", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls([write("new.txt", "made\n")], {
      cwd,
      tools: builtinTools(),
      canUseTool: handler,
    });
    expect(asked.map((a) => a.toolName)).toEqual(["Write"]);
    expect(results[0]!.output.isError).toBe(false);
    expect(readFileSync(join(cwd, "new.txt"), "utf8")).toBe("made\n");
  });

  it("acceptEdits: edits inside the roots run without asking; a shell command asks", async () => {
    const cwd = tempDir();
    const outside = tempDir();
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "no" });
    const { results } = await runCalls([write("in.txt"), write(join(outside, "out.txt")), bash("echo hi")], {
      cwd,
      tools: builtinTools(),
      permissionMode: "acceptEdits",
      canUseTool: handler,
    });
    expect(results.map((r) => r.output.isError)).toEqual([false, true, true]);
    expect(existsSync(join(cwd, "in.txt"))).toBe(true);
    // The write outside the roots is refused by Write itself before anyone could be asked
    // (the engine would ask: see the acceptEdits cases of the adversarial suite).
    expect(results[1]!.output.content).toContain("outside the folders this run may access");
    expect(asked.map((a) => a.toolName)).toEqual(["Bash"]);
  });

  it("bypassPermissions: everything not denied runs without asking", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "no" });
    const { results } = await runCalls([bash("echo hi > made.txt"), write("w.txt")], {
      cwd,
      tools: builtinTools(),
      permissionMode: "bypassPermissions",
      canUseTool: handler,
    });
    expect(results.map((r) => r.output.isError)).toEqual([false, false]);
    expect(readFileSync(join(cwd, "made.txt"), "utf8")).toBe("hi\n");
    expect(asked).toEqual([]);
  });

  it("plan: a tool that can change things is refused with a message telling the model to present a plan; reads run; nobody is asked", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "a.txt"), "hello\n");
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls([write("b.txt"), bash("ls"), read("a.txt")], {
      cwd,
      tools: builtinTools(),
      permissionMode: "plan",
      canUseTool: handler,
      allowedTools: ["Write", "Bash", "Read"],
    });
    expect(results[0]!.output.content).toMatch(/^Plan mode: Write can change things.*present your plan/);
    expect(results[1]!.output.content).toMatch(/^Plan mode: Bash/);
    expect(results[2]!.output.isError).toBe(false);
    expect(asked).toEqual([]);
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
  });

  it("dontAsk: what would prompt is denied without asking, and the message says so; pre-approved calls run", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls([bash("echo ok"), bash("ls -a")], {
      cwd,
      tools: builtinTools(),
      permissionMode: "dontAsk",
      canUseTool: handler,
      allowedTools: ["Bash(echo:*)"],
    });
    expect(results[0]!.output).toMatchObject({ isError: false, content: "ok" });
    expect(results[1]!.output.isError).toBe(true);
    expect(results[1]!.output.content).toContain("Permission mode dontAsk never prompts, so it was denied");
    expect(asked).toEqual([]);
  });
});
