/** Parity: skills (seed README: "Skills"). */
import { describe, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { scriptedModel } from "ubiquity/testing";
import { ofType } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { writeTree } from "../helpers/temp-home";
import { call, run, systemOf, toolNames } from "./helpers";

const temp = tempDirs();
const skillTool = (r: LanguageModelV4CallOptions) =>
  r.tools?.find((t) => t.name === "Skill") as { description?: string } | undefined;

describe("skills", () => {
  it("the listing sits in the Skill tool's description only; the system prompt gets one sentence; the tool returns the body", async () => {
    const root = realpathSync(temp());
    writeTree(root, {
      "release/SKILL.md":
        "---\nname: release\ndescription: Cut a release. Use when asked to publish.\n---\nFollow `checklist.md` in this directory.\n",
      "release/checklist.md": "1. CHECKLIST-STEP\n",
    });
    const cwd = realpathSync(temp());
    const model = scriptedModel([
      call("Skill", { skill: "release" }, "s"),
      call("Read", { file_path: join(root, "release", "checklist.md") }, "r"),
      "done",
    ]);
    const messages = await run("publish", { model, cwd, skills: [root] });
    const first = model.requests[0]!;
    expect(skillTool(first)!.description).toContain("Cut a release. Use when asked to publish.");
    expect(systemOf(first)).not.toContain("Cut a release. Use when asked to publish.");
    expect(systemOf(first)).toMatch(/skill/i);
    const results = ofType(messages, "tool_result");
    expect(results.find((m) => m.toolUseId === "s")!.output.content).toContain(
      "Follow `checklist.md` in this directory.",
    );
    const read = results.find((m) => m.toolUseId === "r")!;
    expect(read.output.isError).toBeFalsy();
    expect(read.output.content).toContain("CHECKLIST-STEP");
  });

  it("a root may be a single skill directory; name defaults to the directory name; no description is skipped", async () => {
    const root = realpathSync(temp());
    writeTree(root, {
      "deploy/SKILL.md": "---\ndescription: Deploy things.\n---\nBody.\n",
      "broken/SKILL.md": "---\nname: broken\n---\nBody.\n",
    });
    const model = scriptedModel(["done"]);
    await run("go", { model, cwd: temp(), skills: [join(root, "deploy"), join(root, "broken")] });
    const d = skillTool(model.requests[0]!)!.description!;
    expect(d).toContain("deploy");
    expect(d).toContain("Deploy things.");
    expect(d).not.toContain("broken");
  });

  it("descriptions are clamped to 1,536 characters (Claude Code's limit); a listing over its budget (8,000 characters for an unknown window) degrades to names", async () => {
    const root = realpathSync(temp());
    writeTree(root, { "long/SKILL.md": `---\ndescription: ${"d".repeat(2000)}\n---\nBody.\n` });
    const model = scriptedModel(["done"]);
    await run("go", { model, cwd: temp(), skills: [root] });
    const d = skillTool(model.requests[0]!)!.description!;
    expect(d).toContain("d".repeat(1535));
    expect(d).not.toContain("d".repeat(1536));

    const many = realpathSync(temp());
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`s${String(i).padStart(2, "0")}/SKILL.md`] = `---\ndescription: ${"x".repeat(200)} ${i}\n---\nBody.\n`;
    writeTree(many, files);
    const m2 = scriptedModel(["done"]);
    await run("go", { model: m2, cwd: temp(), skills: [many] });
    const d2 = skillTool(m2.requests[0]!)!.description!;
    expect(d2).toContain("s00");
    expect(d2).toContain("s59");
    expect(d2).not.toContain("x".repeat(200));
  });

  it("the Skill tool exists only when skills loaded, and honors disallowedTools", async () => {
    const root = realpathSync(temp());
    writeTree(root, { "a/SKILL.md": "---\ndescription: A.\n---\nBody.\n" });
    const none = scriptedModel(["done"]);
    await run("go", { model: none, cwd: temp() });
    expect(toolNames(none.requests[0])).not.toContain("Skill");
    const denied = scriptedModel(["done"]);
    await run("go", { model: denied, cwd: temp(), skills: [root], disallowedTools: ["Skill"] });
    expect(toolNames(denied.requests[0])).not.toContain("Skill");
  });

  it("subagents inherit skills, may be narrowed, and skills: [] grants none", async () => {
    const root = realpathSync(temp());
    writeTree(root, {
      "a/SKILL.md": "---\ndescription: Skill A.\n---\nBody.\n",
      "b/SKILL.md": "---\ndescription: Skill B.\n---\nBody.\n",
    });
    const who = (r: LanguageModelV4CallOptions) => /You are ([A-Z]+)\./.exec(systemOf(r))?.[1];
    const model = scriptedModel(({ request }) => {
      if (who(request)) return "ok";
      if (request.prompt.at(-1)?.role === "tool") return "done";
      return {
        toolCalls: ["all", "narrow", "none"].map((t, i) => ({
          toolName: "Agent",
          id: `a${i}`,
          input: { subagent_type: t, description: "x", prompt: "x" },
        })),
      };
    });
    await run("go", {
      model,
      cwd: temp(),
      skills: [root],
      agents: {
        all: { description: "all", prompt: "You are ALL." },
        narrow: { description: "narrow", prompt: "You are NARROW.", skills: ["b"] },
        none: { description: "none", prompt: "You are NONE.", skills: [] },
      },
    });
    const req = (n: string) => model.requests.find((r) => who(r) === n)!;
    expect(skillTool(req("ALL"))!.description).toContain("Skill A.");
    expect(skillTool(req("NARROW"))!.description).toContain("Skill B.");
    expect(skillTool(req("NARROW"))!.description).not.toContain("Skill A.");
    expect(toolNames(req("NONE"))).not.toContain("Skill");
  });

  it("skillSources reads <cwd>/.ubiquity/skills; explicit skills win a name", async () => {
    const cwd = realpathSync(temp());
    const root = realpathSync(temp());
    writeTree(cwd, { ".ubiquity/skills/rel/SKILL.md": "---\ndescription: From project.\n---\nBody.\n" });
    writeTree(root, { "rel/SKILL.md": "---\ndescription: From explicit.\n---\nBody.\n" });
    const model = scriptedModel(["done"]);
    await run("go", { model, cwd, trust: true, skillSources: ["project"], skills: [root] });
    const d = skillTool(model.requests[0]!)!.description!;
    expect(d).toContain("From explicit.");
    expect(d).not.toContain("From project.");
  });
});
