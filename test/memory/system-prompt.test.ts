import { describe, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { summon, type SummonOptions } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import memory, { MEMORY_HEADER } from "../../plugins/memory/index";
import agents from "ubiquity/plugins/agents";
import hooks from "ubiquity/plugins/hooks";
import systemPrompt from "ubiquity/plugins/system-prompt";
import { collect } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { writeTree } from "../helpers/temp-home";
import { agentCall, agentOf, answered, systemOf } from "../agents/helpers";

const temp = tempDirs();

async function systemPrompts(options: SummonOptions, script: Script = ["ok"]) {
  const model = scriptedModel(script);
  await collect(summon("hi", { model, presets: [], ...options }));
  return model.requests.map((r) => ({ who: agentOf(r), system: systemOf(r) }));
}

describe("memory in the system prompt", () => {
  it("comes after the run sections and feature notes, right before appendSystemPrompt, each file introduced by path and source", async () => {
    const cwd = realpathSync(temp("ubq-mem-"));
    writeTree(cwd, { "UBIQUITY.md": "Use tabs. See @docs/style.md", "docs/style.md": "Short lines." });
    const [first] = await systemPrompts({
      cwd,
      memorySources: ["project"],
      appendSystemPrompt: "APPENDED",
      plugins: [systemPrompt(), hooks(), memory()],
      hooks: { Stop: [{ hooks: [() => undefined] }] },
    });
    const system = first!.system;
    const expected = [
      MEMORY_HEADER,
      `## ${join(cwd, "UBIQUITY.md")} (project memory)\nUse tabs. See @docs/style.md`,
      `## ${join(cwd, "docs", "style.md")} (project memory, included by ${join(cwd, "UBIQUITY.md")})\nShort lines.`,
      "APPENDED",
    ].join("\n\n");
    expect(system.endsWith(expected)).toBe(true);
    expect(system.indexOf("# Permissions")).toBeLessThan(system.indexOf("# Hooks"));
    expect(system.indexOf("# Hooks")).toBeLessThan(system.indexOf(MEMORY_HEADER));
  });

  it("with no memory, the system prompt is byte-identical to a run without the plugin", async () => {
    const cwd = realpathSync(temp("ubq-mem-"));
    const without = await systemPrompts({ cwd, appendSystemPrompt: "APPENDED", plugins: [systemPrompt()] });
    const asked = await systemPrompts({
      cwd,
      appendSystemPrompt: "APPENDED",
      memorySources: ["project", "local"],
      plugins: [systemPrompt(), memory()],
    });
    const off = await systemPrompts({ cwd, appendSystemPrompt: "APPENDED", plugins: [systemPrompt(), memory()] });
    expect(asked[0]!.system).toBe(without[0]!.system);
    expect(off[0]!.system).toBe(without[0]!.system);
  });

  it("subagents inherit the run's memory", async () => {
    const cwd = realpathSync(temp("ubq-mem-"));
    writeTree(cwd, { "UBIQUITY.md": "Never touch vendor/." });
    const prompts = await systemPrompts(
      {
        cwd,
        memorySources: ["project"],
        plugins: [systemPrompt(), memory(), agents()],
        agents: { helper: { description: "d", prompt: "You are HELPER." } },
      },
      ({ request }) =>
        agentOf(request) ? "helped" : answered(request) ? "done" : { toolCalls: [agentCall("helper", "c1")] },
    );
    const child = prompts.find((p) => p.who === "HELPER")!;
    expect(child.system).toContain(`## ${join(cwd, "UBIQUITY.md")} (project memory)\nNever touch vendor/.`);
    expect(prompts.filter((p) => !p.who).every((p) => p.system.includes("Never touch vendor/."))).toBe(true);
  });
});
