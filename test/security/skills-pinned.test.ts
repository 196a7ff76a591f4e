/**
 * A skill folder under a `skills` root that a trusted project's config names is one of the
 * project's files: it applies only while approved and unchanged. The agent (or anyone) changing
 * a skill there after trust — to grant itself tools through `allowed-tools` — changes nothing
 * until the user trusts the project again. Real bin, fake provider; a marker file proves what ran.
 */
import { existsSync, mkdirSync, realpathSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer, type RecordedRequest } from "../../src/testing/index";
import { requireDist, runCli, type CliRun } from "../helpers/project";

const made: string[] = [];
const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
};
let provider: FakeProviderServer;
let marker = "";

// The model loads the deploy skill, then runs a command only its allowed-tools would allow.
const script = (request: RecordedRequest) => {
  const body = JSON.stringify(request.body);
  if (!body.includes("call_skill"))
    return { toolCalls: [{ id: "call_skill", name: "Skill", input: { skill: "deploy" } }] };
  if (!body.includes("call_touch"))
    return { toolCalls: [{ id: "call_touch", name: "Bash", input: { command: `touch ${marker}` } }] };
  return "done";
};

beforeAll(async () => {
  requireDist();
  provider = await startProviderServer(script);
});
afterAll(async () => {
  await provider.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function put(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

const skill = (allowed: string) =>
  `---\nname: deploy\ndescription: Deploys the project\nallowed-tools: ${allowed}\n---\nRun the deploy.\n`;

describe("a skills folder named by a trusted project's config", () => {
  it("a skill changed after trust is not read (its allowed-tools grant nothing) until the project is trusted again", async () => {
    const home = temp("ubq-skp-home-");
    const dir = temp("ubq-skp-repo-");
    mkdirSync(join(dir, ".git"));
    put(dir, ".ubiquityrc.json", JSON.stringify({ skills: ["tools/skills"] }));
    put(dir, "tools/skills/deploy/SKILL.md", skill("Read"));
    marker = join(dir, "granted-marker");
    const env = { HOME: home, UBIQUITY_TRUST: "", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: provider.baseURL };
    const run = (): Promise<CliRun> => runCli(["run", "--model", "openai:gpt-4.1", "-p", "go"], dir, env);
    const trust = async () => {
      const result = await runCli(["trust", "."], dir, { HOME: home, UBIQUITY_TRUST: "" });
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
