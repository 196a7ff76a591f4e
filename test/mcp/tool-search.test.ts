/**
 * Tool search against a real server listing 200 tools (test/mcp/fixtures/feature-server.mjs
 * `many 200`): above the share of the window the tools are deferred behind McpToolSearch, a
 * search loads them for the rest of the run at the end of the tool list (the earlier tools stay
 * byte for byte), and the loaded tool is called; below the share, or with `mcpToolSearch: false`,
 * every tool is offered as before.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { collect, ofType } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest, MARKER } from "./helpers";

expectNoServerLeftAfterEachTest();

const SERVER = fileURLToPath(new URL("./fixtures/feature-server.mjs", import.meta.url));
const many = (n: number) => ({ command: process.execPath, args: [SERVER, "many", String(n), MARKER] });
const names = (model: ReturnType<typeof scriptedModel>, i: number) =>
  (model.requests[i]!.tools ?? []).map((t) => t.name);

describe("MCP tool search", () => {
  it("defers 200 tools above 10% of the window, loads one on demand at the end of the list, and the loaded tool runs", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "McpToolSearch", input: { query: "select:mcp__many__tool_007" }, id: "s1" }] },
      {
        toolCalls: [
          { toolName: "McpToolSearch", input: { query: "records kind 16 task 16", max_results: 1 }, id: "s2" },
        ],
      },
      { toolCalls: [{ toolName: "mcp__many__tool_007", input: { id: "x" }, id: "c1" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp()],
        model,
        maxContextTokens: 100_000,
        mcpServers: { many: many(200) },
      }),
    );
    expect(names(model, 0)).toEqual(["McpToolSearch"]);
    const search = model.requests[0]!.tools![0] as { description?: string };
    expect(search.description).toContain("mcp__many__tool_007");
    expect(search.description).toContain("mcp__many__tool_199");
    expect(names(model, 1)).toEqual(["McpToolSearch", "mcp__many__tool_007"]);
    expect(names(model, 2)).toEqual(["McpToolSearch", "mcp__many__tool_007", "mcp__many__tool_016"]);
    // The prefix stays: each request's tool block starts with the previous one's, byte for byte.
    for (const i of [1, 2, 3]) {
      const before = JSON.stringify(model.requests[i - 1]!.tools);
      expect(JSON.stringify(model.requests[i]!.tools).startsWith(before.slice(0, -1))).toBe(true);
    }
    const results = Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));
    expect(results.s1).toMatchObject({ isError: false, metadata: { loaded: ["mcp__many__tool_007"] } });
    expect(results.s2).toMatchObject({ isError: false, metadata: { loaded: ["mcp__many__tool_016"] } });
    expect(results.c1).toMatchObject({ isError: false, content: "tool_007 ran" });
  });

  it("offers every tool when they fit under the share, or when mcpToolSearch is false", async () => {
    const small = scriptedModel(["done"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [mcp()],
        model: small,
        maxContextTokens: 200_000,
        mcpServers: { many: many(5) },
      }),
    );
    expect(names(small, 0)).toEqual([
      "mcp__many__tool_000",
      "mcp__many__tool_001",
      "mcp__many__tool_002",
      "mcp__many__tool_003",
      "mcp__many__tool_004",
    ]);

    const off = scriptedModel(["done"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [mcp()],
        model: off,
        maxContextTokens: 200_000,
        mcpToolSearch: false,
        mcpServers: { many: many(200) },
      }),
    );
    expect(names(off, 0)).toHaveLength(200);
    expect(names(off, 0)).not.toContain("McpToolSearch");

    const always = scriptedModel(["done"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [mcp()],
        model: always,
        mcpToolSearch: true,
        mcpServers: { many: many(5) },
      }),
    );
    expect(names(always, 0)).toEqual(["McpToolSearch"]);
  });
});
