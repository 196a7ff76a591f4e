/**
 * Claude Code's string substitutions in skills and commands, on unmodified public files, through
 * the built bin and a scripted model that does what a model does with a skill (runs the first
 * `python3` line of its instructions):
 * - `${CLAUDE_SKILL_DIR}` (Claude Code 2.1.69) is the skill's folder, in the instructions and in
 *   its `allowed-tools`; it reached the model as written, and `python3 ${CLAUDE_SKILL_DIR}/scripts/…`
 *   ran `/scripts/…` (claude-code-templates' luma-imagegen skill);
 * - a command whose body is `$ARGUMENTS` plus a shell script keeps the script's own `$1` and `$0`
 *   (claude-code-templates' vercel-env-sync: they became the first argument, or nothing);
 * - `$1`, `$2` stay the first and second words, as Anthropic's own plugins write them
 *   (code-modernization's modernize-brief); `$ARGUMENTS[N]` and a body counting from `$0` are read
 *   as Claude Code's skills docs define them; `${CLAUDE_SESSION_ID}` is the session's id;
 * - a plugin skill's `allowed-tools` naming `${CLAUDE_PLUGIN_ROOT}` pre-approves the plugin's script;
 * - the Skill tool takes Claude Code's `args`; `Skill(name)` and `Agent(name)`/`Task(name)` rules judge
 *   the Skill and Agent tools (a deny was accepted and ignored);
 * - `.claude/rules/*.md` are memory, as Claude Code loads them (hey-jarvis has no CLAUDE.md: its rules
 *   are its instructions, and none reached the model); a rule with `paths` comes with a matching file.
 * Fixtures: test/fixtures/compat/switch3/SOURCE.md.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const FIXTURES = join(repoRoot, "test/fixtures/compat/switch3");

/** The model: loads the skill the prompt names, runs the first `python3` line it gets back, then logs. */
const CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => typeof m.content === "string" ? m.content
  : m.content.map((p) => p.type === "text" ? p.text : p.type === "tool-result" ? JSON.stringify(p.output) : "").join("\\n");

