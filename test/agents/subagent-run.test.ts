import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon, type HookInput, type Kernel, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import agents, { SUBAGENT_NOTE } from "../../plugins/agents/index";
import systemPrompt from "ubiquity/plugins/system-prompt";
import hooks from "ubiquity/plugins/hooks";
import permissions from "ubiquity/plugins/permissions";
import { AskUserQuestionTool } from "../../plugins/tool-ask-user/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { agentCall, agentOf, answered, echo, systemOf, toolNames } from "./helpers";

const other = defineTool({
  name: "Other",
  description: "Another tool.",
  inputSchema: z.object({}),
  execute: () => "other",
});

async function run(script: Script, { plugins = [], ...options }: SummonOptions) {
  const model = scriptedModel(script);
  const messages: Message[] = await collect(
    summon("go", {
      model,
      presets: [],
      plugins: [systemPrompt(), agents(), ...plugins],
      tools: [echo, other],
      ...options,
    }),
  );
  return { model, messages, result: resultOf(messages) };
}

/** The parent makes `calls` in its first response and finishes when answered; subagents answer per `child`. */
function parentThen(
  calls: ReturnType<typeof agentCall>[],
  child: (
    who: string,
    request: Parameters<Extract<Script, Function>>[0]["request"],
  ) => ReturnType<Extract<Script, Function>>,
): Script {
  return ({ request }) => {
    const who = agentOf(request);
    if (who) return child(who, request);
    return answered(request) ? "parent done" : { toolCalls: calls };
  };
}

