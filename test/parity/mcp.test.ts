/** Parity: MCP servers in the default preset (seed README: "MCP"). */
import { afterAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HookInput } from "ubiquity";
import { parseMcpConfig } from "ubiquity/plugins/mcp";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest, filesystemStdio, markedTempDir, removeDir } from "../mcp/helpers";
import { run, toolNames } from "./helpers";

const dir = markedTempDir();
writeFileSync(join(dir, "notes.md"), "MCP-NOTE\n");
expectNoServerLeftAfterEachTest();
afterAll(() => removeDir(dir));

describe("MCP", () => {
  it("tools arrive as mcp__<server>__<tool>, sorted, and go through hooks and the message stream", async () => {
    const pre: HookInput[] = [];
    const post: HookInput[] = [];
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__fs__read_text_file", id: "m1", input: { path: join(dir, "notes.md") } }] },
      "done",
    ]);
    const messages = await run("read it", {
      model,
      cwd: dir,
      // Read-only in the user's words (the server's readOnlyHint decides nothing), so it runs without asking.
      mcpServers: { fs: { ...filesystemStdio(dir), readOnly: ["read_text_file"] } },
      hooks: {
        PreToolUse: [{ matcher: "mcp__fs__*", hooks: [async (i) => void pre.push(i)] }],
        PostToolUse: [{ matcher: "mcp__fs__*", hooks: [async (i) => void post.push(i)] }],
      },
    });
    const names = toolNames(model.requests[0]).filter((n) => n.startsWith("mcp__"));
    expect(names.length).toBeGreaterThan(3);
    expect(names.every((n) => n.startsWith("mcp__fs__"))).toBe(true);
    expect([...names].sort()).toEqual(names);
    expect(ofType(messages, "tool_use").map((m) => m.toolName)).toEqual(["mcp__fs__read_text_file"]);
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("MCP-NOTE");
    expect(pre.map((i) => i.toolName)).toEqual(["mcp__fs__read_text_file"]);
    expect(post).toHaveLength(1);
    expect(resultOf(messages).subtype).toBe("success");
  });

  it("disallowedTools mcp__fs__* removes the whole server's tools", async () => {
    const model = scriptedModel(["done"]);
    await run("x", { model, cwd: dir, mcpServers: { fs: filesystemStdio(dir) }, disallowedTools: ["mcp__fs__*"] });
    expect(toolNames(model.requests[0]).filter((n) => n.startsWith("mcp__"))).toEqual([]);
  });

  it("parseMcpConfig reads a command config and a bare url as streamable HTTP", () => {
    const servers = parseMcpConfig({
      github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] },
      docs: { url: "https://example.test/mcp" },
    });
    expect(servers.github).toMatchObject({ command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] });
    expect(servers.docs).toMatchObject({ type: "http", url: "https://example.test/mcp" });
  });
});
