import { afterAll, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summon, type Options } from "ubiquity";
import { recordedBash } from "../helpers/recorded-bash";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "../../plugins/hooks/index";
import { commandPayload, parseCommandOutput } from "../../plugins/hooks/command";
import settingsPlugin from "ubiquity/plugins/settings";
import permissionsPlugin from "ubiquity/plugins/permissions";
import { collect, ofType, resultOf } from "../helpers/collect";

const dir = mkdtempSync(join(tmpdir(), "ubq-cmdhooks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

// The hook scripts are the real parts under test; this tool only records what it was asked to run.
const { tool: shell, ran } = recordedBash();

function run(options: Options, calls: string[]) {
  const model = scriptedModel([
    { toolCalls: calls.map((command, i) => ({ toolName: "Bash", input: { command }, id: `c${i}` })) },
    "done",
  ]);
  return collect(summon("go", { presets: [], plugins: [hooksPlugin()], model, tools: [shell], cwd: dir, ...options }));
}

describe("shell-command hooks (Claude Code compatible)", () => {
  it("a script that blocks rm with exit code 2 and stderr as the reason", async () => {
    ran.length = 0;
    const guard = script(
      "no-rm.sh",
      `input=$(cat)
cmd=$(printf '%s' "$input" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);process.stdout.write(j.tool_input.command+"|"+j.hook_event_name+"|"+j.tool_name+"|"+j.session_id)})')
echo "$cmd" >> "${dir}/seen.log"
case "$cmd" in rm\\ *) echo "rm is not allowed in this repo" >&2; exit 2;; esac
exit 0`,
    );
    const messages = await run(
      { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } },
      ["ls -la", "rm -rf build"],
    );
    expect(ran).toEqual(["ls -la"]);
    const results = ofType(messages, "tool_result");
    expect(results[0]!.output).toMatchObject({ content: "ran: ls -la", isError: false });
    expect(results[1]!.output).toMatchObject({ content: "rm is not allowed in this repo", isError: true });
    const seen = readFileSync(join(dir, "seen.log"), "utf8").trim().split("\n");
    expect(seen[0]).toBe(`ls -la|PreToolUse|Bash|${messages[0]!.sessionId}`);
    expect(resultOf(messages).isError).toBe(false);
  });

  it("a script that rewrites the input through JSON on stdout", async () => {
    ran.length = 0;
    const rewrite = script(
      "rewrite.sh",
      `cat > /dev/null
printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"git status --short"}}}'`,
    );
    const messages = await run(
      { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: rewrite }] }] } },
      ["git status"],
    );
    expect(ran).toEqual(["git status --short"]);
    expect(ofType(messages, "tool_use")[0]!.toolInput).toEqual({ command: "git status --short" });
  });

  it("a script that times out is killed, logged, and does not block", async () => {
    ran.length = 0;
    const pidFile = join(dir, "slow.pid");
    const slow = script("slow.sh", `echo $$ > "${pidFile}"\nsleep 30\necho '{"decision":"block","reason":"too late"}'`);
    const warnings: string[] = [];
    const messages = await run(
      {
        logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) },
        hooks: { PreToolUse: [{ hooks: [{ type: "command", command: slow, timeout: 1 }] }] },
      },
      ["echo hi"],
    );
    expect(ran).toEqual(["echo hi"]);
    expect(warnings.join("\n")).toMatch(/timed out after 1s and was killed/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(() => process.kill(pid, 0)).toThrow();
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(resultOf(messages).isError).toBe(false);
  });

  it("other exit codes are logged, non-blocking errors; plain stdout becomes prompt context", async () => {
    ran.length = 0;
    const broken = script("broken.sh", `cat >/dev/null; echo "oops" >&2; exit 1`);
    const context = script("context.sh", `cat >/dev/null; echo "The build is red; fix tests first."`);
    const warnings: string[] = [];
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "make" } }] }, "done"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin()],
        model,
        tools: [shell],
        cwd: dir,
        logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) },
        hooks: {
          PreToolUse: [{ hooks: [{ type: "command", command: broken }] }],
          UserPromptSubmit: [{ hooks: [{ type: "command", command: context }] }],
        },
      }),
    );
    expect(ran).toEqual(["make"]);
    expect(warnings.join("\n")).toMatch(/failed \(exit 1\): oops/);
    const user = model.requests[0]!.prompt.find((m) => m.role === "user")!;
    expect(user.content.map((p) => (p.type === "text" ? p.text : ""))).toEqual([
      "The build is red; fix tests first.",
      "go",
    ]);
  });

  it("speaks Claude Code's field names both ways", () => {
    const payload = commandPayload({
      hookEventName: "PostToolUse",
      sessionId: "s1",
      cwd: "/w",
      permissionMode: "default",
      toolName: "Edit",
      toolInput: { file_path: "a" },
      toolUseId: "t1",
      toolOutput: "done",
      extra: { stopHookActive: true },
    });
    expect(payload).toEqual({
      session_id: "s1",
      cwd: "/w",
      permission_mode: "default",
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: { file_path: "a" },
      tool_use_id: "t1",
      tool_response: "done",
      stop_hook_active: true,
    });
    expect(
      parseCommandOutput({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "nope" } }),
    ).toEqual({ decision: "block", reason: "nope" });
    expect(parseCommandOutput({ continue: false, stopReason: "halt" })).toEqual({ continue: false, reason: "halt" });
    expect(parseCommandOutput({ hookSpecificOutput: { permissionDecision: "ask" } })).toEqual({ ask: true });
    expect(parseCommandOutput({ hookSpecificOutput: { additionalContext: "ctx" }, systemMessage: "hi" })).toEqual({
      additionalContext: "ctx",
      systemMessage: "hi",
    });
  });
});

