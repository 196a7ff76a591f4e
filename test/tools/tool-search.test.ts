/**
 * Deferred built-in tools (`ubiquity:tool-search`, `deferTools`): with `deferTools: true` the default
 * preset offers TodoWrite, WebFetch and the background-shell tools by name only, in ToolSearch's description;
 * a search returns a definition in its result and the loaded tool is then called. The tool block
 * is the same on every request (the prefix stays byte for byte) and smaller than with every tool
 * offered; unset or `deferTools: false` offers everything, a list defers those names.
 */
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType } from "../helpers/collect";
import { tempDir } from "./helpers";

const names = (model: ReturnType<typeof scriptedModel>, i: number) =>
  (model.requests[i]!.tools ?? []).map((t) => t.name);
const toolBlock = (model: ReturnType<typeof scriptedModel>, i: number) => JSON.stringify(model.requests[i]!.tools);
const systemOf = (model: ReturnType<typeof scriptedModel>, i: number) =>
  model.requests[i]!.prompt.filter((m) => m.role === "system").map((m) => JSON.stringify(m.content))[0] ?? "";
const base = () => ({ cwd: tempDir("ubiquity-tool-search-"), persistSession: false, persistTodos: false });

describe("deferred tools", () => {
  it("loads a deferred tool through ToolSearch, calls it, and keeps every request's prefix", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "ToolSearch", input: { query: "select:TodoWrite" }, id: "s1" }] },
      {
        toolCalls: [
          { toolName: "TodoWrite", input: { todos: [{ content: "Ship it", status: "in_progress" }] }, id: "t1" },
        ],
      },
      "done",
    ]);
    const messages = await collect(summon("plan the work", { model, ...base(), deferTools: true }));

    const offered = names(model, 0);
    expect(offered).toContain("ToolSearch");
    expect(offered).toContain("Read");
    for (const deferred of ["TodoWrite", "WebFetch", "BashOutput", "BashInput", "KillShell"])
      expect(offered).not.toContain(deferred);
    const search = model.requests[0]!.tools!.find((t) => t.name === "ToolSearch") as { description: string };
    expect(search.description).toContain("TodoWrite, WebFetch");
    // Named once: by ToolSearch, not again in the system prompt's tool list.
    expect(systemOf(model, 0)).toContain("ToolSearch");
    expect(systemOf(model, 0)).not.toContain("TodoWrite");

    const results = Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));
    expect(results.s1).toMatchObject({ isError: false, metadata: { loaded: ["TodoWrite"] } });
    expect(results.s1!.content).toContain('"name":"TodoWrite"');
    expect(results.s1!.content).toContain('"parameters":{');
    expect(results.t1).toMatchObject({ isError: false });
    expect(results.t1!.content).toContain("Ship it");

    // Loading rewrote nothing: the tool block and the system prompt are the same on every request,
    // and each request's messages start with the previous request's.
    expect(model.requests).toHaveLength(3);
    for (const i of [1, 2]) {
      expect(toolBlock(model, i)).toBe(toolBlock(model, 0));
      expect(systemOf(model, i)).toBe(systemOf(model, 0));
      const before = JSON.stringify(model.requests[i - 1]!.prompt);
      expect(JSON.stringify(model.requests[i]!.prompt).startsWith(before.slice(0, -1))).toBe(true);
    }

    // Smaller than offering every tool.
    const all = scriptedModel(["done"]);
    await collect(summon("plan the work", { model: all, ...base() })); // the default: nothing deferred
    expect(names(all, 0)).toContain("TodoWrite");
    expect(names(all, 0)).not.toContain("ToolSearch");
    expect(systemOf(all, 0)).toContain("TodoWrite");
    expect(toolBlock(model, 0).length).toBeLessThan(toolBlock(all, 0).length - 2000);
  });

  it("calls a deferred tool by its exact name without a search, and defers only the names asked for", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "TodoWrite", input: { todos: [{ content: "A", status: "pending" }] }, id: "t1" }] },
      "done",
    ]);
    const messages = await collect(summon("go", { model, ...base(), deferTools: ["TodoWrite", "Grep"] }));
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({ isError: false });
    expect(names(model, 0)).not.toContain("TodoWrite");
    expect(names(model, 0)).not.toContain("Grep");
    expect(names(model, 0)).toContain("WebFetch");
    expect(names(model, 0)).toContain("ToolSearch");
    expect(toolBlock(model, 1)).toBe(toolBlock(model, 0));
  });

  it("answers a search matching nothing with the deferred names", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "ToolSearch", input: { query: "spreadsheet" }, id: "s1" }] },
      { toolCalls: [{ toolName: "ToolSearch", input: { query: "background shell output" }, id: "s2" }] },
      "done",
    ]);
    const messages = await collect(summon("go", { model, ...base(), deferTools: true }));
    const results = Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));
    expect(results.s1).toMatchObject({ isError: false, metadata: { loaded: [] } });
    expect(results.s1!.content).toContain("TodoWrite");
    expect((results.s2!.metadata as { loaded: string[] }).loaded[0]).toBe("BashOutput");
  });
});
