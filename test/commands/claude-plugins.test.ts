/**
 * Claude Code plugins, on real ones (test/fixtures/compat/plugins, see each SOURCE.md):
 * `/commit-commands:commit` runs its `!` git lines, and its `allowed-tools` let the model stage
 * and commit — in a real git repository, checked with git afterwards; explanatory-output-style's
 * SessionStart hook (`${CLAUDE_PLUGIN_ROOT}` in its command) adds its context.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";

const FIXTURE = fileURLToPath(new URL("../fixtures/compat/plugins/commit-commands/", import.meta.url));
const EXPLANATORY = fileURLToPath(new URL("../fixtures/compat/plugins/explanatory-output-style/", import.meta.url));
const FEATURE_DEV = fileURLToPath(new URL("../fixtures/compat/plugins/feature-dev/", import.meta.url));
const CODERABBIT = fileURLToPath(new URL("../fixtures/compat/plugins/coderabbit/", import.meta.url));
const temp = tempDirs();
tempHome();

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

function repository(): string {
  const cwd = realpathSync(temp("ubq-plugin-repo-"));
  git(cwd, "init", "-q", "-b", "main");
  git(cwd, "config", "user.email", "test@example.com");
  git(cwd, "config", "user.name", "Test");
  writeFileSync(join(cwd, "a.txt"), "one\n");
  git(cwd, "add", "a.txt");
  git(cwd, "commit", "-q", "-m", "first commit");
  writeFileSync(join(cwd, "a.txt"), "one\ntwo\n");
  return cwd;
}

function plugin(): string {
  const dir = join(realpathSync(temp("ubq-plugins-")), "commit-commands");
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe("Claude Code plugins: commands", () => {
  it("/commit-commands:commit expands with its git context and its allowed-tools let the model commit", async () => {
    const cwd = repository();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Bash", input: { command: "git add a.txt" } },
          { toolName: "Bash", input: { command: 'git commit -m "feat(a): add two"' } },
        ],
      },
      "committed",
    ]);
    // Its allowed-tools cover git add/status/commit; the other context lines are the user's to allow (Claude Code would ask).
    const allowedTools = ["Bash(git diff:*)", "Bash(git branch:*)", "Bash(git log:*)"];
    const query = summon("/commit-commands:commit", {
      model,
      cwd,
      sandbox: false,
      persistSession: false,
      claudePlugins: [plugin()],
      allowedTools,
    });
    const listed = await query.supportedCommands();
    const messages = await collect(query);
    const result = resultOf(messages);
    expect(result.isError, result.result).toBe(false);
    expect(listed.map((c) => c.name)).toEqual(["commit-commands:commit"]);
    const prompt = model.requests[0]!.prompt.filter((m) => m.role === "user").at(-1)!;
    const text = (prompt.content as { text?: string }[]).map((p) => p.text).join("");
    expect(text).toContain("- Current branch: main");
    expect(text).toContain("+two");
    expect(text).toContain("first commit");
    expect(text).not.toContain("!`git");
    // The commit the model made with the command's granted rules.
    expect(git(cwd, "log", "--format=%s")).toBe("feat(a): add two\nfirst commit\n");
    expect(ofType(messages, "tool_result").every((m) => !m.output.isError)).toBe(true);
  });

  it("headless, a context line nothing allows fails the command before the model runs: nothing is committed", async () => {
    const cwd = repository();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: 'git commit -am "sneaky"' } }] },
      "done",
    ]);
    const result = resultOf(
      await collect(
        summon("/commit-commands:commit", {
          model,
          cwd,
          sandbox: false,
          persistSession: false,
          claudePlugins: [plugin()],
        }),
      ),
    );
    expect(result.isError).toBe(true);
    expect(result.result).toContain("/commit-commands:commit: the shell line `git diff HEAD` was not run");
    expect(model.requests).toHaveLength(0);
    expect(git(cwd, "log", "--format=%s")).toBe("first commit\n");
  });

  it("a plugin inside an untrusted project is not loaded (one outside it is the user's); a broken manifest skips the plugin with a warning", async () => {
    const cwd = repository();
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) };
    // Inside the project, a plugin is the project's file: not loaded while the folder is untrusted.
    cpSync(FIXTURE, join(cwd, "plugins", "commit-commands"), { recursive: true });
    const model = scriptedModel(["ok"]);
    const listed = summon("/commit-commands:commit", {
      model,
      cwd,
      sandbox: false,
      persistSession: false,
      claudePlugins: ["./plugins/commit-commands"],
      trust: false,
      logger,
    });
    expect(await listed.supportedCommands()).toEqual([]);
    await collect(listed);
    // Said once, though every plugin that loads a part of it (commands, skills, agents, hooks, MCP) met it.
    expect(warnings.filter((w) => w.includes("was not loaded: its folder is not trusted"))).toHaveLength(1);
    const first = model.requests[0]!.prompt.filter((m) => m.role === "user").at(-1)!;
    expect((first.content as { text?: string }[]).map((p) => p.text).join("")).toBe("/commit-commands:commit");
    // Outside it, the folder is the user's own (named in their settings or config): loaded.
    const outside = summon("hi", {
      model: scriptedModel(["ok"]),
      cwd,
      sandbox: false,
      persistSession: false,
      claudePlugins: [plugin()],
      trust: false,
      logger,
    });
    expect((await outside.supportedCommands()).map((c) => c.name)).toEqual(["commit-commands:commit"]);
    await collect(outside);

    const broken = plugin();
    writeTree(broken, { ".claude-plugin/plugin.json": "{ not json" });
    const other = scriptedModel(["ok"]);
    await collect(
      summon("/commit-commands:commit", {
        model: other,
        cwd,
        sandbox: false,
        persistSession: false,
        claudePlugins: [broken],
        logger,
      }),
    );
    expect(warnings.join("\n")).toContain(`skipped the plugin ${broken}`);
    expect(existsSync(join(broken, "commands", "commit.md"))).toBe(true);
  });

  it("${CLAUDE_PLUGIN_ROOT} stands for the plugin's folder; plugin skills run as /plugin:skill and are listed by the Skill tool", async () => {
    const dir = plugin();
    writeTree(dir, {
      "commands/where.md": "Run ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh",
      "skills/tidy/SKILL.md": "---\ndescription: Tidy up\n---\nUse ${CLAUDE_PLUGIN_ROOT}/tidy.cfg",
    });
    const cwd = repository();
    let skillTool: { description?: string } | undefined;
    const run = async (prompt: string) => {
      const model = scriptedModel(["ok"]);
      await collect(summon(prompt, { model, cwd, sandbox: false, persistSession: false, claudePlugins: [dir] }));
      skillTool = model.requests[0]!.tools!.find((t) => t.name === "Skill") as { description?: string } | undefined;
      const user = model.requests[0]!.prompt.filter((m) => m.role === "user").at(-1)!;
      return (user.content as { text?: string }[]).map((p) => p.text).join("");
    };
    expect(await run("/commit-commands:where")).toBe(`Run ${dir}/scripts/x.sh`);
    expect(await run("/commit-commands:tidy")).toContain(`Use ${dir}/tidy.cfg`);
    // The model sees the plugin's skill in the Skill tool too, by its namespaced name.
    expect(skillTool?.description).toContain("commit-commands:tidy");
  });
});

describe("Claude Code plugins: hooks", () => {
  it("explanatory-output-style's SessionStart hook runs from ${CLAUDE_PLUGIN_ROOT} and its context reaches the model", async () => {
    const dir = join(realpathSync(temp("ubq-plugins-")), "explanatory-output-style");
    cpSync(EXPLANATORY, dir, { recursive: true });
    const cwd = repository();
    const run = async (claudePlugins: string[]) => {
      const model = scriptedModel(["ok"]);
      const result = resultOf(
        await collect(summon("hello", { model, cwd, sandbox: false, persistSession: false, claudePlugins })),
      );
      expect(result.isError, result.result).toBe(false);
      return JSON.stringify(model.requests[0]!.prompt);
    };
    expect(await run([dir])).toContain("You are in 'explanatory' output style mode");
    expect(await run([])).not.toContain("explanatory");
  });

  it("a plugin hooks file that is not JSON stops the run naming it (its guards are never dropped silently)", async () => {
    const dir = join(realpathSync(temp("ubq-plugins-")), "explanatory-output-style");
    cpSync(EXPLANATORY, dir, { recursive: true });
    writeTree(dir, { "hooks/hooks.json": "{ broken" });
    const model = scriptedModel(["ok"]);
    const result = resultOf(
      await collect(
        summon("hello", { model, cwd: repository(), sandbox: false, persistSession: false, claudePlugins: [dir] }),
      ),
    );
    expect(result.isError).toBe(true);
    expect(result.result).toContain(join(dir, "hooks", "hooks.json"));
    expect(model.requests).toHaveLength(0);
  });
});

describe("Claude Code plugins: agents and commands together (feature-dev)", () => {
  it("its agents are plugin:agent subagents the model can call; its command is /feature-dev:feature-dev", async () => {
    const dir = join(realpathSync(temp("ubq-plugins-")), "feature-dev");
    cpSync(FEATURE_DEV, dir, { recursive: true });
    const cwd = repository();
    const model = scriptedModel([
      {
        toolCalls: [
          {
            toolName: "Agent",
            input: { subagent_type: "feature-dev:code-explorer", description: "explore", prompt: "Map the code." },
          },
        ],
      },
      "explored: a.txt only",
      "done",
    ]);
    const query = summon("/feature-dev:feature-dev add a greeting", {
      model,
      cwd,
      sandbox: false,
      persistSession: false,
      claudePlugins: [dir],
    });
    const listed = await query.supportedCommands();
    const messages = await collect(query);
    expect(resultOf(messages).isError, resultOf(messages).result).toBe(false);
    expect(listed).toContainEqual({
      name: "feature-dev:feature-dev",
      description: "Guided feature development with codebase understanding and architecture focus",
      argumentHint: "Optional feature description",
    });
    const agentTool = model.requests[0]!.tools!.find((t) => t.name === "Agent") as { description?: string };
    for (const name of ["feature-dev:code-architect", "feature-dev:code-explorer", "feature-dev:code-reviewer"])
      expect(agentTool.description).toContain(name);
    const first = JSON.stringify(model.requests[0]!.prompt);
    expect(first).toContain("You are helping a developer implement a new feature");
    expect(first).toContain("add a greeting");
    // The subagent ran with the plugin agent's own prompt, and its answer came back.
    expect(JSON.stringify(model.requests[1]!.prompt)).toContain("expert code analyst");
    const result = ofType(messages, "tool_result").find((m) => m.toolName === "Agent")!;
    expect(result.output.isError).toBe(false);
    expect(result.output.content).toContain("explored: a.txt only");
  });
});

describe("Codex plugins (.codex-plugin/plugin.json)", () => {
  it("openai/plugins' coderabbit: its skills (the manifest's skills path) load as coderabbit:<skill>, listed and invocable", async () => {
    const dir = join(realpathSync(temp("ubq-plugins-")), "coderabbit");
    cpSync(CODERABBIT, dir, { recursive: true });
    const cwd = repository();
    const model = scriptedModel(["ok"]);
    const query = summon("/coderabbit:code-review the last commit", {
      model,
      cwd,
      sandbox: false,
      persistSession: false,
      claudePlugins: [dir],
    });
    const listed = await query.supportedCommands();
    const result = resultOf(await collect(query));
    expect(result.isError, result.result).toBe(false);
    expect(listed.map((c) => c.name)).toEqual(["coderabbit:code-review"]);
    const skillTool = model.requests[0]!.tools!.find((t) => t.name === "Skill") as { description?: string };
    expect(skillTool.description).toContain("coderabbit:code-review");
    const user = model.requests[0]!.prompt.filter((m) => m.role === "user").at(-1)!;
    const text = (user.content as { text?: string }[]).map((p) => p.text).join("");
    expect(text).toContain("# CodeRabbit Review");
    expect(text).toContain("ARGUMENTS: the last commit");
  });
});

describe("two Claude Code plugins of one name", () => {
  it("are reported, naming both folders; the later one's command answers its name; one folder named twice is one plugin", async () => {
    const make = (body: string) => {
      const dir = join(realpathSync(temp("ubq-plugins-")), "acme");
      writeTree(dir, {
        ".claude-plugin/plugin.json": JSON.stringify({ name: "acme" }),
        "commands/hello.md": `---\ndescription: Say hello\n---\n${body}\n`,
      });
      return dir;
    };
    const first = make("FIRST-BODY");
    const second = make("SECOND-BODY");
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
    const model = scriptedModel(["ok"]);
    const messages = await collect(
      summon("/acme:hello", {
        model,
        cwd: realpathSync(temp("ubq-plugin-cwd-")),
        claudePlugins: [first, second, second],
        logger,
        persistSession: false,
      }),
    );
    expect(resultOf(messages).isError).toBe(false);
    const sent = JSON.stringify(model.requests[0]!.prompt);
    expect(sent).toContain("SECOND-BODY");
    expect(sent).not.toContain("FIRST-BODY");
    const said = warnings.filter((w) => w.includes("two plugins are named acme"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(first);
    expect(said[0]).toContain(second);
  });
});
