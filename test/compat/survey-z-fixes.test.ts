/**
 * What the tenth compat survey (docs/guide/compat-survey.md, "Round z") found ubiquity misreading in
 * real Claude Code and Codex files, run through the built bin with a scripted model in a temp project
 * with its own HOME. Fixtures: test/compat/fixtures/survey-z/ (SOURCE.md names each file's repository,
 * commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { stepsProject } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-z/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** A folder outside the project for plugin folders, as installed plugins are. */
const pluginsFolder = () => tempProject({}, { packageJson: false });

/** The scripted model's turns: one tool call each. */
const calls = (...steps: [string, Record<string, unknown>][]) =>
  JSON.stringify(steps.map(([toolName, input]) => ({ toolCalls: [{ toolName, input }] })));

describe("a plugin's command files named with ':', a plugin that is one skill, a command's tools:, a manifest listing its agents/ files (one run)", () => {
  // srp-developer's commands are `srp:gh.md` & co.; noteplan's SKILL.md is at the plugin's root;
  // ubehera/claude-agents-pro's commands write an agent's `tools:` (`tools: Task, Bash(npm test:*), …`).
  let run: Promise<{ out: Awaited<ReturnType<typeof runCli>>; requests: string[] }> | undefined;
  const shared = () => {
    run ??= (async () => {
      const p = stepsProject();
      const plugins = pluginsFolder();
      const srp = join(plugins, "srp-developer");
      cpSync(join(FIXTURES, "srp"), srp, { recursive: true });
      // Kept as srp-gh.md in the repository (no ':' in a file name on Windows); upstream it is srp:gh.md.
      copyFileSync(join(srp, "commands", "srp-gh.md"), join(srp, "commands", "srp:gh.md"));
      rmSync(join(srp, "commands", "srp-gh.md"));
      cpSync(join(FIXTURES, "noteplan"), join(plugins, "noteplan"), { recursive: true });
      cpSync(join(FIXTURES, "ubehera", ".claude"), join(p.dir, ".claude"), { recursive: true });
      cpSync(join(FIXTURES, "cloudflare-images"), join(plugins, "cloudflare-images"), { recursive: true });
      const out = await runCli(
        [
          "run",
          "--compat",
          "claude",
          "--plugin-dir",
          srp,
          "--plugin-dir",
          join(plugins, "noteplan"),
          "--plugin-dir",
          join(plugins, "cloudflare-images"),
          "-p",
          "/srp-developer:srp:gh",
        ],
        p.dir,
        { ...p.env, UBQ_STEPS: calls(["Skill", { skill: "noteplan:noteplan" }]) },
      );
      return { out, requests: p.requests() };
    })();
    return run;
  };

  it("a command file named srp:gh.md is the command /srp-developer:srp:gh, as Claude Code names it after its file", async () => {
    const { out, requests } = await shared();
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain("skipped the command file");
    expect(out.stderr).not.toContain("is not a command of this run");
    // Its body (`/github-integration`) is what the model got, not the command as typed.
    expect(requests[0]).toContain("/github-integration");
    expect(requests[0]).not.toContain("/srp-developer:srp:gh");
  });

  it("a plugin whose SKILL.md is at its root (no skills/) is the skill noteplan:noteplan", async () => {
    const { out, requests } = await shared();
    expect(out.code, out.stderr).toBe(0);
    expect(requests[1]).toContain("Skill: noteplan:noteplan");
    expect(requests[1]).toContain("# NotePlan Search");
  });

  it("a command file's tools: (an agent's field; commands read allowed-tools) is named as granting and limiting nothing", async () => {
    const { out } = await shared();
    const file = out.stderr
      .split("\n")
      .find((line) => line.includes(join(".claude", "commands", "quality", "test.md")));
    expect(file).toContain("tools is a field of agents, not of commands, and is ignored (as Claude Code ignores it)");
    expect(file).toContain("allowed-tools");
  });

  // secondsky/claude-skills' cloudflare-images lists its own agents/ files in its manifest
  // (`"agents": ["./agents/optimization-agent.md", …]`): each file was read twice, each warning said twice.
  it("each agent file is read once: its warning (allowed-tools in an agent) is said once", async () => {
    const { out } = await shared();
    const file = join("cloudflare-images", "agents", "optimization-agent.md");
    const said = out.stderr.split("\n").filter((line) => line.includes(file));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("allowed-tools is a field of skills and commands, not of agents");
  });
});

