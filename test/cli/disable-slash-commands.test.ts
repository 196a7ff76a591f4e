/**
 * `--disable-slash-commands` (Claude Code's flag): no command or skill for the run. A `/name`
 * prompt goes to the model as written and the Skill tool is not offered; without the flag the same
 * project's command expands.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, streamMessages, tempProject } from "../helpers/project";
import { tempHome } from "../helpers/temp-home";

const home = tempHome();
beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

describe("ubiquity run --disable-slash-commands", () => {
  it("turns a project's commands and skills off for the run", async () => {
    const dir = tempProject(
      {
        ".claude/commands/greet.md": "---\ndescription: Greet\n---\nSay hi to $ARGUMENTS\n",
        ".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release\n---\nSteps.\n",
      },
      { linkUbiquity: true },
    );
    const run = async (...flags: string[]) => {
      const out = await runCli(
        [
          "run",
          "-p",
          "--compat",
          "claude",
          "--model",
          "test",
          "--output-format",
          "stream-json",
          ...flags,
          "/greet bob",
        ],
        dir,
        { HOME: home() },
      );
      expect(out.code, out.stderr).toBe(0);
      const lines = streamMessages(out.stdout);
      return { init: lines.find((m) => m.type === "system" && m.subtype === "init"), result: lines.at(-1) };
    };
    const on = await run();
    expect(on.result.result).toContain("Say hi to bob");
    expect(on.init.tools).toContain("Skill");
    const off = await run("--disable-slash-commands");
    expect(off.result.result).toContain('you said "/greet bob"');
    expect(off.init.tools).not.toContain("Skill");
  });
});
