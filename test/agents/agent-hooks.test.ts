/**
 * Claude Code's agent-scoped hooks (frontmatter `hooks` of an agent file): they watch the
 * subagent's run alone — a PreToolUse guard blocks the subagent's Bash call while the parent's
 * same call runs (marker files are the oracle) — and its Stop hooks run at SubagentStop.
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { writeTree } from "../helpers/temp-home";
import { parseAgentFile } from "../../plugins/agents/parse";

const temp = tempDirs();

const AGENT = `---
name: careful
description: Does careful work
tools: Bash
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: "grep -q sub-made && { echo 'the careful agent may not make sub-made' >&2; exit 2; } || exit 0"
  Stop:
    - hooks:
        - type: command
          command: "touch stop-ran"
---
Work carefully.
`;

describe("agent-scoped hooks", () => {
  it("parse as the settings-file shape, keys as written", () => {
    const parsed = parseAgentFile(AGENT, "careful");
    expect(parsed.ok).toBe(true);
    const hooks = parsed.ok ? (parsed.definition.hooks as Record<string, unknown>) : {};
    expect(Object.keys(hooks)).toEqual(["PreToolUse", "Stop"]);
  });

  it("block the subagent's call but not the parent's; Stop runs when the subagent stops", async () => {
    const cwd = realpathSync(temp("ubq-agent-hooks-"));
    writeTree(cwd, { ".ubiquity/agents/careful.md": AGENT });
    const model = scriptedModel(({ request }) => {
      const system = JSON.stringify(request.prompt.filter((m) => m.role === "system"));
      const tools = request.prompt.filter((m) => m.role === "tool").length;
      if (system.includes("Work carefully."))
        return tools === 0
          ? { toolCalls: [{ toolName: "Bash", input: { command: "touch sub-made" } }] }
          : "blocked, as told";
      if (tools === 0)
        return {
          toolCalls: [
            { toolName: "Bash", input: { command: "touch parent-made # would match sub-made" } },
            {
              toolName: "Agent",
              input: { subagent_type: "careful", description: "careful work", prompt: "make sub-made" },
            },
          ],
        };
      return "done";
    });
    const options: Options = {
      cwd,
      model,
      agentSources: ["project"],
      sandbox: false,
      persistSession: false,
      persistTodos: false,
      canUseTool: () => ({ behavior: "allow" as const }),
    };
    const messages = await collect(summon("go", options));
    expect(existsSync(join(cwd, "parent-made"))).toBe(true);
    expect(existsSync(join(cwd, "sub-made"))).toBe(false);
    expect(existsSync(join(cwd, "stop-ran"))).toBe(true);
    expect(JSON.stringify(messages)).toContain("the careful agent may not make sub-made");
  });
});
