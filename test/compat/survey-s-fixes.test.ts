/**
 * What the third compat survey (docs/guide/compat-survey.md, "Round s") found ubiquity misreading in
 * real Claude Code files, run through the built bin with a scripted model in a temp project with its
 * own HOME, and through the hooks plugin in process. Fixtures: test/fixtures/compat/survey-s/
 * (SOURCE.md names each file's repository, commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "../../plugins/hooks/index";
import agentsPlugin from "../../plugins/agents/index";
import modelPlugin from "ubiquity/plugins/model";
import { keepTool } from "../../plugins/agents/narrow";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { readClaudePlugin } from "../../plugins/_kits/sources/index";
import { defineTool } from "ubiquity";
import { z } from "zod";
import { recordedBash } from "../helpers/recorded-bash";
import { collect, ofType } from "../helpers/collect";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/survey-s/", import.meta.url));

let dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "ubq-survey-s-"));
  dirs.push(dir);
  return dir;
};

beforeAll(() => requireDist());
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
  removeTempProjects();
});

const hasJq = (() => {
  try {
    execFileSync("jq", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("a hook that reads its input from /dev/stdin (Claude Code's documented `jq … < /dev/stdin`)", () => {
  // Node hands a child its stdin as a socket, which `< /dev/stdin` cannot open (ENXIO): the hook read
  // nothing, found nothing to block, exited 0, and the call ran.
  it("gets the input: a script that blocks `rm` reading `cat /dev/stdin` blocks it (no jq needed)", async () => {
    const dir = scratch();
    const guard = join(dir, "guard.sh");
    writeFileSync(
      guard,
      [
        "#!/bin/bash",
        "input=$(cat /dev/stdin)",
        'case "$input" in *\'"command":"rm \'*) echo "no rm here" >&2; exit 2;; esac',
        "exit 0",
        "",
      ].join("\n"),
    );
    chmodSync(guard, 0o755);
    const { tool: shell, ran } = recordedBash();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "rm -rf build" }, id: "c0" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        tools: [shell],
        cwd: dir,
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] },
      }),
    );
    expect(ran).toEqual([]);
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({ content: "no rm here", isError: true });
  });

  it("the hook still gets its input on a plain `cat` (stdin read directly), `read` sees the end of it, and the input's file is gone before the hook runs", async () => {
    const dir = scratch();
    const seen = join(dir, "seen.json");
    const { tool: shell } = recordedBash();
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "ls" }, id: "c0" }] }, "done"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        tools: [shell],
        cwd: dir,
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                {
                  type: "command",
                  command: `readlink /proc/self/fd/0 > ${JSON.stringify(seen)}.fd; cat > ${JSON.stringify(seen)}; read -r x || echo eof >> ${JSON.stringify(seen)}.end`,
                },
              ],
            },
          ],
        },
      }),
    );
    expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({ tool_name: "Bash", tool_input: { command: "ls" } });
    expect(readFileSync(`${seen}.end`, "utf8").trim()).toBe("eof");
    // A file no name leads to any more (unlinked before the hook started), not a socket.
    expect(readFileSync(`${seen}.fd`, "utf8").trim()).toMatch(/\/ubq-hook-[^/]+\/input\.json \(deleted\)$/);
  });

  it.runIf(hasJq)(
    "beads' .claude/settings.json: its block-gh-watch.sh denies `gh run watch` through the bin, in the sandbox, even pre-approved",
    async () => {
      const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
      cpSync(join(FIXTURES, "beads/.claude"), join(dir, ".claude"), { recursive: true });
      const home = join(dir, "home");
      mkdirSync(home);
      const log = join(dir, "model.log");
      writeFileSync(log, "");
      const watch = { toolCalls: [{ toolName: "Bash", input: { command: "gh run watch 123 > watched.txt" } }] };
      const out = await runCli(
        ["run", "--compat", "claude", "--allowedTools", "Bash(gh:*)", "-p", "watch the run"],
        dir,
        {
          HOME: home,
          UBQ_SESSIONS: join(dir, "sessions"),
          UBQ_STEPS: JSON.stringify([watch]),
          UBQ_LOG: log,
        },
      );
      expect(out.code, out.stderr).toBe(0);
      const prompts = readFileSync(log, "utf8");
      expect(prompts).toContain("BLOCKED: gh run watch polls every 3s");
      expect(existsSync(join(dir, "watched.txt"))).toBe(false);
    },
  );

  it.runIf(hasJq)("beads' block-interactive-cmds.sh denies `rm` without -f, and lets `rm -f` through", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    cpSync(join(FIXTURES, "beads/.claude"), join(dir, ".claude"), { recursive: true });
    writeFileSync(join(dir, "a.txt"), "a");
    writeFileSync(join(dir, "b.txt"), "b");
    const home = join(dir, "home");
    mkdirSync(home);
    const log = join(dir, "model.log");
    writeFileSync(log, "");
    const calls = [
      { toolCalls: [{ toolName: "Bash", input: { command: "rm a.txt" } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "rm -f b.txt" } }] },
    ];
    const out = await runCli(["run", "--compat", "claude", "--allowedTools", "Bash(rm:*)", "-p", "clean up"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_STEPS: JSON.stringify(calls),
      UBQ_LOG: log,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(readFileSync(log, "utf8")).toContain("BLOCKED: `rm` without `-f` flag");
    expect(existsSync(join(dir, "a.txt"))).toBe(true);
    expect(existsSync(join(dir, "b.txt"))).toBe(false);
  });
});

describe("an agent's `tools: …, mcp__context7__*` (get-shit-done's gsd-phase-researcher)", () => {
  // Claude Code takes `mcp__<server>__*` (and `mcp__<server>`) in an agent's tools as every tool of that
  // server; ubiquity matched names exactly, so the agent was given none of them, without a word.
  const fake = (name: string) =>
    defineTool({
      name,
      description: `the ${name} tool`,
      inputSchema: z.object({}),
      execute: async () => `${name} ran`,
    });

  async function toolsOfSubagent(agentFile: string, extraTools: string[]) {
    const cwd = scratch();
    mkdirSync(join(cwd, ".claude", "agents"), { recursive: true });
    cpSync(agentFile, join(cwd, ".claude", "agents", "agent.md"));
    const seen: string[][] = [];
    const model = scriptedModel(({ request }) => {
      const system = request.prompt
        .filter((m) => m.role === "system")
        .map((m) => String(m.content))
        .join("\n");
      if (system.includes("You are a subagent")) {
        seen.push((request.tools ?? []).map((t) => t.name));
        return "researched";
      }
      if (request.prompt.at(-1)?.role === "tool") return "done";
      return {
        toolCalls: [
          { toolName: "Agent", input: { subagent_type: "gsd-phase-researcher", description: "r", prompt: "go" } },
        ],
      };
    });
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [modelPlugin(), agentsPlugin()],
        model,
        cwd,
        compat: ["claude"],
        agentSources: ["project"],
        tools: extraTools.map(fake),
      }),
    );
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("researched");
    return seen[0]!;
  }

  it("the subagent gets the context7 server's tools, and no other server's", async () => {
    const tools = await toolsOfSubagent(join(FIXTURES, "get-shit-done/agents/gsd-phase-researcher.md"), [
      "mcp__context7__resolve-library-id",
      "mcp__context7__get-library-docs",
      "mcp__github__create_issue",
    ]);
    expect(tools).toContain("mcp__context7__resolve-library-id");
    expect(tools).toContain("mcp__context7__get-library-docs");
    expect(tools).not.toContain("mcp__github__create_issue");
  });

  it("`mcp__server` and `mcp__server__*` name a whole server in tools and in disallowedTools; nothing else is a pattern", () => {
    const def = (tools?: string[], disallowedTools?: string[]) =>
      ({ description: "d", prompt: "p", tools, disallowedTools }) as Parameters<typeof keepTool>[2];
    expect(keepTool("mcp__ctx__a", undefined, def(["mcp__ctx"]))).toBe(true);
    expect(keepTool("mcp__ctx__a", undefined, def(["mcp__ctx__*"]))).toBe(true);
    expect(keepTool("mcp__ctx2__a", undefined, def(["mcp__ctx__*"]))).toBe(false);
    expect(keepTool("mcp__ctx__a", undefined, def(["mcp__*__a"]))).toBe(false);
    expect(keepTool("mcp__ctx__a", undefined, def(["mcp__c*"]))).toBe(false);
    // A denial of a whole server takes all of its tools away (it took none before).
    expect(keepTool("mcp__github__create_issue", undefined, def(undefined, ["mcp__github__*"]))).toBe(false);
    expect(keepTool("mcp__github__create_issue", undefined, def(undefined, ["mcp__github"]))).toBe(false);
    expect(keepTool("mcp__gitlab__x", undefined, def(undefined, ["mcp__github"]))).toBe(true);
    // Never more than the parent has.
    expect(keepTool("mcp__ctx__a", new Set(["Read"]), def(["mcp__ctx__*"]))).toBe(false);
  });
});

describe("Notification hooks for `idle_prompt` (macalinao's settings.json, claude-pager's hooks.json)", () => {
  // Claude Code sends idle_prompt when a prompt has waited for input; ubiquity never does: such a hook
  // never ran, without a word.
  function notesOf(hooks: unknown) {
    const reports: string[] = [];
    const notes: [string, string][] = [];
    const read = readFileHooks(
      hooks,
      (m) => reports.push(m),
      "project",
      (e, m) => notes.push([e, m]),
    );
    return { read, reports, notes };
  }

  it("macalinao: the idle_prompt group is noted as never running; the permission_prompt group is kept without a word", () => {
    const settings = JSON.parse(
      readFileSync(join(FIXTURES, "macalinao-dotfiles/config/claude/settings.json"), "utf8"),
    ) as { hooks: unknown };
    const { read, reports, notes } = notesOf(settings.hooks);
    expect(reports).toEqual([]);
    expect(notes).toHaveLength(1);
    expect(notes[0]![1]).toMatch(
      /Notification hooks for "idle_prompt" never run: ubiquity never sends Claude Code's idle_prompt notification/,
    );
    expect(read.Notification?.map((g) => g.matcher)).toEqual(["idle_prompt", "permission_prompt"]);
  });

  it("claude-pager: its idle_prompt group is noted; its PermissionRequest, Stop and TaskCompleted hooks load", () => {
    const file = JSON.parse(readFileSync(join(FIXTURES, "claude-pager/hooks/hooks.json"), "utf8")) as {
      hooks: unknown;
    };
    const { read, notes } = notesOf(file.hooks);
    expect(notes.map(([, m]) => m).join("\n")).toMatch(/"idle_prompt" never run/);
    expect(Object.keys(read).sort()).toEqual(["Notification", "PermissionRequest", "Stop", "TaskCompleted"]);
  });

  it("a matcher that also selects a notification ubiquity sends is not noted", () => {
    for (const matcher of ["", "*", "permission_prompt|idle_prompt", ".*_prompt"])
      expect(notesOf({ Notification: [{ matcher, hooks: [{ type: "command", command: "true" }] }] }).notes).toEqual([]);
  });

  it("a run with macalinao's settings.json says so once", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    mkdirSync(join(dir, ".claude"));
    cpSync(join(FIXTURES, "macalinao-dotfiles/config/claude/settings.json"), join(dir, ".claude", "settings.json"));
    const home = join(dir, "home");
    mkdirSync(home);
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr.match(/never sends Claude Code's idle_prompt notification/g)).toHaveLength(1);
  });
});

describe("a plugin's userConfig (claude-pager's plugin.json)", () => {
  it("is named as not asked for, with its keys; the plugin still loads", () => {
    const reports: string[] = [];
    const plugin = readClaudePlugin(join(FIXTURES, "claude-pager"), (m) => reports.push(m));
    expect(plugin?.name).toBe("claude-pager");
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/userConfig options \(idle_enabled, permission_enabled, completion_enabled, idle_sound/);
    expect(reports[0]).toMatch(/CLAUDE_PLUGIN_OPTION_\*/);
  });
});
