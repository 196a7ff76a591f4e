/**
 * A Claude Code user's first runs in their project, through the built bin and the offline `test`
 * model (no config of ours to start with, as a switcher has none):
 * - the warning about an unread `.claude/settings.json` names a config file and the trust step,
 *   and following it as written makes the Claude Code files load; `--compat claude` does it for one run;
 * - `ubiquity trust .` lists what a Claude Code settings file will do, not a `model` it ignores;
 * - a bare `--model claude-…` (or `gpt-…`, `o3`, `gemini-…`) is refused with that model under its
 *   provider as the example, not `openai:gpt-5` for every name;
 * - `codex exec`'s flags (`-C`, `-m`, `--full-auto`, `--json`, `--sandbox <mode>`…) are exit 2
 *   naming the ubiquity flag to use, not "unknown flag" — and `--sandbox read-only` no longer
 *   turns the sandbox on and sends "read-only …" as the prompt;
 * - `--message-format claude`: a subagent's init and result are not printed as lines of their
 *   own (claude prints one of each per run; a script's first `result` was the subagent's);
 * - the model a settings file sets (`~/.ubiquity/settings.json`, Codex's `~/.codex/config.toml`)
 *   is the run's model: the runner's "no model configured" check no longer stops it first.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const claudeProject = () =>
  tempProject({
    ".claude/settings.json": JSON.stringify({
      model: "claude-sonnet-4-5",
      permissions: { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"] },
    }),
    ".claude/commands/review.md": "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n",
  });

const initOf = (stdout: string) => JSON.parse(stdout.split("\n")[0]!) as { extra: Record<string, unknown> };

describe.concurrent("a Claude Code project's first runs", () => {
  it("the unread-settings warning names the config to write and the trust step; doing what it says loads the files", async () => {
    const dir = claudeProject();
    const env = { HOME: join(dir, "home"), UBIQUITY_TRUST: "" };
    const args = ["run", "-p", "--model", "test", "--output-format", "stream-json", "hi"];
    const before = await runCli(args, dir, env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stderr).toContain(`.claude/settings.json is Claude Code's settings file and is not read`);
    // It used to say "in the config", which a switcher does not have: now the file and its line.
    expect(before.stderr).toContain(`.ubiquityrc.json: {"compat": ["claude"]}`);
    expect(before.stderr).toContain('export default defineConfig({ compat: ["claude"] })');
    expect(before.stderr).toContain("ubiquity trust .");
    expect(before.stderr).toContain("--compat claude");
    expect(initOf(before.stdout).extra.slashCommands).toBeUndefined();

    writeFileSync(join(dir, ".ubiquityrc.json"), '{"compat": ["claude"]}');
    const trusted = await runCli(["trust", "."], dir, env);
    expect(trusted.code, trusted.stderr).toBe(0);
    const after = await runCli(args, dir, env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toContain("is not read");
    expect(initOf(after.stdout).extra.slashCommands).toEqual(["review"]);
  });

  it("--compat claude reads them for one run, with no config file; trust still decides the project's files", async () => {
    const dir = claudeProject();
    const env = { HOME: join(dir, "home"), UBIQUITY_TRUST: "" };
    const args = ["run", "-p", "--compat", "claude", "--model", "test", "--output-format", "stream-json", "hi"];
    // Untrusted: the project's .claude files are skipped, as with compat in a config.
    const untrusted = await runCli(args, dir, env);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toContain("this folder is not trusted");
    expect(initOf(untrusted.stdout).extra.slashCommands).toBeUndefined();
    expect((await runCli(["trust", "."], dir, env)).code).toBe(0);
    const trusted = await runCli(args, dir, env);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stderr).not.toContain("is not read");
    expect(initOf(trusted.stdout).extra.slashCommands).toEqual(["review"]);
    const bad = await runCli(["run", "-p", "--compat", "cursor", "--model", "test", "hi"], dir, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--compat must name claude, codex (comma-separated), not "cursor"');
  });

  it("ubiquity trust . does not claim a Claude Code settings file sets the model (its model is ignored)", async () => {
    const dir = claudeProject();
    writeFileSync(join(dir, ".ubiquityrc.json"), '{"compat": ["claude"]}');
    const out = await runCli(["trust", "."], dir, { HOME: join(dir, "home"), UBIQUITY_TRUST: "" });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(".claude/settings.json (allows Bash(npm test:*)");
    expect(out.stdout).not.toContain("sets model");
  });
});

describe.concurrent("the model a settings file sets", () => {
  it("~/.ubiquity/settings.json's model runs without --model (it was exit 2: no model configured)", async () => {
    const dir = tempProject({ "home/.ubiquity/settings.json": JSON.stringify({ model: "test" }) });
    const out = await runCli(["run", "-p", "--output-format", "json", "list the files"], dir, {
      HOME: join(dir, "home"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ subtype: "success", isError: false });
    // Without one, the error still names the fix.
    const none = await runCli(["run", "-p", "hi"], dir, { HOME: join(dir, "none"), UBIQUITY_MODEL: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No model configured: pass --model");
  });

  it("Codex's ~/.codex/config.toml model (openai:<model>) and reasoning effort run without --model", async () => {
    const server = await startProviderServer(["codex answer"]);
    try {
      const dir = tempProject({
        ".ubiquityrc.json": '{"compat": ["codex"]}',
        "home/.codex/config.toml": 'model = "gpt-5-codex"\nmodel_reasoning_effort = "high"\n',
      });
      mkdirSync(join(dir, "home", ".codex", "prompts"), { recursive: true });
      const out = await runCli(["run", "-p", "hi"], dir, {
        HOME: join(dir, "home"),
        UBIQUITY_MODEL: "",
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: "sk-test",
      });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain("codex answer");
      expect(server.requests[0]!.body).toMatchObject({ model: "gpt-5-codex", reasoning: { effort: "high" } });
    } finally {
      await server.close();
    }
  });
});

describe.concurrent("a Claude or OpenAI model name without its provider", () => {
  it("the error's example is that model under its provider, ready to paste", async () => {
    const dir = tempProject({});
    const cases: [string, string][] = [
      ["claude-sonnet-4-5-20250929", "anthropic:claude-sonnet-4-5-20250929"],
      ["gpt-5-codex", "openai:gpt-5-codex"],
      ["o3", "openai:o3"],
      ["gemini-2.5-pro", "google:gemini-2.5-pro"],
      ["sonnet", "anthropic:claude-sonnet-4-5"],
    ];
    for (const [model, example] of cases) {
      const out = await runCli(["run", "-p", "--model", model, "hi"], dir);
      expect(out.code, model).toBe(2);
      expect(out.stderr).toContain(`model "${model}" names no provider: write "provider:model" (e.g. "${example}")`);
    }
  });
});

describe.concurrent("codex exec's flags", () => {
  it("each names the ubiquity flag to use instead (exit 2, nothing runs)", async () => {
    const dir = tempProject({});
    const cases: [string[], string][] = [
      [["-C", dir], "-C is a codex exec flag ubiquity does not take: pass --cwd <dir>"],
      [["-m", "gpt-5"], 'name the provider ("openai:gpt-5" for codex\'s -m gpt-5)'],
      [["--full-auto"], "--full-auto is a codex exec flag ubiquity does not take: pass --permission-mode acceptEdits"],
      [["--json"], "--json is a codex exec flag ubiquity does not take: pass --output-format stream-json"],
      [["--skip-git-repo-check"], "drop it: ubiquity runs in any folder"],
      [["-a", "never"], "pass --permission-mode dontAsk"],
    ];
    for (const [flags, said] of cases) {
      const out = await runCli(["run", "-p", "--model", "test", ...flags, "hi"], dir);
      expect(out.code, flags.join(" ")).toBe(2);
      expect(out.stderr).toContain(said);
    }
  });

  it("--sandbox read-only is refused naming --permission-mode plan; it was the sandbox switch and a prompt 'read-only hi'", async () => {
    const dir = tempProject({});
    const out = await runCli(["run", "-p", "--model", "test", "--sandbox", "read-only", "hi"], dir);
    expect(out.code).toBe(2);
    expect(out.stdout).not.toContain("read-only");
    expect(out.stderr).toContain("for codex's --sandbox read-only pass --permission-mode plan");
    const off = await runCli(["run", "-p", "--model", "test", "--sandbox", "danger-full-access", "hi"], dir);
    expect(off.stderr).toContain("pass --no-sandbox");
    // The switch itself still works, followed by a flag or the prompt.
    const on = await runCli(["run", "-p", "--sandbox", "--model", "test", "hi"], dir);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain('you said "hi"');
  });
});

describe.concurrent("--message-format claude with a subagent", () => {
  it("one init and one result, the main run's; the subagent's work is assistant lines naming the Agent call", async () => {
    const dir = tempProject(
      {
        "ubiquity.config.ts": `
import { scriptedModel } from "ubiquity/testing";
export default {
  sessionDir: "./sessions",
  marketPricing: false,
  agents: { helper: { description: "Helps with things", prompt: "You help." } },
  model: scriptedModel([
    { toolCalls: [{ toolName: "Agent", input: { subagent_type: "helper", description: "help", prompt: "help me" } }] },
    "sub answer",
    "main answer",
  ]),
};
`,
      },
      { linkUbiquity: true },
    );
    const out = await runCli(["run", "-p", "--message-format", "claude", "--output-format", "stream-json", "go"], dir);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string; subtype?: string });
    const results = lines.filter((l) => l.type === "result");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ result: "main answer" });
    expect(lines.filter((l) => l.type === "system" && l.subtype === "init")).toHaveLength(1);
    const call = lines.find(
      (l) => l.type === "assistant" && JSON.stringify(l).includes('"name":"Agent"'),
    ) as unknown as {
      message: { content: { type: string; id?: string }[] };
    };
    const id = call.message.content.find((b) => b.type === "tool_use")!.id;
    expect(lines.filter((l) => l.parent_tool_use_id === id).map((l) => l.type)).toEqual(["assistant"]);
    // The --output-format json --verbose array has the same lines.
    const all = await runCli(
      ["run", "-p", "--message-format", "claude", "--output-format", "json", "--verbose", "go"],
      dir,
    );
    const array = JSON.parse(all.stdout) as { type: string }[];
    expect(array.filter((m) => m.type === "result")).toHaveLength(1);
  });
});
