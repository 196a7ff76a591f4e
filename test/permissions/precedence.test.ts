/**
 * The precedence chain, through summon(): plan refusal; deny rules; ask rules; the tool's own
 * checkPermissions; sensitive paths; bypassPermissions; allow rules; the mode's default.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, defineTool } from "ubiquity";
import permissions from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { probeTool, recordingHandler, runCalls, tempDir } from "./helpers";

const bash = (command: string) => ({ toolName: "Bash", input: { command } });

describe("precedence", () => {
  it("a deny rule beats bypassPermissions (and an allow rule)", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "keep.txt"), "k\n");
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls([bash("rm -f keep.txt")], {
      cwd,
      tools: builtinTools(),
      permissionMode: "bypassPermissions",
      allowedTools: ["Bash"],
      disallowedTools: ["Bash(rm:*)"],
      canUseTool: handler,
    });
    expect(results[0]!.output.content).toBe(
      "Permission denied: the rule Bash(rm:*) in disallowedTools forbids this (rm -f keep.txt).",
    );
    expect(existsSync(join(cwd, "keep.txt"))).toBe(true);
    expect(asked).toEqual([]);
  });

  it("an ask rule survives bypassPermissions and an allow rule", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "not now" });
    const { results } = await runCalls([bash("echo one"), bash("echo two && git push origin main")], {
      cwd,
      tools: builtinTools(),
      permissionMode: "bypassPermissions",
      allowedTools: ["Bash(git:*)", "Bash(echo:*)"],
      askTools: ["Bash(git push:*)"],
      canUseTool: handler,
    });
    expect(results[0]!.output).toMatchObject({ isError: false, content: "one" });
    expect(results[1]!.output.content).toBe("not now");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.input).toEqual({ command: "echo two && git push origin main" });
  });

  it("a third-party plugin's deny placed before the permissions plugin is final, even under bypass", async () => {
    const cwd = tempDir();
    const guard = definePlugin(() => ({
      name: "acme:guard",
      apply(kernel) {
        kernel.hooks.tool.permission.tap("acme:guard", (verdict, call) =>
          String(call.input.command).includes("deploy")
            ? { behavior: "deny", message: "acme: no deploys from agents", decidedBy: "acme:guard" }
            : verdict,
        );
      },
    }));
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls([bash("echo deploy"), bash("echo fine")], {
      cwd,
      tools: builtinTools(),
      presets: [],
      plugins: [guard(), permissions()],
      permissionMode: "bypassPermissions",
      allowedTools: ["Bash"],
      canUseTool: handler,
    });
    expect(results[0]!.output.content).toBe("acme: no deploys from agents");
    expect(results[1]!.output).toMatchObject({ isError: false, content: "fine" });
    expect(asked).toEqual([]);
  });

  it("a third-party plugin's ask stands against the engine's allow; in dontAsk it becomes a deny", async () => {
    const cwd = tempDir();
    const careful = definePlugin(() => ({
      name: "acme:careful",
      apply(kernel) {
        kernel.hooks.tool.permission.tap("acme:careful", () => ({ behavior: "ask", message: "acme wants a human" }));
      },
    }));
    const { handler, asked } = recordingHandler();
    await runCalls([bash("echo hi")], {
      cwd,
      tools: builtinTools(),
      plugins: [careful(), permissions()],
      allowedTools: ["Bash"],
      canUseTool: handler,
    });
    expect(asked).toHaveLength(1);
    const { results } = await runCalls([bash("echo hi")], {
      cwd,
      tools: builtinTools(),
      plugins: [careful(), permissions()],
      allowedTools: ["Bash"],
      permissionMode: "dontAsk",
    });
    expect(results[0]!.output.content).toContain("acme wants a human");
    expect(results[0]!.output.content).toContain("dontAsk");
  });

  it("the tool's own checkPermissions: deny and ask win over bypass and allow rules; a throwing check denies", async () => {
    const cwd = tempDir();
    const refusing = probeTool("Refusing", { permission: () => ({ behavior: "deny", message: "Refusing says no" }) });
    const asking = probeTool("Asking", { permission: () => ({ behavior: "ask", message: "Asking wants a word" }) });
    const throwing = probeTool("Throwing", {
      permission: () => {
        throw new Error("check exploded");
      },
    });
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "user said no" });
    const { results } = await runCalls(
      [
        { toolName: "Refusing", input: { value: "a" } },
        { toolName: "Asking", input: { value: "b" } },
        { toolName: "Throwing", input: { value: "c" } },
      ],
      {
        cwd,
        tools: [refusing.tool, asking.tool, throwing.tool],
        permissionMode: "bypassPermissions",
        allowedTools: ["Refusing", "Asking", "Throwing"],
        canUseTool: handler,
      },
    );
    expect(results.map((r) => r.output.content)).toEqual([
      "Refusing says no",
      "user said no",
      "Throwing's own permission check failed, so the call was denied: check exploded",
    ]);
    expect(asked.map((a) => a.toolName)).toEqual(["Asking"]);
    expect([refusing.seen, asking.seen, throwing.seen]).toEqual([[], [], []]);
  });

  it("a tool's allow opinion is decisive after deny and ask rules", async () => {
    const cwd = tempDir();
    const trusting = probeTool("Trusting", {
      permission: () => ({ behavior: "allow" }),
      ruleContent: (input) => [input.value],
    });
    const { results } = await runCalls(
      [
        { toolName: "Trusting", input: { value: "ok" } },
        { toolName: "Trusting", input: { value: "bad" } },
      ],
      { cwd, tools: [trusting.tool], disallowedTools: ["Trusting(bad)"] },
    );
    expect(results.map((r) => r.output.isError)).toEqual([false, true]);
    expect(trusting.seen).toEqual(["ok"]);
  });

  it("a tool's own check answering allow with updatedInput runs the tool with that input, and tool_use shows it", async () => {
    const seen: string[] = [];
    const rewriting = defineTool({
      name: "Rewriting",
      description: "Normalises its value in its own permission check.",
      inputSchema: z.object({ value: z.string() }),
      checkPermissions: (input) => ({ behavior: "allow", updatedInput: { value: input.value.toUpperCase() } }),
      execute: ({ value }) => {
        seen.push(value);
        return `ran ${value}`;
      },
    });
    const { results, uses } = await runCalls([{ toolName: "Rewriting", input: { value: "quiet" } }], {
      cwd: tempDir(),
      tools: [rewriting],
    });
    expect(seen).toEqual(["QUIET"]);
    expect(uses[0]!.toolInput).toEqual({ value: "QUIET" });
    expect(results[0]!.output).toMatchObject({ isError: false, content: "ran QUIET" });
  });

  it("a write to a sensitive path asks even in bypassPermissions", async () => {
    const cwd = tempDir();
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "keep out" });
    const { results } = await runCalls([{ toolName: "Write", input: { file_path: ".env", content: "A=1\n" } }], {
      cwd,
      tools: builtinTools(),
      permissionMode: "bypassPermissions",
      canUseTool: handler,
    });
    expect(asked).toHaveLength(1);
    expect(results[0]!.output.content).toBe("keep out");
    expect(existsSync(join(cwd, ".env"))).toBe(false);
  });

  it("plan refusal comes before allow rules; allow rules come before the mode's default", async () => {
    const cwd = tempDir();
    const probe = probeTool();
    const plan = await runCalls([{ toolName: "Probe", input: { value: "x" } }], {
      cwd,
      tools: [probe.tool],
      permissionMode: "plan",
      allowedTools: ["Probe"],
    });
    expect(plan.results[0]!.output.content).toMatch(/^Plan mode/);
    const allowed = await runCalls([{ toolName: "Probe", input: { value: "y" } }], {
      cwd,
      tools: [probe.tool],
      allowedTools: ["Probe"],
    });
    expect(allowed.results[0]!.output).toMatchObject({ isError: false, content: "ran y" });
  });
});
