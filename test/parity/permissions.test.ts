/** Parity: permission modes, rules and the canUseTool handler (seed README: "Permissions"). */
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CanUseTool, Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { call, run, toolNames } from "./helpers";

const temp = tempDirs();

/** One tool call, then "done": the call's result, whether the handler was asked, the run. */
async function one(tool: string, input: unknown, options: Options) {
  const asked: string[] = [];
  const handler = options.canUseTool;
  const canUseTool: CanUseTool | undefined = handler
    ? async (name, i, ctx) => {
        asked.push(name);
        return handler(name, i, ctx);
      }
    : undefined;
  const model = scriptedModel([call(tool, input, "c1"), "done"]);
  const messages = await run("go", { ...options, model, ...(canUseTool ? { canUseTool } : {}) });
  const result = ofType(messages, "tool_result").find((r) => r.toolUseId === "c1")!;
  return { result, asked, messages, model };
}

const allow: CanUseTool = async () => ({ behavior: "allow" });

describe("modes", () => {
  it("default prompts for a write; without a handler the prompt is denied, not hung", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "n.txt");
    const { result, messages } = await one("Write", { file_path: f, content: "x" }, { cwd });
    expect(result.output.isError).toBe(true);
    expect(existsSync(f)).toBe(false);
    expect(resultOf(messages).permissionDenials.map((d) => d.toolName)).toContain("Write");
    const asked = await one("Write", { file_path: f, content: "x" }, { cwd, canUseTool: allow });
    expect(asked.asked).toEqual(["Write"]);
    expect(readFileSync(f, "utf8")).toBe("x");
  });

  it("acceptEdits auto-accepts file edits and still prompts for Bash beyond mkdir, touch and cp", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "n.txt");
    const deny: CanUseTool = async () => ({ behavior: "deny", message: "no" });
    const w = await one(
      "Write",
      { file_path: f, content: "x" },
      { cwd, permissionMode: "acceptEdits", canUseTool: deny },
    );
    expect(w.asked).toEqual([]);
    expect(existsSync(f)).toBe(true);
    const b = await one(
      "Bash",
      { command: `printf x > ${join(cwd, "b")}` },
      { cwd, permissionMode: "acceptEdits", canUseTool: deny },
    );
    expect(b.asked).toEqual(["Bash"]);
    expect(existsSync(join(cwd, "b"))).toBe(false);
  });

  it("bypassPermissions allows everything, but deny rules still win", async () => {
    const cwd = realpathSync(temp());
    const ok = await one("Bash", { command: `touch ${join(cwd, "b")}` }, { cwd, permissionMode: "bypassPermissions" });
    expect(ok.result.output.isError).toBeFalsy();
    expect(existsSync(join(cwd, "b"))).toBe(true);
    writeFileSync(join(cwd, "keep"), "");
    const denied = await one(
      "Bash",
      { command: `rm ${join(cwd, "keep")}` },
      { cwd, permissionMode: "bypassPermissions", disallowedTools: ["Bash(rm:*)"] },
    );
    expect(denied.result.output.isError).toBe(true);
    expect(existsSync(join(cwd, "keep"))).toBe(true);
  });

  it("bypassPermissions still asks for user ask rules and for writes to sensitive paths (.env, .ssh/, .git/)", async () => {
    const cwd = realpathSync(temp());
    const deny: CanUseTool = async () => ({ behavior: "deny", message: "no" });
    const ask = await one(
      "Bash",
      { command: "git push origin main" },
      { cwd, permissionMode: "bypassPermissions", askTools: ["Bash(git push:*)"], canUseTool: deny },
    );
    expect(ask.asked).toEqual(["Bash"]);
    mkdirSync(join(cwd, ".git"));
    for (const p of [".env", ".ssh/config", ".git/config"]) {
      const target = join(cwd, p);
      const r = await one(
        "Write",
        { file_path: target, content: "x" },
        { cwd, permissionMode: "bypassPermissions", canUseTool: deny },
      );
      expect(r.asked, p).toEqual(["Write"]);
      expect(existsSync(target), p).toBe(false);
    }
  });

  it("plan mode lets no mutating tool run, read-only ones do", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "n.txt");
    const w = await one("Write", { file_path: f, content: "x" }, { cwd, permissionMode: "plan", canUseTool: allow });
    expect(w.result.output.isError).toBe(true);
    expect(existsSync(f)).toBe(false);
    const b = await one(
      "Bash",
      { command: `touch ${join(cwd, "b")}` },
      { cwd, permissionMode: "plan", canUseTool: allow, allowedTools: ["Bash"] },
    );
    expect(b.result.output.isError).toBe(true);
    expect(existsSync(join(cwd, "b"))).toBe(false);
    const g = await one("Glob", { pattern: "*" }, { cwd, permissionMode: "plan" });
    expect(g.result.output.isError).toBeFalsy();
  });

  it("dontAsk never prompts: anything not pre-approved is denied, pre-approved runs", async () => {
    const cwd = realpathSync(temp());
    const d = await one(
      "Bash",
      { command: `touch ${join(cwd, "b")}` },
      { cwd, permissionMode: "dontAsk", canUseTool: allow },
    );
    expect(d.asked).toEqual([]);
    expect(d.result.output.isError).toBe(true);
    expect(existsSync(join(cwd, "b"))).toBe(false);
    const a = await one(
      "Bash",
      { command: `touch ${join(cwd, "b")}` },
      { cwd, permissionMode: "dontAsk", allowedTools: ["Bash(touch:*)"] },
    );
    expect(a.result.output.isError).toBeFalsy();
    expect(existsSync(join(cwd, "b"))).toBe(true);
  });
});

