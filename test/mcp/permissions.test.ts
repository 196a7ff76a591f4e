/** MCP tools under the permissions plugin: plan mode by the user's readOnly list (never readOnlyHint), deny rules by server glob. */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import permissions from "ubiquity/plugins/permissions";
import { collect, ofType, resultOf } from "../helpers/collect";
import { everythingStdio, filesystemStdio, markedTempDir, removeDir, expectNoServerLeftAfterEachTest } from "./helpers";

const dir = markedTempDir();
writeFileSync(join(dir, "plan.md"), "step 1\n");

expectNoServerLeftAfterEachTest();
afterAll(() => removeDir(dir));

describe("plan mode", () => {
  it("a tool the server marks readOnlyHint: true does not run on the server's word", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__fs__list_directory", input: { path: dir }, id: "look" }] },
      "here is the plan",
    ]);
    const messages = await collect(
      summon("plan it", {
        presets: [],
        plugins: [permissions(), mcp()],
        model,
        permissionMode: "plan",
        mcpServers: { fs: filesystemStdio(dir) },
      }),
    );
    const [look] = ofType(messages, "tool_result");
    expect(look!.output).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Plan mode: mcp__fs__list_directory can change things/),
    });
  });

  it("runs a tool the user's config lists as read-only and blocks one it does not", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "mcp__fs__list_directory", input: { path: dir }, id: "look" },
          { toolName: "mcp__fs__write_file", input: { path: join(dir, "new.txt"), content: "x" }, id: "write" },
        ],
      },
      "here is the plan",
    ]);
    const messages = await collect(
      summon("plan it", {
        presets: [],
        plugins: [permissions(), mcp()],
        model,
        permissionMode: "plan",
        mcpServers: { fs: { ...filesystemStdio(dir), readOnly: ["list_directory"] } },
      }),
    );
    const results = Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));
    expect(results.look).toMatchObject({ isError: false, content: expect.stringContaining("[FILE] plan.md") });
    expect(results.write).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Plan mode: mcp__fs__write_file can change things/),
    });
    expect(existsSync(join(dir, "new.txt"))).toBe(false);
    expect(resultOf(messages).permissionDenials).toEqual([
      expect.objectContaining({ toolName: "mcp__fs__write_file", toolUseId: "write" }),
    ]);
  });
});

describe("deny rules", () => {
  it("mcp__everything__* takes every tool of that server out of the run, and leaves other servers alone", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__everything__echo", input: { message: "hi" }, id: "t1" }] },
      "ok",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [permissions(), mcp()],
        model,
        disallowedTools: ["mcp__everything__*"],
        mcpServers: { everything: everythingStdio(), fs: filesystemStdio(dir) },
      }),
    );
    const init = messages[0]!;
    if (init.type !== "system" || init.subtype !== "init") throw new Error("no init");
    expect(init.tools.filter((t) => t.startsWith("mcp__everything__"))).toEqual([]);
    expect(init.tools).toContain("mcp__fs__read_text_file");
    expect(init.extra.mcpServers).toEqual([
      { name: "everything", status: "connected", tools: expect.any(Number) },
      { name: "fs", status: "connected", tools: expect.any(Number) },
    ]);
    expect(model.requests[0]!.tools!.some((t) => t.name.startsWith("mcp__everything__"))).toBe(false);
    const [result] = ofType(messages, "tool_result");
    expect(result!.output.isError).toBe(true);
    expect(result!.output.content).not.toContain("Echo: hi");
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
  });
});
