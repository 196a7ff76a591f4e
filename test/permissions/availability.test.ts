/** Which tools are offered: a bare deny removes a tool; an allowedTools with a bare entry limits the run; approvedTools never limits, availableTools limits and approves nothing. */
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
  const messages = await collect(
    summon("hi", { presets: [], plugins: [permissions()], cwd: tempDir(), ...options, model }),
  );
  const init = messages[0] as { tools: string[] };
  const requested = (model.requests[0]!.tools ?? []).map((t) => t.name);
  expect(requested).toEqual(init.tools);
  return init.tools;
}

describe("availability", () => {
  it("a bare disallowedTools entry removes the tool", async () => {
    expect(await offered({ tools: tools("Read", "Bash", "Write"), disallowedTools: ["Bash"] })).toEqual([
      "Read",
      "Write",
    ]);
  });

  it("a scoped rule never removes a tool", async () => {
    expect(
      await offered({ tools: tools("Read", "Bash"), disallowedTools: ["Bash(rm:*)"], allowedTools: ["Bash(git:*)"] }),
    ).toEqual(["Read", "Bash"]);
  });

  it("an allowedTools with a bare entry limits the run to the tools it names (scoped entries keep their tool)", async () => {
    expect(
      await offered({ tools: tools("Read", "Bash", "Write", "Grep"), allowedTools: ["Read", "Bash(git:*)"] }),
    ).toEqual(["Read", "Bash"]);
  });

  it("MCP tools by server: a bare mcp__server__* deny removes every tool of that server only", async () => {
    const all = tools("mcp__github__get_issue", "mcp__github__delete_repo", "mcp__github_enterprise__x", "Read");
    expect(await offered({ tools: all, disallowedTools: ["mcp__github__*"] })).toEqual([
      "mcp__github_enterprise__x",
      "Read",
    ]);
    expect(await offered({ tools: all, allowedTools: ["mcp__github", "Read"] })).toEqual([
      "mcp__github__get_issue",
      "mcp__github__delete_repo",
      "Read",
    ]);
    expect(await offered({ tools: all, allowedTools: ["mcp__github__get_issue"] })).toEqual(["mcp__github__get_issue"]);
  });

  it("a malformed rule fails the run before any model call, naming the rule and the fix", async () => {
    const model = scriptedModel(["never"]);
    const messages = await collect(
      summon("hi", { presets: [], plugins: [permissions()], model, disallowedTools: ["Bash(rm:*"] }),
    );
    const result = messages.at(-1) as { isError: boolean; result: string };
    expect(result.isError).toBe(true);
    expect(result.result).toContain(
      'disallowedTools: "Bash(rm:*" is not a permission rule; write Tool or Tool(content)',
    );
    expect(model.requests).toHaveLength(0);
  });

  it("approvedTools never limits the tools, a bare name included; availableTools limits and approves nothing (issue 38)", async () => {
    expect(await offered({ tools: tools("Read", "Bash", "Write"), approvedTools: ["Read", "Bash(git:*)"] })).toEqual([
      "Read",
      "Bash",
      "Write",
    ]);
    expect(await offered({ tools: tools("Read", "Bash", "Write"), availableTools: ["Read", "Bash"] })).toEqual([
      "Read",
      "Bash",
    ]);
    expect(await offered({ tools: tools("Read", "Bash"), availableTools: [] })).toEqual([]);
    // MCP tools stay unless an entry names an MCP tool or server, as `claude --tools` limits the built-in tools only.
    const all = tools("Read", "Write", "mcp__github__get_issue", "mcp__jira__x");
    expect(await offered({ tools: all, availableTools: ["Read"] })).toEqual([
      "Read",
      "mcp__github__get_issue",
      "mcp__jira__x",
    ]);
    expect(await offered({ tools: all, availableTools: ["Read", "mcp__github__*"] })).toEqual([
      "Read",
      "mcp__github__get_issue",
    ]);
    const model = scriptedModel(["never"]);
    const messages = await collect(
      summon("hi", { presets: [], plugins: [permissions()], model, availableTools: ["Bash(git:*)"] }),
    );
    expect(messages.at(-1)).toMatchObject({
      isError: true,
      result: expect.stringContaining('availableTools: "Bash(git:*)" names a rule, not a tool'),
    });
    expect(model.requests).toHaveLength(0);
  });

  it("approvedTools pre-approves: a call it covers runs without a handler, one availableTools offers is still asked (denied headless)", async () => {
    const probe = probeTool("Probe");
    const run = (options: SummonOptions) => {
      const model = scriptedModel([{ toolCalls: [{ toolName: "Probe", input: { value: "x" } }] }, "done"]);
      return collect(
        summon("go", { presets: [], plugins: [permissions()], cwd: tempDir(), tools: [probe.tool], ...options, model }),
      );
    };
    const approved = (await run({ approvedTools: ["Probe"] })).find((m) => m.type === "tool_result") as {
      output: { isError: boolean };
    };
    expect(approved.output.isError).toBe(false);
    const offeredOnly = (await run({ availableTools: ["Probe"] })).find((m) => m.type === "tool_result") as {
      output: { isError: boolean; content: string };
    };
    expect(offeredOnly.output.isError).toBe(true);
    expect(offeredOnly.output.content).toContain("No canUseTool handler");
  });
});