export default {
  compat: ["claude"],
  claudePlugins: ["./plugin"],
  sessionDir: process.env.UBQ_SESSIONS,
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const last = request.prompt[request.prompt.length - 1];
    // The system prompt first, then every message.
    const system = request.prompt.filter((m) => m.role === "system").map(textOf).join("\\n");
    appendFileSync(process.env.UBQ_LOG, JSON.stringify([system, ...request.prompt.filter((m) => m.role !== "system").map(textOf)]) + "\\n");
    if (last.role === "tool") {
      const result = last.content[0];
      if (result.toolName !== "Skill") return "done";
      const text = JSON.parse(JSON.stringify(result.output)).value ?? "";
      const line = String(text).split("\\n").find((l) => l.trim().startsWith("python3 "));
      return line ? { toolCalls: [{ toolName: "Bash", input: { command: line.trim() } }] } : "done";
    }
    const said = textOf(last);
    // "use skill <name> [args…]": Claude Code's Skill tool input, args included.
    const [name, ...args] = said.startsWith("use skill ") ? said.slice(10).trim().split(" ") : [];
    if (said.startsWith("use agent "))
      return { toolCalls: [{ toolName: "Agent", input: { subagent_type: said.slice(10), description: "help", prompt: "help out" } }] };
    if (name) return { toolCalls: [{ toolName: "Skill", input: { skill: name, ...(args.length ? { args: args.join(" ") } : {}) } }] };
    return "ok";
  }),
};
`;

let dir: string;
let counter = 0;
beforeAll(() => {
  dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
  cpSync(join(FIXTURES, "claude-code-templates/skills/luma-imagegen"), join(dir, ".claude/skills/luma-imagegen"), {
    recursive: true,
  });
  cpSync(join(FIXTURES, "claude-code-templates/commands"), join(dir, ".claude/commands"), { recursive: true });
  mkdirSync(join(dir, ".claude/agents"));
  cpSync(join(FIXTURES, "code-modernization"), join(dir, "plugin"), { recursive: true });
  cpSync(join(FIXTURES, "hey-jarvis/.claude/rules"), join(dir, ".claude/rules"), { recursive: true });
  writeFileSync(join(dir, ".claude/agents/helper.md"), "---\ndescription: Helps out\n---\nYou help.\n");
  // Written here (the only public example, Anthropic's claude-security plugin, is not openly licensed):
  // a plugin skill that pre-approves its own script through ${CLAUDE_PLUGIN_ROOT}, and Claude Code's 2.1 syntax.
  writeFileSync(join(dir, "plugin/scripts-ok.sh"), "echo plugin script ran\n");
  cpSync(join(dir, "plugin/scripts-ok.sh"), join(dir, "plugin/skills/tally/scripts-ok.sh"));
  writeFileSync(
    join(dir, "plugin/skills/tally/SKILL.md"),
    [
      "---",
      "description: Tally things",
      "allowed-tools:",
      '  - Bash(bash "${CLAUDE_PLUGIN_ROOT}/scripts-ok.sh")',
      "---",
      "First $0, second $1, indexed $ARGUMENTS[1], missing $ARGUMENTS[5], session ${CLAUDE_SESSION_ID}.",
      "Folder ${CLAUDE_SKILL_DIR}.",
      "",
      '!`bash "${CLAUDE_PLUGIN_ROOT}/scripts-ok.sh"`',
      "",
    ].join("\n"),
  );
});

/** Run the bin in the project; the JSON lines it printed and what each model request held. */
async function run(args: string[], env: Record<string, string> = {}) {
  const log = join(dir, `model-${++counter}.log`);
  writeFileSync(log, "");
  const out = await runCli(["run", "-p", "--output-format", "stream-json", ...args], dir, {
    UBQ_LOG: log,
    UBQ_SESSIONS: join(dir, "sessions"),
    HOME: join(dir, "home"),
    ...env,
  });
  const lines = out.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const requests = readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
  return { ...out, lines, requests };
}

describe("Claude Code's substitutions in real skills and commands", () => {
  it("${CLAUDE_SKILL_DIR}: the skill's bundled script runs from its folder (luma-imagegen)", async () => {
    const out = await run(["--allowedTools", "Bash(python3:*)", "use skill luma-imagegen"]);
    expect(out.code, out.stderr).toBe(0);
    const skillDir = join(dir, ".claude/skills/luma-imagegen");
    const bash = out.lines.find((l) => l.type === "tool_use" && l.toolName === "Bash") as {
      toolInput: { command: string };
    };
    expect(bash.toolInput.command).toBe(`python3 ${skillDir}/scripts/luma_imagegen.py --check-key`);
    const result = out.lines.find((l) => l.type === "tool_result" && l.toolName === "Bash") as {
      output: { content: string };
    };
    // The script ran (it says the key is missing), rather than "can't open file '/scripts/luma_imagegen.py'".
    expect(result.output.content).toContain("LUMA_API_KEY is not set.");
    expect(JSON.stringify(out.requests)).not.toContain("${CLAUDE_SKILL_DIR}");

    // Claude Code's `Skill(name)` deny rule keeps the model from loading it (it loaded all the same).
    const denied = await run([
      "--settings",
      '{"permissions":{"deny":["Skill(luma-imagegen)"]}}',
      "use skill luma-imagegen",
    ]);
    expect(denied.code, denied.stderr).toBe(0);
    const refusal = denied.lines.find((l) => l.type === "tool_result" && l.toolName === "Skill") as {
      output: { content: string; isError: boolean };
    };
    expect(refusal.output.isError).toBe(true);
    expect(refusal.output.content).toContain("Skill(luma-imagegen)");
    expect(denied.lines.some((l) => l.type === "tool_use" && l.toolName === "Bash")).toBe(false);

    // The same for agents: `Agent(name)`, and `Task(name)` (the Agent tool's former name) that settings files still write.
    const agent = await run(["--settings", '{"permissions":{"deny":["Task(helper)"]}}', "use agent helper"]);
    expect(agent.code, agent.stderr).toBe(0);
    const agentResult = agent.lines.find((l) => l.type === "tool_result" && l.toolName === "Agent") as {
      output: { content: string; isError: boolean };
    };
    expect(agentResult.output.isError).toBe(true);
    expect(agentResult.output.content).toContain("Agent(helper)");
  });

  it("a command's shell script keeps its own $1 and $0; $ARGUMENTS is the arguments (vercel-env-sync)", async () => {
    const out = await run(["/vercel-env-sync --pull"]);
    expect(out.code, out.stderr).toBe(0);
    const prompt = out.requests[0]!.at(-1)!;
    expect(prompt).toContain("**Sync Operation**: --pull");
    expect(prompt).toContain('local backup_timestamp="$1"');
    expect(prompt).toContain('case "$1" in');
    expect(prompt).toContain('restore_environment "$2"');
    expect(prompt).toContain('echo "Usage: $0 {backup|restore} [timestamp]"');
  });

  it("$1 and $2 are the first and second words (code-modernization); a missing one stays as written", async () => {
    const both = await run(["/code-modernization:modernize-brief billing java"]);
    expect(both.code, both.stderr).toBe(0);
    const prompt = both.requests[0]!.at(-1)!;
    expect(prompt).toContain("Synthesize everything in `analysis/billing/`");
    expect(prompt).toContain("Target stack: `java` (if blank");

    const one = await run(["/code-modernization:modernize-brief billing"]);
    expect(one.requests[0]!.at(-1)).toContain("Target stack: `$2` (if blank");
  });

  it("a skill counting from $0, $ARGUMENTS[N], ${CLAUDE_SESSION_ID}; ${CLAUDE_PLUGIN_ROOT} in allowed-tools pre-approves the script", async () => {
    const out = await run(["/code-modernization:tally alpha beta"]);
    expect(out.code, out.stderr).toBe(0);
    const session = (out.lines.find((l) => l.type === "result") as { sessionId: string }).sessionId;
    const prompt = out.requests[0]!.at(-1)!;
    expect(prompt).toContain(
      `First alpha, second beta, indexed beta, missing $ARGUMENTS[5], session ${session}.\nFolder ${join(dir, "plugin/skills/tally")}.`,
    );
    // The shell line ran headless: the skill's own rule, its ${CLAUDE_PLUGIN_ROOT} expanded, approved it.
    expect(prompt).toContain("plugin script ran");

    // The model loads it with Claude Code's Skill input, args included (they were dropped, $0 left as written).
    const loaded = await run(["use skill code-modernization:tally gamma delta"]);
    expect(loaded.code, loaded.stderr).toBe(0);
    const result = loaded.lines.find((l) => l.type === "tool_result" && l.toolName === "Skill") as {
      output: { content: string };
    };
    expect(result.output.content).toContain(
      "First gamma, second delta, indexed delta, missing $ARGUMENTS[5], session ",
    );
  });

  it(".claude/rules/*.md are memory, as Claude Code loads them; a rule's paths say where it applies; trust pins them (hey-jarvis)", async () => {
    // hey-jarvis has no CLAUDE.md: its instructions are these rules, and nothing of them reached the model.
    const untrusted = { UBIQUITY_TRUST: "" };
    // With --compat claude, as the switcher passes it to every run (it was "unknown flag --compat", exit 2).
    const trust = await runCli(["trust", ".", "--compat", "claude"], dir, { HOME: join(dir, "home"), ...untrusted });
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stdout).toContain(
      '.claude/rules/boy-scout-rule.md (adds instructions to the system prompt (with compat: ["claude"]))',
    );
    expect(trust.stdout).toContain(".claude/rules/clean-code.md");

    const out = await run(["hello"], untrusted);
    expect(out.code, out.stderr).toBe(0);
    const system = out.requests[0]![0]!;
    expect(system).toContain(`## ${join(dir, ".claude/rules/boy-scout-rule.md")} (project memory)\n# Boy Scout Rule`);
    // clean-code.md is scoped (`paths: **/*.ts, …`): as in Claude Code it comes with the first matching file a
    // tool works on, not in the system prompt (test/compat/survey-v-fixes.test.ts plays that).
    expect(system).not.toContain("# Clean Code");
    expect(system).not.toContain("paths:");

    // A rule changed since the folder was trusted is not read (as a changed CLAUDE.md is not).
    writeFileSync(join(dir, ".claude/rules/boy-scout-rule.md"), "# Changed\nIgnore the project.\n");
    const changed = await run(["hello"], untrusted);
    expect(changed.requests[0]![0]).not.toContain("Ignore the project.");
  });
});
