/**
 * What the second compat survey (docs/guide/compat-survey.md, "Round r") found ubiquity misreading
 * in real Claude Code files, loaded through the real loaders and, where a user would see it, run
 * through the built bin with a scripted model in a temp project with its own HOME. Fixtures:
 * test/fixtures/compat/survey-r/ (SOURCE.md names each file's repository, commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadCommands } from "../../plugins/commands/load";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { readClaudeSettingsFile } from "../../plugins/settings/claude";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/survey-r/", import.meta.url));

const CONFIG = STEPS_CONFIG;

// The frontmatter of disler/claude-code-hooks-mastery's plan_w_team.md (a repository without a
// licence, so written here): a command with its own hooks, as Claude Code's commands may have.
const COMMAND_WITH_HOOKS = `---
description: Plan with a team
argument-hint: [user prompt]
model: opus
hooks:
  Stop:
    - hooks:
        - type: command
          command: echo validated
---
Plan this: $ARGUMENTS
`;

let dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "ubq-survey-r-"));
  dirs.push(dir);
  return dir;
};

beforeAll(() => requireDist());
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
  removeTempProjects();
});

describe("a command file's Claude Code fields ubiquity has no equivalent for", () => {
  it("are named in a warning, and the command still loads (they were dropped in silence)", async () => {
    const root = join(scratch(), ".claude", "commands");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "plan_w_team.md"), COMMAND_WITH_HOOKS);
    writeFileSync(join(root, "fork.md"), "---\ndescription: d\ncontext: fork\nagent: Explore\n---\nbody\n");
    const reports: string[] = [];
    const commands = await loadCommands([{ path: root, source: "project", claude: true }], (m) => reports.push(m));
    expect(commands.map((c) => c.name).sort()).toEqual(["fork", "plan_w_team"]);
    expect(reports).toHaveLength(2);
    expect(reports.find((r) => r.includes("plan_w_team.md"))).toMatch(
      /hooks \(hooks scoped to the command do not run\): Claude Code field ubiquity does not apply/,
    );
    expect(reports.find((r) => r.includes("fork.md"))).toMatch(/context \(.*\), agent \(.*\): Claude Code fields/);
  });

  it("a command without them is loaded without a word", async () => {
    const root = join(scratch(), "commands");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "plain.md"), "---\ndescription: d\nallowed-tools: Read\n---\nbody\n");
    const reports: string[] = [];
    await loadCommands([{ path: root, source: "project", claude: true }], (m) => reports.push(m));
    expect(reports).toEqual([]);
  });

  it("`ubiquity run --compat claude /plan_w_team …` warns that the command's hooks do not run, and runs it", async () => {
    const dir = tempProject(
      { "ubiquity.config.mjs": CONFIG, ".claude/commands/plan_w_team.md": COMMAND_WITH_HOOKS },
      { linkUbiquity: true },
    );
    const home = join(dir, "home");
    mkdirSync(home);
    const out = await runCli(["run", "--compat", "claude", "-p", "/plan_w_team a todo app"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("done");
    expect(out.stderr).toMatch(/plan_w_team\.md: hooks \(hooks scoped to the command do not run\)/);
  });
});

describe("claude-code-best-practice's settings.json: the MessageDisplay event", () => {
  const settings = join(FIXTURES, "claude-code-best-practice/.claude/settings.json");

  it("is noted as a Claude Code event ubiquity does not fire, not reported as an unknown name; the file's other hooks apply", () => {
    const data = JSON.parse(readFileSync(settings, "utf8")) as { hooks: Record<string, unknown> };
    const reports: string[] = [];
    const notes: [string, string][] = [];
    const hooks = readFileHooks(
      data.hooks,
      (m) => reports.push(m),
      "project",
      (e, m) => notes.push([e, m]),
    );
    expect(reports.filter((r) => r.includes("MessageDisplay"))).toEqual([]);
    const note = notes.find(([event]) => event === "MessageDisplay");
    expect(note?.[1]).toMatch(/Claude Code hook event "MessageDisplay" is not fired by ubiquity \(.+\)/);
    expect(Object.keys(hooks)).toContain("PreToolUse");
  });

  it("a run with the file warns once, naming the event as Claude Code's", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    cpSync(join(FIXTURES, "claude-code-best-practice/.claude"), join(dir, ".claude"), { recursive: true });
    const home = join(dir, "home");
    mkdirSync(home);
    // The file's hooks call a script the fixture does not carry: they fail, which is beside the point here.
    const out = await runCli(["run", "--compat", "claude", "--no-sandbox", "-p", "hello"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/Claude Code hook event "MessageDisplay" is not fired by ubiquity/);
    expect(out.stderr).not.toMatch(/"MessageDisplay" is not one ubiquity fires/);
  });
});

// The shape of Anthropic's security-guidance plugin (claude-plugins-official, plugins/security-guidance):
// a hook script that imports a module next to it (`from _base import …`), run as
// `python3 "${CLAUDE_PLUGIN_ROOT}/hooks/x.py"`. Written here, not copied: the test needs the shape, not
// the plugin's code (which calls a model). Python puts a script's own folder on its import path; the
// hooks' PYTHONSAFEPATH=1 took it off, the import failed (exit 1: a non-blocking error) and the guard
// let everything through.
const GUARD = [
  "import json, sys",
  "from _base import REASON",
  "call = json.load(sys.stdin)",
  "if 'touch' in call['tool_input'].get('command', ''):",
  "    print(REASON, file=sys.stderr)",
  "    sys.exit(2)",
  "",
].join("\n");
const BASE = 'REASON = "blocked by the guard next to _base.py"\n';

describe("a Python hook script that imports the modules next to it", () => {
  const touch = { toolCalls: [{ toolName: "Bash", input: { command: "touch marker" } }] };

  async function runTouch(dir: string, args: string[]) {
    const home = join(dir, "home");
    mkdirSync(home, { recursive: true });
    const log = join(dir, "model.log");
    writeFileSync(log, "");
    const out = await runCli(["run", "--permission-mode", "bypassPermissions", ...args, "-p", "touch it"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_STEPS: JSON.stringify([touch]),
      UBQ_LOG: log,
    });
    return { ...out, prompts: readFileSync(log, "utf8") };
  }

  it('a plugin\'s hook (`python3 "${CLAUDE_PLUGIN_ROOT}/hooks/guard.py"`) imports its _base.py and blocks the call, in the sandbox', async () => {
    const plugin = join(scratch(), "guard-plugin");
    mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
    mkdirSync(join(plugin, "hooks"));
    writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "guard-plugin" }));
    writeFileSync(join(plugin, "hooks", "guard.py"), GUARD);
    writeFileSync(join(plugin, "hooks", "_base.py"), BASE);
    const command = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/guard.py"';
    writeFileSync(
      join(plugin, "hooks", "hooks.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] } }),
    );
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    const out = await runTouch(dir, ["--plugin-dir", plugin]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toMatch(/No module named '_base'/);
    expect(existsSync(join(dir, "marker"))).toBe(false);
    expect(out.prompts).toContain("blocked by the guard next to _base.py");
  });

  it("a project's hook in .claude/hooks imports its sibling too (`python3 $CLAUDE_PROJECT_DIR/.claude/hooks/guard.py`)", async () => {
    const settings = {
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: "python3 $CLAUDE_PROJECT_DIR/.claude/hooks/guard.py" }],
          },
        ],
      },
    };
    const dir = tempProject(
      {
        "ubiquity.config.mjs": CONFIG,
        ".claude/settings.json": JSON.stringify(settings),
        ".claude/hooks/guard.py": GUARD,
        ".claude/hooks/_base.py": BASE,
      },
      { linkUbiquity: true },
    );
    const out = await runTouch(dir, ["--compat", "claude"]);
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(join(dir, "marker"))).toBe(false);
    expect(out.prompts).toContain("blocked by the guard next to _base.py");
  });

  it("fail closed: a script in a folder sandboxed commands may write (the project's top) still imports nothing from it", async () => {
    const settings = {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "python3 guard.py" }] }] },
    };
    const dir = tempProject(
      {
        "ubiquity.config.mjs": CONFIG,
        ".claude/settings.json": JSON.stringify(settings),
        "guard.py": GUARD,
        "_base.py": BASE,
      },
      { linkUbiquity: true },
    );
    const out = await runTouch(dir, ["--compat", "claude"]);
    // As before: the import fails (a non-blocking hook error, said), the folder stays off the path.
    expect(out.stderr).toMatch(/No module named '_base'/);
  });
});

describe("a Python MCP server that imports the modules next to it", () => {
  // A stdio server whose import of its sibling leaves a mark in the folder it runs in (the
  // project): the import is all this needs to show, the server may then end.
  const SERVER = "import _helper\n";
  const HELPER = 'import os\nopen(os.path.join(os.getcwd(), "MARK"), "w").write("imported")\n';

  async function start(dir: string) {
    const home = join(dir, "home");
    mkdirSync(home, { recursive: true });
    return runCli(["run", "-p", "hi"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_STEPS: JSON.stringify(["done"]),
      UBQ_LOG: join(dir, "model.log"),
    });
  }

  it("a server in .claude/ (read-only to sandboxed commands) imports its sibling, as Python does outside ubiquity", async () => {
    const dir = tempProject(
      {
        "ubiquity.config.mjs": CONFIG,
        ".mcp.json": JSON.stringify({ mcpServers: { srv: { command: "python3", args: [".claude/mcp/server.py"] } } }),
        ".claude/mcp/server.py": SERVER,
        ".claude/mcp/_helper.py": HELPER,
      },
      { linkUbiquity: true },
    );
    const out = await start(dir);
    expect(out.stderr).not.toMatch(/No module named '_helper'/);
    expect(readFileSync(join(dir, "MARK"), "utf8")).toBe("imported");
  });

  it("fail closed: a server at the project's top (which sandboxed commands write) imports nothing from it", async () => {
    const dir = tempProject(
      {
        "ubiquity.config.mjs": CONFIG,
        ".mcp.json": JSON.stringify({ mcpServers: { srv: { command: "python3", args: ["server.py"] } } }),
        "server.py": SERVER,
        "_helper.py": HELPER,
      },
      { linkUbiquity: true },
    );
    await start(dir);
    expect(existsSync(join(dir, "MARK"))).toBe(false);
  });
});

describe("a settings file's env variables that configure Claude Code itself", () => {
  it("humanlayer's MAX_THINKING_TOKENS is named with the option that does it here, and still passed to commands", () => {
    const reports: string[] = [];
    const file = join(FIXTURES, "humanlayer/.claude/settings.json");
    const read = readClaudeSettingsFile(file, (m) => reports.push(m), scratch(), scratch());
    expect(read?.env).toEqual({ MAX_THINKING_TOKENS: "32000" });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(
      /env\.MAX_THINKING_TOKENS \(Claude Code reads it, ubiquity does not: set maxThinkingTokens\)/,
    );
    expect(read?.permissions?.allow).toHaveLength(3);
  });

  it("claude-code-settings' proxy (ANTHROPIC_BASE_URL, _AUTH_TOKEN, _MODEL) is named: the provider is never a settings file's to set; telemetry opt-outs are not", () => {
    const reports: string[] = [];
    readClaudeSettingsFile(join(FIXTURES, "claude-code-settings/settings.json"), (m) => reports.push(m), scratch());
    expect(reports).toHaveLength(1);
    const [report] = reports;
    expect(report).toMatch(
      /env\.ANTHROPIC_BASE_URL, env\.ANTHROPIC_AUTH_TOKEN \(Claude Code reads them, ubiquity does not: the provider is set by your shell's environment or providerSettings/,
    );
    expect(report).toMatch(/env\.ANTHROPIC_MODEL, env\.ANTHROPIC_SMALL_FAST_MODEL \(.*pass --model/);
    expect(report).toMatch(/env\.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC \(Claude Code's own switch/);
    expect(report).not.toMatch(/DISABLE_TELEMETRY/);
  });

  it("a run with the proxy file as ~/.claude/settings.json warns, naming ANTHROPIC_BASE_URL and providerSettings", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    const home = join(dir, "home");
    mkdirSync(join(home, ".claude"), { recursive: true });
    cpSync(join(FIXTURES, "claude-code-settings/settings.json"), join(home, ".claude", "settings.json"));
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(
      /env\.ANTHROPIC_BASE_URL, env\.ANTHROPIC_AUTH_TOKEN \(Claude Code reads them, ubiquity does not/,
    );
    expect(out.stderr).toMatch(/providerSettings/);
  });
});

describe('a command hook\'s `shell` (Claude Code: "bash" or "powershell")', () => {
  const hook = (extra: Record<string, unknown>) => ({
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo ok", ...extra }] }],
  });

  it('"bash" (claude-mem writes it on every hook) runs as before, without a word', () => {
    const reports: string[] = [];
    const hooks = readFileHooks(hook({ shell: "bash" }), (m) => reports.push(m));
    expect(reports).toEqual([]);
    expect(hooks.PreToolUse?.[0]?.hooks).toHaveLength(1);
  });

  it('"powershell" is named in a warning, and the hook still runs with bash (as before: skipping a guard would loosen)', () => {
    const reports: string[] = [];
    const hooks = readFileHooks(hook({ shell: "powershell" }), (m) => reports.push(m));
    expect(hooks.PreToolUse?.[0]?.hooks).toHaveLength(1);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(
      /hooks\.PreToolUse\[0\]\.hooks\[0\]: its "shell" "powershell" is not read: ubiquity runs hook commands with bash/,
    );
  });

  it("in exec form (`args`) the shell is not used, as in Claude Code: the hook loads", () => {
    const reports: string[] = [];
    const hooks = readFileHooks(hook({ shell: "powershell", args: ["x"] }), (m) => reports.push(m));
    expect(reports).toEqual([]);
    expect(hooks.PreToolUse?.[0]?.hooks).toHaveLength(1);
  });
});
