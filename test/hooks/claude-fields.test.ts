/**
 * Hooks as Claude Code's docs describe them: `transcript_path` of the real transcript,
 * `CLAUDE_PROJECT_DIR`, matchers on events without a tool (SessionStart's source, Notification's
 * type, PreCompact's trigger, a subagent's type), and the handler's `if` (permission-rule syntax,
 * failing safe: a guard runs whenever the filter cannot be sure the call does not match).
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { recordedBash } from "../helpers/recorded-bash";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import sessionsPlugin from "ubiquity/plugins/sessions";
import permissionsPlugin from "ubiquity/plugins/permissions";
import { compileIf } from "../../plugins/hooks/if-filter";
import { matches, matchTarget } from "../../plugins/hooks/matcher";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { tempDirs } from "../helpers/temp-dirs";
import { collect, ofType } from "../helpers/collect";

const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-claude-hooks-"));

const { tool: shell, ran } = recordedBash();

function run(cwd: string, options: Options, commands: string[] = ["ls"], plugins = [hooksPlugin()]) {
  ran.length = 0;
  const model = scriptedModel([
    { toolCalls: commands.map((command, i) => ({ toolName: "Bash", input: { command }, id: `c${i}` })) },
    "done",
  ]);
  return collect(summon("go", { presets: [], plugins, model, tools: [shell], cwd, ...options }));
}

/** A command hook that appends its stdin and two variables to `log` (one JSON line). */
const recorder = (log: string) => ({
  type: "command" as const,
  command: `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").appendFileSync(process.argv[1], JSON.stringify({input: JSON.parse(s), projectDir: process.env.CLAUDE_PROJECT_DIR})+"\\n"))' ${JSON.stringify(log)}`,
});
const lines = (log: string) =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { input: Record<string, unknown>; projectDir?: string })
    : [];

describe("hook input fields and variables", () => {
  it("transcript_path is the session's real transcript; CLAUDE_PROJECT_DIR the project", async () => {
    const cwd = temp();
    const sessions = temp();
    const log = join(cwd, "hook.log");
    const messages = await run(
      cwd,
      { sessionDir: sessions, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [recorder(log)] }] } },
      ["ls"],
      [sessionsPlugin(), hooksPlugin()],
    );
    const [seen] = lines(log);
    expect(seen).toBeDefined();
    const transcript = seen!.input.transcript_path as string;
    expect(typeof transcript).toBe("string");
    expect(transcript.startsWith(sessions)).toBe(true);
    const sessionId = messages[0]!.sessionId;
    expect(readFileSync(transcript, "utf8")).toContain(sessionId);
    expect(seen!.projectDir).toBe(cwd);
    expect(seen!.input.cwd).toBe(cwd);
  });
});