describe("rules", () => {
  const deny: CanUseTool = async () => ({ behavior: "deny", message: "no" });

  it("prefix, wildcard and exact forms", async () => {
    const cwd = realpathSync(temp());
    const cases: [string, string, boolean][] = [
      ["Bash(echo:*)", "echo", true],
      ["Bash(echo:*)", "echo hi there", true],
      ["Bash(echo hi *)", "echo hi you", true],
      ["Bash(echo hi *)", "echo bye you", false],
      ["Bash(echo exact)", "echo exact", true],
      ["Bash(echo exact)", "echo exact more", false],
    ];
    for (const [rule, command, allowed] of cases) {
      const r = await one("Bash", { command }, { cwd, allowedTools: [rule], canUseTool: deny });
      expect(r.asked.length === 0, `${rule} vs ${command}`).toBe(allowed);
    }
  });

  it("allow requires full coverage: Bash(echo:*) does not authorize `echo ok && touch x`; deny fires on any segment", async () => {
    const cwd = realpathSync(temp());
    const x = join(cwd, "x");
    const r = await one(
      "Bash",
      { command: `echo ok && touch ${x}` },
      { cwd, allowedTools: ["Bash(echo:*)"], canUseTool: deny },
    );
    expect(r.asked).toEqual(["Bash"]);
    expect(existsSync(x)).toBe(false);
    const d = await one(
      "Bash",
      { command: `echo ok && touch ${x}` },
      { cwd, permissionMode: "bypassPermissions", disallowedTools: ["Bash(touch:*)"] },
    );
    expect(d.result.output.isError).toBe(true);
    expect(existsSync(x)).toBe(false);
  });

  it("a bare disallowed rule removes the tool; a scoped one leaves it offered; bare allowedTools limits the run", async () => {
    const cwd = temp();
    const a = scriptedModel(["done"]);
    await run("go", { model: a, cwd, disallowedTools: ["Bash"] });
    expect(toolNames(a.requests[0])).not.toContain("Bash");
    const b = scriptedModel(["done"]);
    await run("go", { model: b, cwd, disallowedTools: ["Bash(rm:*)"] });
    expect(toolNames(b.requests[0])).toContain("Bash");
    const c = scriptedModel(["done"]);
    await run("go", { model: c, cwd, allowedTools: ["Bash(git:*)", "Read"] });
    expect(toolNames(c.requests[0]).sort()).toEqual(["Bash", "Read"]);
  });

  it("canUseTool's updatedInput is what the tool runs with; a deny message reaches the model", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "a.txt");
    const g = join(cwd, "b.txt");
    const r = await one(
      "Write",
      { file_path: f, content: "x" },
      { cwd, canUseTool: async (_n, input) => ({ behavior: "allow", updatedInput: { ...input, file_path: g } }) },
    );
    expect(existsSync(f)).toBe(false);
    expect(readFileSync(g, "utf8")).toBe("x");
    expect(ofType(r.messages, "tool_use")[0]!.toolInput).toMatchObject({ file_path: g });
    const d = await one(
      "Write",
      { file_path: f, content: "x" },
      { cwd, canUseTool: async () => ({ behavior: "deny", message: "User declined." }) },
    );
    expect(d.result.output.content).toContain("User declined.");
  });
});
