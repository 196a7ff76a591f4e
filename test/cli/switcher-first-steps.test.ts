/**
 * What the switcher trial (the packed package in an empty project, a private HOME) met at the
 * first step, through the built bin:
 * - a Claude Code user whose `.claude/settings.json` sets `"model": "claude-sonnet-4-5"` ran
 *   `ubiquity -p "…"` and got "No model configured" alone, with the model in plain sight in the
 *   file: the error now says that model is not read here and which --model it means;
 * - a Codex user whose ~/.codex/config.toml sets `model = "gpt-5-codex"` met the same error: it
 *   now says the file is read with --compat codex, or which --model to pass.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe.concurrent("a Claude Code user's first run", () => {
  it("no model: the error names the model .claude/settings.json sets and the --model it means", async () => {
    const dir = tempProject({ ".claude/settings.json": JSON.stringify({ model: "claude-sonnet-4-5" }) });
    const env = { HOME: join(dir, "home"), UBIQUITY_MODEL: "", ANTHROPIC_API_KEY: "" };
    const { code, stderr } = await runCli(["-p", "what is this project?"], dir, env);
    expect(code).toBe(2);
    expect(stderr).toContain("No model configured: pass --model");
    expect(stderr).toContain(
      `Claude Code's "model": "claude-sonnet-4-5" in ${dir}/.claude/settings.json is not read here (a model string names its provider): pass --model anthropic:claude-sonnet-4-5`,
    );
  });

  it("the user's ~/.claude/settings.json shorthand (sonnet) is named too; a folder without one gets no such line", async () => {
    const dir = tempProject({ "home/.claude/settings.json": JSON.stringify({ model: "sonnet" }) });
    const env = { HOME: join(dir, "home"), UBIQUITY_MODEL: "", ANTHROPIC_API_KEY: "" };
    const named = await runCli(["-p", "hi"], dir, env);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`"model": "sonnet" in ${dir}/home/.claude/settings.json is not read here`);
    expect(named.stderr).toContain("pass --model anthropic:claude-sonnet-4-5");
    const plain = tempProject({});
    const none = await runCli(["-p", "hi"], plain, { HOME: join(plain, "home"), UBIQUITY_MODEL: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).not.toContain("Claude Code's");
  });
});

describe.concurrent("a Codex user's first run", () => {
  it("no model: the error names ~/.codex/config.toml's model, --compat codex and the --model it means", async () => {
    const dir = tempProject({
      "home/.codex/config.toml":
        'model = "gpt-5-codex"\nmodel_reasoning_effort = "high"\n\n[tui]\nmodel = "not-this"\n',
    });
    const env = { HOME: join(dir, "home"), UBIQUITY_MODEL: "", OPENAI_API_KEY: "" };
    const { code, stderr } = await runCli(["-p", "fix it"], dir, env);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `Codex's model = "gpt-5-codex" in ${dir}/home/.codex/config.toml is read with --compat codex (or compat: ["codex"] in the config); or pass --model openai:gpt-5-codex`,
    );
  });
});
