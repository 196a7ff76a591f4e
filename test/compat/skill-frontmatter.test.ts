/**
 * Claude Code's skill frontmatter beyond name and description: `disable-model-invocation` (the
 * user's to run as /name, not in the Skill tool), `user-invocable: false` (the model's alone), and
 * `allowed-tools` (allowed once the skill is loaded by the model or run as /name — a marker file
 * proves the granted call ran, and that nothing else was granted).
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { writeTree } from "../helpers/temp-home";

const temp = tempDirs();

function project(): string {
  const cwd = realpathSync(temp("ubq-skill-fm-"));
  writeTree(cwd, {
    "skills/deploy/SKILL.md":
      "---\nname: deploy\ndescription: Deploy the site\ndisable-model-invocation: true\n---\nRun the deploy.\n",
    "skills/house-style/SKILL.md":
      "---\nname: house-style\ndescription: How we write code here\nuser-invocable: false\n---\nUse tabs.\n",
    "skills/marker/SKILL.md":
      "---\nname: marker\ndescription: Makes the marker file\nallowed-tools: Bash(touch made), Read\n---\nTouch the file named made.\n",
  });
  return cwd;
}

const base = (cwd: string): Options => ({
  cwd,
  skills: [join(cwd, "skills")],
  sandbox: false,
  persistSession: false,
  persistTodos: false,
  marketPricing: false,
});

describe("skill frontmatter as Claude Code reads it", () => {
  it("disable-model-invocation hides a skill from the Skill tool; user-invocable: false hides it from the slash commands", async () => {
    const cwd = project();
    const model = scriptedModel(["ok"]);
    const query = summon("hi", { ...base(cwd), model });
    const commands = (await query.supportedCommands()).map((c) => c.name);
    await collect(query);
    const skill = model.requests[0]!.tools!.find((t) => t.name === "Skill") as { description: string };
    expect(skill.description).toContain("house-style");
    expect(skill.description).toContain("marker");
    expect(skill.description).not.toContain("deploy");
    expect(commands).toContain("deploy");
    expect(commands).toContain("marker");
    expect(commands).not.toContain("house-style");
  });

  it("allowed-tools are allowed once the model loads the skill, and not before", async () => {
    for (const load of [false, true]) {
      const cwd = project();
      const model = scriptedModel(({ request }) => {
        const tools = request.prompt.filter((m) => m.role === "tool").length;
        if (load && tools === 0) return { toolCalls: [{ toolName: "Skill", input: { skill: "marker" } }] };
        if (tools === (load ? 1 : 0)) return { toolCalls: [{ toolName: "Bash", input: { command: "touch made" } }] };
        return "done";
      });
      await collect(summon("make it", { ...base(cwd), model }));
      expect(existsSync(join(cwd, "made")), `loaded: ${load}`).toBe(load);
    }
  });

  it("run as /marker, its allowed-tools are granted for that prompt; other commands are not", async () => {
    const cwd = project();
    const model = scriptedModel(({ request }) =>
      request.prompt.some((m) => m.role === "tool")
        ? "done"
        : {
            toolCalls: [
              { toolName: "Bash", input: { command: "touch made" } },
              { toolName: "Bash", input: { command: "touch other" } },
            ],
          },
    );
    await collect(summon("/marker", { ...base(cwd), model }));
    expect(existsSync(join(cwd, "made"))).toBe(true);
    expect(existsSync(join(cwd, "other"))).toBe(false);
  });
});