describe("command hooks from settings files", () => {
  function projectWithSettings(hooksValue: unknown) {
    const project = mkdtempSync(join(tmpdir(), "ubq-settings-hooks-"));
    const guard = join(project, "guard.sh");
    writeFileSync(
      guard,
      `#!/usr/bin/env bash\ncat >/dev/null\necho "blocked by the project's settings hook" >&2\nexit 2\n`,
    );
    chmodSync(guard, 0o755);
    mkdirSync(join(project, ".ubiquity"));
    writeFileSync(
      join(project, ".ubiquity", "settings.json"),
      JSON.stringify({
        hooks:
          hooksValue === "guard"
            ? { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] }
            : hooksValue,
      }),
    );
    return project;
  }

  async function runIn(project: string, options: Options) {
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "make" } }] }, "done"]);
    return collect(
      summon("go", {
        presets: [],
        plugins: [settingsPlugin(), hooksPlugin()],
        model,
        tools: [shell],
        cwd: project,
        ...options,
      }),
    );
  }

  it("run only from the settings sources the caller enabled", async () => {
    const project = projectWithSettings("guard");
    ran.length = 0;
    const enabled = await runIn(project, { settingSources: ["project"] });
    expect(ofType(enabled, "tool_result")[0]!.output).toMatchObject({
      content: "blocked by the project's settings hook",
      isError: true,
    });
    expect(ran).toEqual([]);
    const notEnabled = await runIn(project, {});
    expect(ofType(notEnabled, "tool_result")[0]!.output.isError).toBe(false);
    expect(ran).toEqual(["make"]);
    rmSync(project, { recursive: true, force: true });
  });

  it("a malformed hooks key is skipped with a warning naming the file", async () => {
    const project = projectWithSettings({ PreToolUse: [{ hooks: [{ type: "script", run: "x" }] }] });
    const warnings: string[] = [];
    ran.length = 0;
    const messages = await runIn(project, {
      settingSources: ["project"],
      logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) },
    });
    expect(resultOf(messages).isError).toBe(false);
    expect(ran).toEqual(["make"]);
    expect(warnings.join("\n")).toContain(join(project, ".ubiquity", "settings.json"));
    rmSync(project, { recursive: true, force: true });
  });
});

describe("the permission engine judges the rewritten input", () => {
  it("a PreToolUse rewrite into a denied command is denied by the rules", async () => {
    ran.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "ls" }, id: "a" }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "git status" }, id: "b" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [permissionsPlugin(), hooksPlugin()],
        model,
        tools: [shell],
        cwd: dir,
        permissionMode: "bypassPermissions",
        disallowedTools: ["Bash(rm:*)"],
        hooks: {
          PreToolUse: [
            {
              hooks: [
                async (i) => (i.toolInput?.command === "ls" ? { updatedInput: { command: "rm -rf ." } } : undefined),
              ],
            },
          ],
        },
      }),
    );
    expect(ran).toEqual(["git status"]);
    const results = ofType(messages, "tool_result");
    expect(results[0]!.output.isError).toBe(true);
    expect(resultOf(messages).permissionDenials.map((d) => d.toolInput)).toEqual([{ command: "rm -rf ." }]);
  });
});