describe("matchers on events without a tool", () => {
  it("SessionStart `startup|clear|compact` fires on a fresh run; `resume` does not", async () => {
    const cwd = temp();
    const startLog = join(cwd, "start.log");
    const resumeLog = join(cwd, "resume.log");
    await run(cwd, {
      hooks: {
        SessionStart: [
          { matcher: "startup|clear|compact", hooks: [recorder(startLog)] },
          { matcher: "resume", hooks: [recorder(resumeLog)] },
        ],
      },
    });
    expect(lines(startLog).map((l) => l.input.source)).toEqual(["startup"]);
    expect(lines(resumeLog)).toEqual([]);
  });

  // Public settings write the whole matcher as one regular expression (`^(startup|resume|clear|compact)$`,
  // 10 of the files the compat survey found); split at `|` its first and last parts were broken regexes.
  it("SessionStart `^(startup|resume|clear|compact)$` is one regular expression: it fires on a fresh run", async () => {
    const cwd = temp();
    const log = join(cwd, "start.log");
    await run(cwd, {
      hooks: { SessionStart: [{ matcher: "^(startup|resume|clear|compact)$", hooks: [recorder(log)] }] },
    });
    expect(lines(log).map((l) => l.input.source)).toEqual(["startup"]);
  });

  it("a matcher with other characters than letters, digits, _ and | is read whole and unanchored, as Claude Code reads it", () => {
    // An alternation inside a group (`mcp__(github|slack)__.*`) and a prefix (`…serena__`), from public settings.
    expect(matches("mcp__(github|slack)__.*", "mcp__slack__post_message")).toBe(true);
    expect(matches("mcp__(github|slack)__.*", "mcp__gitlab__push")).toBe(false);
    const lsp = "mcp__(?:plugin_[^_]+_)?cclsp__|mcp__(?:plugin_[^_]+_)?serena__";
    expect(matches(lsp, "mcp__serena__find_symbol")).toBe(true);
    expect(matches(lsp, "mcp__plugin_kit_cclsp__find_definition")).toBe(true);
    expect(matches(lsp, "mcp__github__push")).toBe(false);
    expect(matches("^claude-security:claude-security$", "claude-security:claude-security")).toBe(true);
    // Letters, digits, _ and | only: exact names, never a prefix.
    expect(matches("Edit|Write", "Edit")).toBe(true);
    expect(matches("Edit|Write", "EditNotebook")).toBe(false);
    expect(matches("Bash", "BashOutput")).toBe(false);
    // Our own glob spelling still selects what it did.
    expect(matches("mcp__github__*", "mcp__github__push")).toBe(true);
  });

  it("Notification `permission_prompt` fires when a call needs approval, with notification_type", async () => {
    const cwd = temp();
    const log = join(cwd, "notify.log");
    const other = join(cwd, "other.log");
    await run(
      cwd,
      {
        hooks: {
          Notification: [
            { matcher: "permission_prompt", hooks: [recorder(log)] },
            { matcher: "idle_prompt", hooks: [recorder(other)] },
          ],
        },
      },
      ["rm -rf build"],
      [permissionsPlugin(), hooksPlugin()],
    );
    expect(lines(log).map((l) => l.input.notification_type)).toEqual(["permission_prompt"]);
    expect(lines(other)).toEqual([]);
  });

  it("what each event's matcher is matched against", () => {
    const extra = { source: "compact", trigger: "manual", notificationType: "idle_prompt", reason: "clear" };
    expect(matchTarget({ hookEventName: "SessionStart", extra })).toBe("compact");
    expect(matchTarget({ hookEventName: "PreCompact", extra })).toBe("manual");
    expect(matchTarget({ hookEventName: "Notification", extra })).toBe("idle_prompt");
    expect(matchTarget({ hookEventName: "SubagentStop", agentType: "code-reviewer", extra })).toBe("code-reviewer");
    expect(matchTarget({ hookEventName: "SessionEnd", extra })).toBe("clear");
    expect(matchTarget({ hookEventName: "PreToolUse", toolName: "Bash", extra })).toBe("Bash");
    expect(matchTarget({ hookEventName: "Stop", extra })).toBeNull();
  });
});

describe("the `if` field", () => {
  const guard = {
    type: "command" as const,
    command: `echo "blocked by the if-guarded hook" >&2; exit 2`,
    if: "Bash(rm *)",
  };

  it("runs the hook only for calls the rule matches", async () => {
    const cwd = temp();
    const messages = await run(cwd, { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard] }] } }, [
      "ls -la",
      "rm -rf build",
      "git status && rm -rf dist",
    ]);
    const results = ofType(messages, "tool_result");
    expect(results.map((r) => r.output.isError)).toEqual([false, true, true]);
    expect(ran).toEqual(["ls -la"]);
  });

  it("fails safe: a command it cannot read runs the hook", () => {
    const filter = compileIf("Bash(rm *)");
    if (typeof filter === "string") throw new Error(filter);
    const input = (command: string) => ({
      hookEventName: "PreToolUse" as const,
      sessionId: "s",
      cwd: "/p",
      permissionMode: "default",
      toolName: "Bash",
      toolInput: { command },
      extra: {},
    });
    expect(filter(input("ls"))).toBe(false);
    expect(filter(input("git push"))).toBe(false);
    for (const command of [
      "rm -rf x",
      "sudo rm -rf x",
      "FOO=1 rm x",
      "bash -c 'rm -rf x'",
      "echo $(rm -rf x)",
      "xargs rm < list",
      "/bin/rm -rf x",
      "ls; rm x",
    ])
      expect(filter(input(command))).toBe(true);
    const other = compileIf("Edit(src/**)");
    if (typeof other === "string") throw new Error(other);
    const edit = (file_path: string) => ({
      hookEventName: "PreToolUse" as const,
      sessionId: "s",
      cwd: "/p",
      permissionMode: "default",
      toolName: "Edit",
      toolInput: { file_path },
      extra: {},
    });
    expect(other(edit("/p/src/a/b.ts"))).toBe(true);
    expect(other(edit("/p/docs/a.md"))).toBe(false);
    // The edit tools are one family, as for permission rules (red team g, G6): a Write there is guarded too.
    expect(other({ ...edit("/p/src/a.ts"), toolName: "Write" })).toBe(true);
    expect(other({ ...edit("/p/docs/a.md"), toolName: "Write" })).toBe(false);
    expect(other({ ...edit("/p/src/a.ts"), toolName: "Read" })).toBe(false);
  });

  it("an `if` that is not a rule is reported, and the hook then runs for every call", () => {
    const reports: string[] = [];
    const hooks = readFileHooks(
      { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh", if: "Bash(" }] }] },
      (m) => reports.push(m),
    );
    expect(hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }] }]);
    expect(reports[0]).toContain('its "if" is not a permission rule');
  });
});
