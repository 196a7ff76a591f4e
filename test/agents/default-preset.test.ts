import { describe, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { agentCall, agentOf, answered, toolNames } from "./helpers";

const temp = tempDirs();
const home = tempHome();

describe("agents, skills and memory in the default preset", () => {
  it("offer Agent and Skill to the main run, memory to both; a subagent never gets Agent or AskUserQuestion", async () => {
    const cwd = realpathSync(temp("ubq-default-"));
    writeTree(cwd, { "UBIQUITY.md": "Project rule: be brief.", ".ubiquity/skills/release/SKILL.md": "---\ndescription: Cut a release.\n---\nSteps." });
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
});