describe("the Agent tool", () => {
  it("lists the agents sorted by name and is offered only when agents are configured", async () => {
    const { model } = await run(() => "hi", {
      agents: {
        zeta: { description: "Last", prompt: "p" },
        alpha: { description: "First", prompt: "p", tools: ["Read"] },
      },
    });
    const tool = model.requests[0]!.tools!.find((t) => t.name === "Agent")! as { description?: string };
    expect(tool.description).toMatch(/- alpha: First \(tools: Read\)\n- zeta: Last$/);
    const none = await run(() => "hi", {});
    expect(toolNames(none.model.requests[0]!)).toEqual(["Echo", "Other"]);
  });

  it("tools omitted inherits, [] grants none, a list cuts, disallowedTools removes; never Agent nor AskUserQuestion", async () => {
    const offered: Record<string, string[]> = {};
    const { result } = await run(
      parentThen(
        [agentCall("inherit", "c1"), agentCall("none", "c2"), agentCall("cut", "c3"), agentCall("deny", "c4")],
        (who, request) => {
          offered[who] = toolNames(request);
          return `${who} done`;
        },
      ),
      {
        tools: [echo, other, new AskUserQuestionTool()],
        agents: {
          inherit: { description: "d", prompt: "You are INHERIT." },
          none: { description: "d", prompt: "You are NONE.", tools: [] },
          cut: { description: "d", prompt: "You are CUT.", tools: ["Echo", "Agent", "AskUserQuestion", "Missing"] },
          deny: { description: "d", prompt: "You are DENY.", disallowedTools: ["Echo"] },
        },
      },
    );
    expect(result.isError).toBe(false);
    expect(offered).toEqual({ INHERIT: ["Echo", "Other"], NONE: [], CUT: ["Echo"], DENY: ["Other"] });
  });

  it("never offers a subagent a tool its parent was not offered", async () => {
    // A plugin that keeps Other from the main run only: the subagent asks for it by name.
    const hideFromParent = {
      name: "test:hide",
      apply: (kernel: Kernel) =>
        kernel.hooks.tool.list.tap("test:hide", (tools, r) =>
          r.agent ? tools : tools.filter((t) => t.name !== "Other"),
        ),
    };
    const offered: string[][] = [];
    await run(
      parentThen([agentCall("wide", "c1")], (_who, request) => {
        offered.push(toolNames(request));
        return "done";
      }),
      {
        plugins: [hideFromParent],
        agents: { wide: { description: "d", prompt: "You are WIDE.", tools: ["Echo", "Other"] } },
      },
    );
    expect(offered).toEqual([["Echo"]]);
  });

  it("shares the parent's permission rules and canUseTool handler", async () => {
    const asked: { tool: string; input: unknown }[] = [];
    const { messages } = await run(
      parentThen([agentCall("worker", "c1")], (_w, request) =>
        answered(request)
          ? "worker done"
          : {
              toolCalls: [
                { toolName: "Echo", input: { text: "from child" } },
                { toolName: "Other", input: {} },
              ],
            },
      ),
      {
        plugins: [permissions()],
        askTools: ["Echo"],
        disallowedTools: ["Other"],
        canUseTool: async (tool, input) => (
          asked.push({ tool, input }), { behavior: "deny", message: "no echo for subagents" }
        ),
        agents: { worker: { description: "d", prompt: "You are WORKER.", tools: ["Echo", "Other"] } },
      },
    );
    expect(asked).toEqual([{ tool: "Echo", input: { text: "from child" } }]);
    const child = ofType(messages, "tool_result").filter((m) => m.agentId);
    expect(child.map((m) => [m.toolName, m.output.isError, m.output.content])).toEqual([
      ["Echo", true, "no echo for subagents"],
      ["Other", true, expect.stringContaining('Unknown tool "Other"')], // the parent's deny rule removed it
    ]);
  });

  it("enforces maxTurns (default 20) and reports a failed subagent as an error result", async () => {
    const calls: Record<string, number> = {};
    const { messages, result } = await run(
      parentThen([agentCall("short", "c1"), agentCall("standard", "c2")], (who) => {
        calls[who] = (calls[who] ?? 0) + 1;
        return { toolCalls: [{ toolName: "Echo", input: { text: "again" } }] };
      }),
      {
        agents: {
          short: { description: "d", prompt: "You are SHORT.", maxTurns: 2 },
          standard: { description: "d", prompt: "You are STANDARD." },
        },
      },
    );
    expect(calls).toEqual({ SHORT: 2, STANDARD: 20 });
    expect(result.isError).toBe(false);
    const outs = ofType(messages, "tool_result").filter((m) => m.toolName === "Agent");
    expect(outs.map((m) => m.output.isError)).toEqual([true, true]);
    expect(outs[0]!.output.content).toMatch(
      /^Agent short did not finish \(error_max_turns\): Reached the maximum number of turns \(2\)/,
    );
    expect(outs[0]!.output.metadata).toMatchObject({ agentType: "short", subtype: "error_max_turns", numTurns: 2 });
  });

  it("runs on the parent's model unless the agent names one; usage is charged per model", async () => {
    const small = scriptedModel(["small done"], { provider: "other", modelId: "small" });
    const { messages, result } = await run(
      parentThen([agentCall("same", "c1"), agentCall("own", "c2")], () => "same done"),
      {
        agents: {
          same: { description: "d", prompt: "You are SAME.", model: "inherit" },
          own: { description: "d", prompt: "You are OWN.", model: small },
        },
      },
    );
    const byAgent = ofType(messages, "assistant").filter((m) => m.agentId);
    expect(byAgent.map((m) => [m.text, m.model]).sort()).toEqual([
      ["same done", "scripted:scripted"],
      ["small done", "other:small"],
    ]);
    expect(result.modelUsage["other:small"]?.requests).toBe(1);
    expect(result.modelUsage["scripted:scripted"]?.requests).toBe(3);
  });

  it("narrows the permission mode, never widens it", async () => {
    const { messages } = await run(
      parentThen([agentCall("planner", "c1"), agentCall("wild", "c2")], () => "ok"),
      {
        plugins: [permissions()],
        permissionMode: "acceptEdits",
        agents: {
          planner: { description: "d", prompt: "You are PLANNER.", permissionMode: "plan" },
          wild: { description: "d", prompt: "You are WILD.", permissionMode: "bypassPermissions" },
        },
      },
    );
    const inits = ofType(messages, "system").filter((m) => m.subtype === "init" && m.agentId);
    expect(inits.map((m) => [m.parentToolUseId, (m as { permissionMode?: string }).permissionMode]).sort()).toEqual([
      ["c1", "plan"],
      ["c2", "acceptEdits"],
    ]);
  });

  it("marks a subagent's messages with parentToolUseId and a fresh agentId per invocation", async () => {
    const { messages } = await run(
      parentThen([agentCall("echoer", "c1"), agentCall("echoer", "c2")], (_w, request) =>
        answered(request) ? "ok" : { toolCalls: [{ toolName: "Echo", input: { text: "x" } }] },
      ),
      {
        agents: { echoer: { description: "d", prompt: "You are ECHOER." } },
      },
    );
    const sub = messages.filter((m) => m.agentId);
    expect(new Set(sub.map((m) => m.type))).toEqual(
      new Set(["system", "user", "assistant", "tool_use", "tool_result", "result"]),
    );
    const ids = (toolUseId: string) =>
      new Set(sub.filter((m) => m.parentToolUseId === toolUseId).map((m) => m.agentId));
    expect(ids("c1").size).toBe(1);
    expect(ids("c2").size).toBe(1);
    expect([...ids("c1")][0]).not.toBe([...ids("c2")][0]);
    expect(sub.every((m) => m.parentToolUseId === "c1" || m.parentToolUseId === "c2")).toBe(true);
  });

  it("gives a subagent its definition's prompt, its own history, and a system prompt ending with the report note", async () => {
    const seen: { system: string; prompt: string }[] = [];
    await run(
      parentThen([agentCall("helper", "c1", "count the files")], (_w, request) => {
        seen.push({
          system: systemOf(request),
          prompt: JSON.stringify(request.prompt.filter((m) => m.role !== "system")),
        });
        return "done";
      }),
      { appendSystemPrompt: "APPENDED", agents: { helper: { description: "d", prompt: "You are HELPER." } } },
    );
    expect(seen[0]!.system).toContain("You are HELPER.");
    expect(seen[0]!.system).not.toContain("You are a coding agent"); // the definition's prompt replaces the guidance
    expect(seen[0]!.system).toContain("APPENDED");
    expect(seen[0]!.system.endsWith(SUBAGENT_NOTE)).toBe(true);
    expect(seen[0]!.prompt).toContain("count the files");
    expect(seen[0]!.prompt).not.toContain('"go"'); // nothing of the parent's conversation
  });

  it("fires SubagentStart (its context reaches the subagent; a block stops it) and SubagentStop with the agent's id", async () => {
    const events: HookInput[] = [];
    const prompts: string[] = [];
    const { messages } = await run(
      parentThen([agentCall("helper", "c1"), agentCall("blocked", "c2")], (_w, request) => {
        prompts.push(JSON.stringify(request.prompt));
        return "helper done";
      }),
      {
        plugins: [hooks()],
        agents: {
          helper: { description: "d", prompt: "You are HELPER." },
          blocked: { description: "d", prompt: "You are BLOCKED." },
        },
        hooks: {
          SubagentStart: [
            {
              hooks: [
                async (i) => (
                  events.push(i),
                  i.agentType === "blocked"
                    ? { decision: "block", reason: "not today" }
                    : { additionalContext: "CONTEXT-FROM-HOOK" }
                ),
              ],
            },
          ],
          SubagentStop: [{ hooks: [async (i) => void events.push(i)] }],
        },
      },
    );
    expect(events.map((e) => [e.hookEventName, e.agentType])).toEqual([
      ["SubagentStart", "helper"],
      ["SubagentStart", "blocked"],
      ["SubagentStop", "helper"],
    ]);
    expect(events[0]!.agentId).toBe(events[2]!.agentId);
    expect(events[0]).toMatchObject({
      prompt: "task for helper",
      extra: { description: "helper task", parentToolUseId: "c1" },
    });
    expect(events[2]!.message).toBe("helper done");
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("CONTEXT-FROM-HOOK");
    const blocked = ofType(messages, "tool_result").find((m) => m.toolUseId === "c2")!;
    expect(blocked.output).toMatchObject({ isError: true, content: "Agent blocked was not started: not today" });
  });
});