describe("Codex's [shell_environment_policy] set (kossnocorp/dotfiles: AGENT, GIT_CONFIG_GLOBAL)", () => {
  // Codex inserts `set` into the environment of the commands it runs, then keeps only `include_only`;
  // it does not expand `${HOME}` in it. ubiquity named the table as not read, and the commands ran without them.
  it("its variables reach Bash as Codex gives them; the keys that pick from the environment are named", async () => {
    const p = stepsProject();
    mkdirSync(join(p.home, ".codex"));
    const config = join(p.home, ".codex", "config.toml");
    writeFileSync(
      config,
      [
        "[shell_environment_policy]",
        'inherit = "core"',
        'set = { AGENT = "true", GIT_CONFIG_GLOBAL = "${HOME}/.config/git/agent.config", NOT_KEPT = "x" }',
        'include_only = ["AGENT", "GIT_*", "PATH", "HOME"]',
        "",
      ].join("\n"),
    );
    const out = await runCli(
      ["run", "--compat", "codex", "--permission-mode", "bypassPermissions", "-p", "env"],
      p.dir,
      {
        ...p.env,
        UBQ_STEPS: calls(["Bash", { command: 'echo "agent=$AGENT git=$GIT_CONFIG_GLOBAL kept=${NOT_KEPT:-none}"' }]),
      },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests()[1]).toContain("agent=true git=${HOME}/.config/git/agent.config kept=none");
    expect(out.stderr).toContain(`${config}: [shell_environment_policy] inherit not applied`);
    expect(out.stderr).toContain(`${config}: [shell_environment_policy] include_only is applied to set alone`);
    expect(out.stderr).not.toMatch(/Codex keys ubiquity does not read were ignored: [^\n]*shell_environment_policy/);
  });
});

describe("Codex skills whose agents/openai.yaml turns implicit invocation off (openai/openai-agents-js)", () => {
  // `policy.allow_implicit_invocation: false`: Codex leaves the skill out of the list the model sees;
  // only the user's `$name` runs it (Claude Code's disable-model-invocation). The model was offered it here.
  it("the model cannot load it, the user can run it; a skill without the policy stays the model's", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "openai-agents-js", ".agents"), join(p.dir, ".agents"), { recursive: true });
    const out = await runCli(["run", "--compat", "codex", "-p", "/implementation-kickoff add a flag"], p.dir, {
      ...p.env,
      UBQ_STEPS: calls(["Skill", { skill: "implementation-kickoff" }], ["Skill", { skill: "pr-draft-summary" }]),
    });
    expect(out.code, out.stderr).toBe(0);
    const [first, second, third] = p.requests();
    // The user's /implementation-kickoff ran the skill.
    expect(first).toContain("# Implementation Kickoff");
    expect(second).toContain('there is no skill named \\"implementation-kickoff\\"');
    expect(third).toContain("Skill: pr-draft-summary");
  });
});

describe("a plugin's hook that keeps its state beside its code (Dev-GOM's hook-todo-collector)", () => {
  // Its scripts `mkdirSync(<plugin>/.state)`; the sandbox shows the plugin folder read-only, and node
  // reports the refused mkdir as ENOENT: the warning held a stack trace and nothing about the sandbox.
  it("its failure names the sandbox and the ways out", async () => {
    const p = stepsProject();
    const plugin = join(pluginsFolder(), "hook-todo-collector");
    cpSync(join(FIXTURES, "todo-collector"), plugin, { recursive: true });
    const out = await runCli(["run", "--compat", "claude", "--plugin-dir", plugin, "-p", "hi"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    const warning = out.stderr.split("\nwarning: ").find((w) => w.includes("collect-todos.js"));
    expect(warning).toContain(`ENOENT: no such file or directory, mkdir '${join(plugin, ".state")}'`);
    expect(warning).toContain("the hook ran in the OS sandbox");
    expect(warning).toContain("sandbox.filesystem.allowWrite");
  });
});
