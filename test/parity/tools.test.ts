/** Parity: the built-in tools' stated semantics (seed README: "Built-in tools"). */
import { describe, expect, it } from "vitest";
import { readFileSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { call, run, toolNames } from "./helpers";

const temp = tempDirs();

/** Run a script of single tool calls (then "done") and return the tool results' contents. */
async function calls(cwd: string, steps: { tool: string; input: unknown }[], extra: Record<string, unknown> = {}) {
  const model = scriptedModel([...steps.map((s, i) => call(s.tool, s.input, `c${i}`)), "done"]);
  const messages = await run("go", { model, cwd, permissionMode: "acceptEdits", ...extra });
  const results = ofType(messages, "tool_result");
  return { model, messages, results: steps.map((_, i) => results.find((r) => r.toolUseId === `c${i}`)!) };
}

describe("Read", () => {
  it("shows a file in cat -n format", async () => {
    const cwd = realpathSync(temp());
    writeFileSync(join(cwd, "f.txt"), "alpha\nbeta\n");
    const { results } = await calls(cwd, [{ tool: "Read", input: { file_path: join(cwd, "f.txt") } }]);
    expect(results[0]!.output.content).toMatch(/^\s*1\talpha\n\s*2\tbeta/);
  });

  it("returns at most 2,000 lines; a longer file is a partial read that says how to continue", async () => {
    const cwd = realpathSync(temp());
    writeFileSync(join(cwd, "long.txt"), `${Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
    const { results } = await calls(cwd, [{ tool: "Read", input: { file_path: join(cwd, "long.txt") } }]);
    const content = results[0]!.output.content;
    expect(content).toContain("line 2000");
    expect(content).not.toContain("line 2001");
    expect(content).toMatch(/offset|limit/);
  });
});

describe("read-before-write", () => {
  it("Write of an existing file that was never read is refused; after a full read it runs", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "f.txt");
    writeFileSync(f, "old\n");
    const { results } = await calls(cwd, [
      { tool: "Write", input: { file_path: f, content: "new\n" } },
      { tool: "Read", input: { file_path: f } },
      { tool: "Write", input: { file_path: f, content: "new\n" } },
    ]);
    expect(results[0]!.output.isError).toBe(true);
    expect(results[2]!.output.isError).toBeFalsy();
    expect(readFileSync(f, "utf8")).toBe("new\n");
  });

  it("a new file needs no read", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "sub", "new.txt");
    const { results } = await calls(cwd, [{ tool: "Write", input: { file_path: f, content: "hi\n" } }]);
    expect(results[0]!.output.isError).toBeFalsy();
    expect(readFileSync(f, "utf8")).toBe("hi\n");
  });

  it("a partial read (offset/limit) does not authorize an Edit", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "f.txt");
    writeFileSync(f, "a\nb\nc\n");
    const { results } = await calls(cwd, [
      { tool: "Read", input: { file_path: f, offset: 2, limit: 1 } },
      { tool: "Edit", input: { file_path: f, old_string: "b", new_string: "B" } },
    ]);
    expect(results[1]!.output.isError).toBe(true);
    expect(readFileSync(f, "utf8")).toBe("a\nb\nc\n");
  });

  it("a file changed since it was read must be read again", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "f.txt");
    writeFileSync(f, "one\n");
    const model = scriptedModel(({ index }) => {
      if (index === 0) return call("Read", { file_path: f }, "r");
      if (index === 1) {
        writeFileSync(f, "one changed elsewhere\n");
        return call("Edit", { file_path: f, old_string: "one", new_string: "two" }, "e");
      }
      return "done";
    });
    const messages = await run("go", { model: model, cwd, permissionMode: "acceptEdits" });
    const edit = ofType(messages, "tool_result").find((r) => r.toolUseId === "e")!;
    expect(edit.output.isError).toBe(true);
    expect(readFileSync(f, "utf8")).toBe("one changed elsewhere\n");
  });

  it("a file over 2,000 lines is partial by default; reading with limit past its last line authorizes the edit, and the refusal says so", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "long.txt");
    writeFileSync(f, `${Array.from({ length: 2100 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
    const { results } = await calls(cwd, [
      { tool: "Read", input: { file_path: f } },
      { tool: "Edit", input: { file_path: f, old_string: "line 2100\n", new_string: "last\n" } },
      { tool: "Read", input: { file_path: f, limit: 5000 } },
      { tool: "Edit", input: { file_path: f, old_string: "line 2100\n", new_string: "last\n" } },
    ]);
    expect(results[1]!.output.isError).toBe(true);
    expect(results[1]!.output.content).toMatch(/limit/);
    expect(results[3]!.output.isError).toBeFalsy();
    expect(readFileSync(f, "utf8").endsWith("last\n")).toBe(true);
  });

  it("the Read tool's description says how to read a long file whole", async () => {
    const cwd = temp();
    const model = scriptedModel(["done"]);
    await run("go", { model, cwd });
    const read = model.requests[0]!.tools!.find((t) => t.name === "Read")! as { description?: string };
    expect(read.description).toMatch(/2,?000/);
    expect(read.description).toMatch(/limit/);
  });
});

describe("Edit, Glob, Grep, Bash", () => {
  it("Edit replaces an exact string, and errors when it is not unique", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "f.txt");
    writeFileSync(f, "x = 1\ny = 1\n");
    const { results } = await calls(cwd, [
      { tool: "Read", input: { file_path: f } },
      { tool: "Edit", input: { file_path: f, old_string: "1", new_string: "2" } },
      { tool: "Edit", input: { file_path: f, old_string: "x = 1", new_string: "x = 2" } },
    ]);
    expect(results[1]!.output.isError).toBe(true);
    expect(results[2]!.output.isError).toBeFalsy();
    expect(readFileSync(f, "utf8")).toBe("x = 2\ny = 1\n");
  });

  it("Glob lists files newest first", async () => {
    const cwd = realpathSync(temp());
    for (const [name, age] of [
      ["old.ts", 300],
      ["mid.ts", 200],
      ["new.ts", 100],
    ] as const) {
      const p = join(cwd, name);
      writeFileSync(p, "");
      const t = Date.now() / 1000 - age;
      utimesSync(p, t, t);
    }
    const { results } = await calls(cwd, [{ tool: "Glob", input: { pattern: "*.ts" } }]);
    const lines = results[0]!.output.content.split("\n").filter((l) => l.endsWith(".ts"));
    expect(lines.map((l) => l.split("/").at(-1))).toEqual(["new.ts", "mid.ts", "old.ts"]);
  });

  it("Grep searches contents by regex", async () => {
    const cwd = realpathSync(temp());
    writeFileSync(join(cwd, "a.txt"), "foo123\n");
    writeFileSync(join(cwd, "b.txt"), "bar\n");
    const { results } = await calls(cwd, [{ tool: "Grep", input: { pattern: "fo+\\d+" } }]);
    expect(results[0]!.output.content).toContain("a.txt");
    expect(results[0]!.output.content).not.toContain("b.txt");
  });

  it("Bash runs a command in the cwd with options.env added", async () => {
    const cwd = realpathSync(temp());
    const { results } = await calls(cwd, [{ tool: "Bash", input: { command: "pwd; echo $PARITY_VAR" } }], {
      permissionMode: "bypassPermissions",
      env: { PARITY_VAR: "from-env" },
    });
    expect(results[0]!.output.content).toContain(cwd);
    expect(results[0]!.output.content).toContain("from-env");
  });

  it("the built-in suite is offered; AskUserQuestion only with canUseTool", async () => {
    const cwd = temp();
    const a = scriptedModel(["done"]);
    await run("go", { model: a, cwd });
    expect(toolNames(a.requests[0])).toEqual(
      expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite"]),
    );
    expect(toolNames(a.requests[0])).not.toContain("ToolSearch");
    expect(toolNames(a.requests[0])).not.toContain("AskUserQuestion");
    expect(toolNames(a.requests[0])).not.toContain("Agent");
    expect(toolNames(a.requests[0])).not.toContain("Skill");
    const b = scriptedModel(["done"]);
    await run("go", { model: b, cwd, canUseTool: async () => ({ behavior: "allow" }) });
    expect(toolNames(b.requests[0])).toContain("AskUserQuestion");
    expect(resultOf(await run("go", { model: scriptedModel(["x"]), cwd })).isError).toBe(false);
  });
});
