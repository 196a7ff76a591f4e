/** MCP tool names cannot collide: ambiguous server names are refused, naming both. */
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import mcp from "ubiquity/plugins/mcp";
import { checkServerNames, mcpToolName } from "../../plugins/mcp/names";
import { collect, resultOf } from "../helpers/collect";

describe("MCP server names", () => {
  it("refuses a server name containing the separator", () => {
    expect(() => checkServerNames(["github__evil"])).toThrow(/"github__evil".*separator/);
    expect(() => checkServerNames(["github_"])).toThrow(/separator/);
    // mcp__github___x would read as server "github" with tool "_x"
    expect(mcpToolName("github_", "x")).toBe("mcp__github___x");
  });

  it("refuses two servers that give the same prefix, naming both", () => {
    expect(() => checkServerNames(["my.server", "my_server"])).toThrow(
      /"my\.server" and "my_server" both give tools the prefix mcp__my_server__/,
    );
  });

  it("accepts distinct, clean names", () => {
    expect(() => checkServerNames(["github", "git-hub", "fs"])).not.toThrow();
  });

  it("a run with colliding server names ends in a result error naming both, before any server starts", async () => {
    const server = { type: "stdio", command: "ubiquity-no-such-server" };
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp()],
        model: "test",
        mcpServers: { "my.server": server, my_server: server },
      } as never),
    );
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/"my\.server" and "my_server"/);
  });
});
