/**
 * Errors people can act on, through the built bin: each names the plugin and the config file,
 * suggests the near name, and speaks of plugins and files rather than kernel hooks (those stay
 * for --verbose). Plus the output a person sees: colours only in a terminal or with FORCE_COLOR,
 * and the closing line with turns, tokens and cost.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const run = (dir: string, ...args: string[]) => runCli(["run", "--model", "test", ...args, "hi"], dir);

describe.concurrent("configuration errors of `ubiquity run`", () => {
  it("a built-in's name in plugins explains disable and replacing, not npm i", async () => {
    const dir = tempProject({ ".ubiquityrc.yaml": "plugins: [ubiquity:tool-bash]\n" });
    const { code, stderr } = await run(dir);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${join(dir, ".ubiquityrc.yaml")}: plugins[0] "ubiquity:tool-bash" is the name of a built-in plugin, not a module`,
    );
    expect(stderr).toContain('list ubiquity:tool-bash under "disable"');
    expect(stderr).toContain('"ubiquity/plugins/tool-bash"');
    expect(stderr).not.toContain("npm i");
  });

  it("an unknown option key and a mistyped disable name get a did-you-mean", async () => {
    const key = await run(tempProject({ ".ubiquityrc.yaml": "maxTurn: 3\n" }));
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('"maxTurn" (did you mean "maxTurns"?)');
    const disable = await run(tempProject({ ".ubiquityrc.yaml": "disable: [tool-bash, ubiquity:tool-grpe]\n" }));
    expect(disable.code, disable.stderr).toBe(0);
    expect(disable.stderr).toContain(
      'disable: no plugin named tool-bash is in the list; nothing was removed (did you mean "ubiquity:tool-bash"?)',
    );
    expect(disable.stderr).toContain('(did you mean "ubiquity:tool-grep"?)');
    expect(disable.stderr.match(/no plugin named tool-bash/g)).toHaveLength(1); // said once
  });

  it("no model anywhere names --model, the config file and UBIQUITY_MODEL, not options.model (exit 2: nothing ran)", async () => {
    const noKeys = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", GOOGLE_GENERATIVE_AI_API_KEY: "" };
    const { code, stdout, stderr } = await runCli(["run", "hi"], tempProject({}), { UBIQUITY_MODEL: "", ...noKeys });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      "error: No model configured: pass --model (e.g. --model openai:gpt-5, or --model test for the offline model), set model in the config file, or the UBIQUITY_MODEL environment variable",
    );
    expect(stderr).not.toContain("options.model");
    // A switcher from claude has ANTHROPIC_API_KEY: the example is a model of that provider (the value is never shown).
    const claude = await runCli(["run", "-p", "hi"], tempProject({}), {
      UBIQUITY_MODEL: "",
      ...noKeys,
      ANTHROPIC_API_KEY: "sk-ant-not-a-real-key",
    });
    expect(claude.code).toBe(2);
    expect(claude.stderr).toContain(
      "e.g. --model anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY is set), or --model test",
    );
    expect(claude.stderr).not.toContain("sk-ant-not-a-real-key");
  });

  it("a plugin's option error names the plugin and the config file", async () => {
    const dir = tempProject(
      { ".ubiquityrc.yaml": "plugins:\n  - [ubiquity/plugins/mcp, { connectTimeoutMs: fast }]\n" },
      { linkUbiquity: true },
    );
    const { code, stderr } = await run(dir);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^error: ${join(dir, ".ubiquityrc.yaml")}: plugins\\[0\\] "ubiquity/plugins/mcp": .*invalid options for plugin ubiquity:mcp`,
      ),
    );
  });

  it("an apply that throws names the plugin and the file, without kernel terms; --verbose keeps them", async () => {
    const files = {
      "ubiquity.config.ts": `export default { plugins: [{ name: "acme:boom", apply() { throw new Error("boom: set ACME_TOKEN"); } }] };\n`,
    };
    const dir = tempProject(files);
    const { code, stdout, stderr } = await run(dir, "--output-format", "json");
    expect(code).toBe(2);
    expect(stderr).toBe(`error: ${join(dir, "ubiquity.config.ts")}: plugin acme:boom: boom: set ACME_TOKEN\n`);
    expect(JSON.parse(stdout)).toMatchObject({
      isError: true,
      exitCode: 2,
      result: expect.stringContaining("plugin acme:boom: boom"),
    });
    const verbose = await run(dir, "--verbose");
    expect(verbose.stderr).toContain("[plugin acme:boom] hook apply: boom");
  });
});

describe.concurrent("what a person sees", () => {
  it("no colours in a pipe or with NO_COLOR; FORCE_COLOR turns them on; a closing line with turns, tokens and cost", async () => {
    const dir = tempProject({});
    const plain = await runCli(["run", "--model", "test", "list the files"], dir);
    expect(plain.stderr).not.toContain("\u001b[");
    expect(plain.stderr).toMatch(
      /→ Glob\(pattern: "\*"\)\n {2}✓ Glob: ok, \d+ lines?\n2 turns · [\d,]+ in \/ [\d,]+ out tokens · cost unknown · [\d.]+s\n$/,
    );
    const forced = await runCli(["run", "--model", "test", "list the files"], dir, { NO_COLOR: "", FORCE_COLOR: "1" });
    expect(forced.stderr).toContain("\u001b[");
    expect(forced.stderr.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(
      /→ Glob\(pattern: "\*"\)\n {2}✓ Glob: ok, \d+ lines?\n2 turns · [\d,]+ in \/ [\d,]+ out tokens · cost unknown · [\d.]+s\n$/,
    );
  });
});
