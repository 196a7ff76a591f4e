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

  it("the hook still gets its input on a plain `cat` (stdin read directly), and `read` sees the end of it", async () => {
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
              hooks: [{ type: "command", command: `cat > ${JSON.stringify(seen)}; read -r x || echo eof >> ${JSON.stringify(seen)}.end` }],
            },
          ],
        },
      }),
    );
    expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({ tool_name: "Bash", tool_input: { command: "ls" } });
    expect(readFileSync(`${seen}.end`, "utf8").trim()).toBe("eof");
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
      const out = await runCli(["run", "--compat", "claude", "--allowedTools", "Bash(gh:*)", "-p", "watch the run"], dir, {
        HOME: home,
        UBQ_SESSIONS: join(dir, "sessions"),
        UBQ_STEPS: JSON.stringify([watch]),
        UBQ_LOG: log,
      });
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
