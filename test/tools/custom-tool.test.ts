import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon, Tool, type ToolContext, type ToolOutput } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { builtinTools } from "../../plugins/tools/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDir } from "./helpers";

const Pair = z.object({ a: z.number(), b: z.number() });

/** The object form. */
const add = defineTool({
  name: "Add",
  description: "Adds two numbers.",
  inputSchema: Pair,
  isReadOnly: true,
  isConcurrencySafe: true,
  execute: ({ a, b }) => String(a + b),
});

/** The class form, seeing the run through its context. */
class Multiply extends Tool<typeof Pair> {
  readonly name = "Multiply";
  readonly description = "Multiplies two numbers.";
  readonly inputSchema = Pair;
  seen?: Pick<ToolContext, "cwd" | "sessionId" | "toolUseId" | "roots">;
  override isReadOnly() {
    return true;
  }
  async call(input: z.output<typeof Pair>, ctx: ToolContext): Promise<ToolOutput> {
    this.seen = { cwd: ctx.cwd, sessionId: ctx.sessionId, toolUseId: ctx.toolUseId, roots: ctx.roots };
    return { content: String(input.a * input.b), metadata: { product: input.a * input.b } };
  }
}

describe("custom tools through summon()", () => {
  it("runs a defineTool() tool and a `class extends Tool` tool, and returns their results to the model", async () => {
    const dir = tempDir();
    const multiply = new Multiply();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Add", input: { a: 2, b: 3 }, id: "call-add" },
          { toolName: "Multiply", input: { a: 4, b: 5 }, id: "call-mul" },
        ],
      },
      "2 + 3 = 5 and 4 × 5 = 20",
    ]);
    const messages = await collect(summon("compute", { model, tools: [add, multiply], presets: [], cwd: dir }));

    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", tools: ["Add", "Multiply"] });
    const results = ofType(messages, "tool_result");
    expect(results.map((r) => [r.toolName, r.toolUseId, r.output.content, r.output.isError])).toEqual([
      ["Add", "call-add", "5", false],
      ["Multiply", "call-mul", "20", false],
    ]);
    expect(results[1]!.output.metadata).toEqual({ product: 20 });
    expect(multiply.seen).toEqual({ cwd: dir, sessionId: messages[0]!.sessionId, toolUseId: "call-mul", roots: [dir] });
    expect(resultOf(messages)).toMatchObject({
      subtype: "success",
      isError: false,
      result: "2 + 3 = 5 and 4 × 5 = 20",
    });
    // The second request carries both results back to the model.
    const second = JSON.stringify(model.requests[1]!.prompt);
    expect(second).toContain("call-add");
    expect(second).toContain("call-mul");
  });

  it("adds a custom tool to the built-in suite with tools: [...builtinTools(), mine]", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "n.txt"), "41\n");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Read", input: { file_path: "n.txt" } }] },
      {
        toolCalls: [
          { toolName: "Write", input: { file_path: "n.txt", content: "42\n" } },
          { toolName: "Add", input: { a: 41, b: 1 } },
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("bump it", { model, tools: [...builtinTools(), add], presets: [], cwd: dir }),
    );
    expect(messages[0]).toMatchObject({ tools: ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite", "Add"] });
    const results = ofType(messages, "tool_result").map((r) => [r.toolName, r.output.isError, r.output.content]);
    expect(results).toEqual([
      ["Read", false, "     1\t41"],
      ["Write", false, "Updated n.txt (1 line)."],
      ["Add", false, "42"],
    ]);
    expect(readFileSync(join(dir, "n.txt"), "utf8")).toBe("42\n");
  });

  it("refuses a write the run has not read, through the loop too", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "keep.txt"), "precious\n");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: "keep.txt", content: "gone\n" } }] },
      "ok",
    ]);
    const messages = await collect(summon("overwrite", { model, tools: builtinTools(), presets: [], cwd: dir }));
    const [result] = ofType(messages, "tool_result");
    expect(result!.output).toMatchObject({ isError: true });
    expect(result!.output.content).toContain("has not been read in this run");
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("precious\n");
  });
});
