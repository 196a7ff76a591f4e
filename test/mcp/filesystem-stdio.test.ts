/** server-filesystem over stdio: its tools, a call through summon(), a server that exits while starting. */
import { afterAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { collect, ofType, resultOf } from "../helpers/collect";
import { filesystemStdio, markedTempDir, removeDir, expectNoServerLeftAfterEachTest } from "./helpers";

const dir = markedTempDir();
writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\n");

expectNoServerLeftAfterEachTest();
afterAll(() => removeDir(dir));

describe("server-filesystem over stdio", () => {
  it("offers its tools as mcp__fs__<tool> and reads a file through summon()", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__fs__read_text_file", input: { path: join(dir, "notes.txt") }, id: "r1" }] },
      "read it",
    ]);
    const messages = await collect(
      summon("read notes", { presets: [], plugins: [mcp()], model, mcpServers: { fs: filesystemStdio(dir) } }),
    );
    const init = messages[0]!;
    expect(init.type === "system" && init.subtype === "init" && init.tools).toEqual(
      expect.arrayContaining(["mcp__fs__read_text_file", "mcp__fs__write_file", "mcp__fs__list_directory"]),
    );
    expect(init.type === "system" && init.subtype === "init" && init.extra.mcpServers).toEqual([
      { name: "fs", status: "connected", tools: expect.any(Number) },
    ]);
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({ content: "alpha\nbeta\n", isError: false });
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "read it" });
  });

  it("reports a server that exits while starting as failed, with the end of its stderr; the run succeeds", async () => {
    const missing = join(dir, "does-not-exist");
    const model = scriptedModel(["fine"]);
    const messages = await collect(
      summon("hi", { presets: [], plugins: [mcp()], model, mcpServers: { fs: filesystemStdio(missing) } }),
    );
    const init = messages[0]!;
    expect(init.type === "system" && init.subtype === "init" && init.extra.mcpServers).toEqual([
      {
        name: "fs",
        status: "failed",
        error: expect.stringMatching(
          /^failed to start: its process exited before it finished the MCP handshake; its stderr ended with: .*does-not-exist/,
        ),
      },
    ]);
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "fine" });
  });
});
