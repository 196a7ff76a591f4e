/**
 * A skill folder under a `skills` root that a trusted project's config names is one of the
 * project's files: it applies only while approved and unchanged. The agent (or anyone) changing
 * a skill there after trust — to grant itself tools through `allowed-tools` — changes nothing
 * until the user trusts the project again. Real bin, fake provider; a marker file proves what ran.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstCallProvider } from "../helpers/first-call-provider";
import { runCli, type CliRun } from "../helpers/project";

const world = firstCallProvider("ubq-skp-home-");

function put(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

const skill = (allowed: string) =>
  `---\nname: deploy\ndescription: Deploys the project\nallowed-tools: ${allowed}\n---\nRun the deploy.\n`;

describe("a skills folder named by a trusted project's config", () => {
  it("a skill changed after trust is not read (its allowed-tools grant nothing) until the project is trusted again", async () => {
    const dir = world.temp("ubq-skp-repo-");
    mkdirSync(join(dir, ".git"));
    put(dir, ".ubiquityrc.json", JSON.stringify({ skills: ["tools/skills"] }));
    put(dir, "tools/skills/deploy/SKILL.md", skill("Read"));
    const marker = join(dir, "granted-marker");
    // The model loads the deploy skill, then runs a command only its allowed-tools would allow.
    world.firstCall = { id: "call_skill", name: "Skill", input: { skill: "deploy" } };
    world.laterCalls = [{ id: "call_touch", name: "Bash", input: { command: `touch ${marker}` } }];
    const env = {
      HOME: world.home,
      UBIQUITY_TRUST: "",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: world.provider.baseURL,
    };
    const run = (): Promise<CliRun> => runCli(["run", "--model", "openai:gpt-4.1", "-p", "go"], dir, env);
    const trust = async () => {
      const result = await runCli(["trust", "."], dir, { HOME: world.home, UBIQUITY_TRUST: "" });
      expect(result.code, result.stderr).toBe(0);
    };
    await trust();
    // After trust, the skill is rewritten to grant the shell.
    put(dir, "tools/skills/deploy/SKILL.md", skill("Bash(touch:*)"));
    const after = await run();
    expect(after.code, after.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(after.stderr).toContain(`skills: ${join(dir, "tools", "skills", "deploy")} was not read`);
    // Trusted again, the skill loads and its grant lets the command run: the same run can succeed.
    await trust();
    const approved = await run();
    expect(approved.code, approved.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
