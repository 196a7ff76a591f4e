/** Which tools are offered: a bare deny removes a tool; an allowedTools with a bare entry limits the run. */
import { describe, expect, it } from "vitest";
import { summon, type SummonOptions, type Tool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import permissions from "ubiquity/plugins/permissions";
import { collect } from "../helpers/collect";
import { probeTool, tempDir } from "./helpers";

const tools = (...names: string[]): Tool[] => names.map((n) => probeTool(n).tool);

/** The tools in `system/init` and in the first model request. */
async function offered(options: SummonOptions) {
  const model = scriptedModel(["ok"]);
  const messages = await collect(summon("hi", { presets: [], plugins: [permissions()], cwd: tempDir(), ...options, model }));
  const init = messages[0] as { tools: string[] };
  const requested = (model.requests[0]!.tools ?? []).map((t) => t.name);
  expect(requested).toEqual(init.tools);
  return init.tools;
}

describe("availability", () => {
  it("a bare disallowedTools entry removes the tool", async () => {
    expect(await offered({ tools: tools("Read", "Bash", "Write"), disallowedTools: ["Bash"] })).toEqual(["Read", "Write"]);
  });

  it("a scoped rule never removes a tool", async () => {
    expect(await offered({ tools: tools("Read", "Bash"), disallowedTools: ["Bash(rm:*)"], allowedTools: ["Bash(git:*)"] })).toEqual(["Read", "Bash"]);
  });

  it("an allowedTools with a bare entry limits the run to the tools it names (scoped entries keep their tool)", async () => {
    expect(await offered({ tools: tools("Read", "Bash", "Write", "Grep"), allowedTools: ["Read", "Bash(git:*)"] })).toEqual(["Read", "Bash"]);
  });

  it("MCP tools by server: a bare mcp__server__* deny removes every tool of that server only", async () => {
    const all = tools("mcp__github__get_issue", "mcp__github__delete_repo", "mcp__github_enterprise__x", "Read");
    expect(await offered({ tools: all, disallowedTools: ["mcp__github__*"] })).toEqual(["mcp__github_enterprise__x", "Read"]);
    expect(await offered({ tools: all, allowedTools: ["mcp__github", "Read"] })).toEqual(["mcp__github__get_issue", "mcp__github__delete_repo", "Read"]);
    expect(await offered({ tools: all, allowedTools: ["mcp__github__get_issue"] })).toEqual(["mcp__github__get_issue"]);
  });

  it("a malformed rule fails the run before any model call, naming the rule and the fix", async () => {
    const model = scriptedModel(["never"]);
    const messages = await collect(summon("hi", { presets: [], plugins: [permissions()], model, disallowedTools: ["Bash(rm:*"] }));
    const result = messages.at(-1) as { isError: boolean; result: string };
    expect(result.isError).toBe(true);
    expect(result.result).toContain('disallowedTools: "Bash(rm:*" is not a permission rule; write Tool or Tool(content)');
    expect(model.requests).toHaveLength(0);
  });
});
