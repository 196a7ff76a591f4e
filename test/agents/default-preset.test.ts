import { describe, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { summon, type Kernel, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { agentCall, agentOf, answered, toolNames } from "./helpers";
import { gate, latest, told } from "./background-helpers";

const temp = tempDirs();
const home = tempHome();

describe("agents, skills and memory in the default preset", () => {
  it("offer Agent and Skill to the main run, memory to both; a subagent never gets Agent or AskUserQuestion", async () => {
    const cwd = realpathSync(temp("ubq-default-"));
    writeTree(cwd, {
      "UBIQUITY.md": "Project rule: be brief.",
      ".ubiquity/skills/release/SKILL.md": "---\ndescription: Cut a release.\n---\nSteps.",
    });
    writeTree(home(), { ".ubiquity/agents/helper.md": "---\ndescription: Helps\n---\nYou are HELPER." });
    const seen: { who?: string; tools: string[]; system: string }[] = [];
    const model = scriptedModel(({ request }) => {
      const who = agentOf(request);
      seen.push({ who, tools: toolNames(request), system: JSON.stringify(request.prompt[0]) });
      if (who) return "helped";
      return answered(request) ? "done" : { toolCalls: [agentCall("helper", "c1")] };
    });
    const messages: Message[] = await collect(
      summon("go", {
        model,
        cwd,
        agentSources: ["user"],
        skillSources: ["project"],
        memorySources: ["project"],
        canUseTool: async () => ({ behavior: "allow" }),
        persistSession: false,
        persistTodos: false,
        marketPricing: false,
      }),
    );
    expect(resultOf(messages)).toMatchObject({ isError: false, result: "done" });
    const parent = seen.find((s) => !s.who)!;
    const child = seen.find((s) => s.who === "HELPER")!;
    expect(parent.tools).toEqual(expect.arrayContaining(["Read", "Agent", "Skill"]));
    expect(child.tools).toEqual(expect.arrayContaining(["Read", "Skill"]));
    expect(child.tools).not.toContain("Agent");
    expect(child.tools).not.toContain("AskUserQuestion");
    for (const s of [parent, child]) expect(s.system).toContain("Project rule: be brief.");
    expect(ofType(messages, "tool_result").find((m) => m.toolUseId === "c1")!.output.content).toBe("helped");
  });

  it("run a background agent messaged mid-run: task messages in the stream, its reply the run's next prompt, listed by backgroundTasks()", async () => {
    const cwd = realpathSync(temp("ubq-default-bg-"));
    const g = gate();
    const gatePlugin = {
      name: "test:gate",
      apply: (kernel: Kernel) => void kernel.registries.tools.register("Gate", g.tool, "test:gate"),
    };
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "WORKER")
        return answered(request)
          ? `worker: ${/also (\w+)/.exec(told(request))?.[0] ?? "nothing more"}`
          : { toolCalls: [{ toolName: "Gate", input: {} }] };
      const said = latest(request);
      if (said.includes("Background work ended")) return "all done";
      if (said.includes("Message queued")) {
        g.open();
        return "waiting for the worker";
      }
      if (answered(request))
        return { toolCalls: [{ toolName: "SendMessage", input: { to: "w", message: "also lint" } }] };
      return {
        toolCalls: [
          {
            toolName: "Agent",
            id: "c1",
            input: {
              subagent_type: "worker",
              description: "check",
              prompt: "check things",
              run_in_background: true,
              name: "w",
            },
          },
        ],
      };
    });
    const query = summon("go", {
      model,
      cwd,
      agents: { worker: { description: "Works", prompt: "You are WORKER." } },
      plugins: [gatePlugin],
      canUseTool: async () => ({ behavior: "allow" }),
      persistSession: false,
      persistTodos: false,
      marketPricing: false,
    });
    const messages: Message[] = await collect(query);
    expect(resultOf(messages)).toMatchObject({ isError: false, result: "all done" });
    const started = messages.find((m) => m.type === "system" && m.subtype === "task_started") as
      | { task: { id: string; kind: string; name?: string } }
      | undefined;
    expect(started?.task).toMatchObject({ id: "agent-1", kind: "agent", name: "w" });
    const ended = messages.find((m) => m.type === "system" && m.subtype === "task_ended") as
      | { task: { state: string; outcome: string } }
      | undefined;
    expect(ended?.task).toMatchObject({ state: "completed", outcome: "worker: also lint" });
    expect(latest(model.requests.at(-1)!)).toContain("Its reply:\nworker: also lint");
    expect(await query.backgroundTasks()).toEqual([
      expect.objectContaining({ id: "agent-1", kind: "agent", state: "completed", outcome: "worker: also lint" }),
    ]);
  });
});
