/**
 * What the fifth compat survey (docs/guide/compat-survey.md, "Round u") found ubiquity misreading in
 * real Claude Code and Codex files, run through the built bin with a scripted model in a temp project
 * with its own HOME, and through the loaders in process. Fixtures: test/compat/fixtures/survey-u/
 * (SOURCE.md names each file's repository, commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readClaudePlugin } from "../../plugins/_kits/sources/index";
import { readCodexConfigFile } from "../../plugins/settings/codex";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { stepsProject } from "../helpers/scripted-project";
import { tempDirs } from "../helpers/temp-dirs";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-u/", import.meta.url));
const temp = tempDirs();

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** A project with the scripted model, `fixture`'s files copied in, and a HOME of its own. */
const project = (fixture?: string) => stepsProject(fixture && join(FIXTURES, fixture));

describe("Codex's hooks.json (.codex/hooks.json): 10,777 indexed repositories have one", () => {
  // Codex runs the hooks of hooks.json next to each config layer; ubiquity read config.toml and
  // skipped hooks.json without a word, so sumo's hooks (every event forwarded to `sumo forward codex`)
  // never ran under --compat codex.
  function sumoProject() {
    const p = project("sumo");
    // A stand-in `sumo` in the project (the real one is a daemon): it records each event and what it read.
    mkdirSync(join(p.dir, "bin"));
    writeFileSync(
      join(p.dir, "bin", "sumo"),
      '#!/bin/sh\nprintf \'%s %s\\n\' "$3" "$(head -c 2000)" >> "$CLAUDE_PROJECT_DIR/sumo-events.log"\n',
    );
    chmodSync(join(p.dir, "bin", "sumo"), 0o755);
    writeFileSync(join(p.dir, "notes.txt"), "hello\n");
    return p;
  }
  const events = (dir: string) => {
    try {
      return readFileSync(join(dir, "sumo-events.log"), "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  };

  it("under --compat codex its hooks run on their events with Claude Code's input shape", async () => {
    const p = sumoProject();
    const out = await runCli(["run", "--compat", "codex", "-p", "read the notes"], p.dir, {
      ...p.env,
      PATH: `${join(p.dir, "bin")}:${process.env.PATH}`,
      UBQ_STEPS: JSON.stringify([{ toolCalls: [{ toolName: "Read", input: { file_path: "notes.txt" } }] }]),
    });
    expect(out.code, out.stderr).toBe(0);
    const seen = events(p.dir);
    expect(seen.map((l) => l.split(" ")[0])).toEqual(
      expect.arrayContaining(["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]),
    );
    const pre = JSON.parse(seen.find((l) => l.startsWith("PreToolUse "))!.slice("PreToolUse ".length)) as Record<
      string,
      unknown
    >;
    expect(pre).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Read" });
    expect(JSON.stringify(pre.tool_input)).toContain("notes.txt");
  });

  it("hooks written inline in config.toml ([[hooks.<Event>]] tables, Codex's other place for them) run too", async () => {
    const p = project();
    mkdirSync(join(p.dir, ".codex"));
    writeFileSync(
      join(p.dir, ".codex", "config.toml"),
      '[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\ncommand = "cat > prompt-hook.json"\n',
    );
    const out = await runCli(["run", "--compat", "codex", "-p", "hello there"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain("ignored: hooks");
    expect(JSON.parse(readFileSync(join(p.dir, "prompt-hook.json"), "utf8"))).toMatchObject({
      hook_event_name: "UserPromptSubmit",
      prompt: "hello there",
    });
  });

  it("[features] codex_hooks = false turns them off, and says so", async () => {
    const p = sumoProject();
    writeFileSync(join(p.dir, ".codex", "config.toml"), "[features]\ncodex_hooks = false\n");
    const out = await runCli(["run", "--compat", "codex", "-p", "hello"], p.dir, {
      ...p.env,
      PATH: `${join(p.dir, "bin")}:${process.env.PATH}`,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(events(p.dir)).toEqual([]);
    expect(out.stderr).toContain("[features] codex_hooks = false, so the Codex hooks of ");
  });

  it("under --compat claude (Claude Code reads no .codex folder) they do not run", async () => {
    const p = sumoProject();
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], p.dir, {
      ...p.env,
      PATH: `${join(p.dir, "bin")}:${process.env.PATH}`,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(events(p.dir)).toEqual([]);
  });
});

describe("a marketplace folder given as a plugin folder (gtapps/claude-code-hermit's repository)", () => {
  // The repository's root holds .claude-plugin/marketplace.json (seven plugins under plugins/) and no
  // plugin.json: read as a plugin it added nothing, and said nothing.
  it("is skipped, naming its plugins and what to give instead", () => {
    const reports: string[] = [];
    const root = join(FIXTURES, "gtapps-hermit");
    expect(readClaudePlugin(root, (m) => reports.push(m))).toBeUndefined();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain(`skipped ${root}: it is a plugin marketplace (7 plugins: claude-code-hermit,`);
    expect(reports[0]).toContain(`(${join(root, "plugins", "claude-code-hermit")})`);
    expect(reports[0]).toContain(`ubiquity plugin add ${root} <plugin>`);
  });

  it('a marketplace that lists its own folder as a plugin (`source: "./"`) is read as that plugin', () => {
    const root = temp();
    mkdirSync(join(root, ".claude-plugin"));
    writeFileSync(
      join(root, ".claude-plugin", "marketplace.json"),
      JSON.stringify({ name: "m", plugins: [{ name: "skills", source: "./" }] }),
    );
    const reports: string[] = [];
    expect(readClaudePlugin(root, (m) => reports.push(m))?.root).toBe(root);
    expect(reports).toEqual([]);
  });
});

describe("a marketplace's plugin whose folder has no manifest (cowwoc/claude-code-cat's layout)", () => {
  // cat's marketplace lists `{"name": "cat", "source": "./plugin"}`, and `plugin/` has no .claude-plugin/plugin.json
  // (its plugin.json sits at the folder's top, where Claude Code does not read it): Claude Code names it `cat`, by its
  // entry. `ubiquity plugin add <marketplace> cat` named it `plugin`, after the folder, so `cat:<skill>` was unknown.
  // (cat's licence is source-available: the test writes the same layout.)
  it("plugin add names it by its marketplace entry", async () => {
    const market = temp();
    mkdirSync(join(market, ".claude-plugin"));
    writeFileSync(
      join(market, ".claude-plugin", "marketplace.json"),
      JSON.stringify({ name: "m", owner: { name: "o" }, plugins: [{ name: "cat", source: "./plugin" }] }),
    );
    mkdirSync(join(market, "plugin", "skills", "get-session-id"), { recursive: true });
    writeFileSync(
      join(market, "plugin", "skills", "get-session-id", "SKILL.md"),
      "---\nname: get-session-id\ndescription: The session id\n---\nIt is ${CLAUDE_SESSION_ID}.\n",
    );
    const p = project();
    const added = await runCli(["plugin", "add", market, "cat"], p.dir, p.env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("Added the plugin cat (");
    const out = await runCli(["run", "--compat", "claude", "-p", "hi"], p.dir, {
      ...p.env,
      UBQ_STEPS: JSON.stringify([{ toolCalls: [{ toolName: "Skill", input: { skill: "cat:get-session-id" } }] }]),
    });
    expect(out.code, out.stderr).toBe(0);
    const sent = p.requests().join("\n");
    expect(sent).not.toContain("there is no skill named");
    expect(sent).toMatch(/It is [0-9a-f-]{36}\./);
  });
});

describe("a plugin installed in ~/.ubiquity/plugins (plugin add's clones and copies), its hooks in the sandbox", () => {
  // The sandbox hides ~/.ubiquity (the trust store, settings, sessions); a plugin `ubiquity plugin add` put there
  // (cat's copy above, every git URL's clone) had its hook scripts hidden with it: "No such file or directory". The
  // home is made under /var/tmp: a home under /tmp is shown another way (the private /tmp covers it).
  it("its folder is shown read-only to its hooks; the rest of ~/.ubiquity stays hidden", async () => {
    const realHome = realpathSync(mkdtempSync("/var/tmp/ubq-survey-u-home-"));
    try {
      const plugin = join(realHome, ".ubiquity", "plugins", "pp");
      mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
      mkdirSync(join(plugin, "hooks"));
      writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), '{"name": "pp"}');
      writeFileSync(
        join(plugin, "hooks", "hooks.json"),
        JSON.stringify({
          hooks: { SessionStart: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/hi.sh" }] }] },
        }),
      );
      // It says it ran, and whether it could read the trust store beside the plugins.
      writeFileSync(
        join(plugin, "hooks", "hi.sh"),
        '#!/bin/sh\nif cat "$HOME/.ubiquity/trust.json" >/dev/null 2>&1; then r=yes; else r=no; fi\necho "{\\"systemMessage\\": \\"pp ran, trust store readable: $r\\"}"\n',
      );
      chmodSync(join(plugin, "hooks", "hi.sh"), 0o755);
      writeFileSync(join(realHome, ".ubiquity", "trust.json"), "{}");
      const p = project();
      const out = await runCli(["run", "--compat", "claude", "--plugin-dir", plugin, "-p", "hi"], p.dir, {
        ...p.env,
        HOME: realHome,
      });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toContain("SessionStart hook: pp ran, trust store readable: no");
    } finally {
      rmSync(realHome, { recursive: true, force: true });
    }
  });
});

describe("Codex keys written below an [mcp_servers.<name>] header (jonhill90/vibes' .codex/config.toml)", () => {
  // vibes' file sets approval_policy, sandbox_mode and project_doc_fallback_filenames after its last
  // server: TOML makes them keys of that server. The warning said only that the server's key "approval_policy"
  // is not one ubiquity reads. (vibes has no licence: the test writes the same layout.)
  it("the warning says where the key went and how to move it", () => {
    const dir = temp();
    const file = join(dir, "config.toml");
    writeFileSync(
      file,
      '[mcp_servers.deepwiki]\nurl = "https://mcp.deepwiki.com/mcp"\n\napproval_policy = "on-request"\nsandbox_mode = "workspace-write"\n',
    );
    const reports: string[] = [];
    const read = readCodexConfigFile(file, (m) => reports.push(m));
    expect(read?.tightening.mode).toBeUndefined();
    expect(reports).toHaveLength(2);
    expect(reports[0]).toContain(
      'mcp_servers.deepwiki: "approval_policy" is a top-level Codex setting, but written below the [mcp_servers.deepwiki] header it belongs to that table',
    );
    expect(reports[0]).toContain("move it above the file's first [table] header");
    expect(reports[1]).toContain('"sandbox_mode" is a top-level Codex setting');
  });

  it("a key that is no Codex setting keeps the plain warning", () => {
    const dir = temp();
    const file = join(dir, "config.toml");
    writeFileSync(file, '[mcp_servers.x]\nurl = "https://x.example/mcp"\ncolour = "blue"\n');
    const reports: string[] = [];
    readCodexConfigFile(file, (m) => reports.push(m));
    expect(reports).toEqual([`${file}: mcp_servers.x: the key "colour" is not one ubiquity reads; it was ignored`]);
  });
});

describe("a UserPromptSubmit hook that exits 2 (thomasvan/claude-code-toolkit's settings)", () => {
  // Its hooks run `python3 "$HOME/.claude/hooks/<name>.py"`, scripts its installer puts in ~/.claude/hooks.
  // Without them python3 exits 2 ("can't open file"), which blocks the prompt, as in Claude Code; the
  // error said only "Prompt blocked: …python3: can't open file…", never that a hook did it, nor which.
  it("the run's error names the hook that blocked the prompt", async () => {
    const p = project("thomasvan");
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], p.dir, p.env);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'Prompt blocked: UserPromptSubmit hook command "python3 \\"$HOME/.claude/hooks/pipeline-context-detector.py\\"" blocked it (exit 2): ',
    );
    expect(out.stderr).toContain("can't open file");
    expect(p.requests()).toEqual([]);
  });
});

describe("a command in a subfolder invoked with the folder's name (CodySwannGT/lisa's /lisa:codex-parity)", () => {
  // `.claude/commands/lisa/codex-parity.md` is `/codex-parity`, as Claude Code names it (round 1); the warning for
  // `/lisa:codex-parity` listed the run's first eight commands, leaving the user to guess.
  it("the warning names the command meant", async () => {
    const p = project("lisa");
    const out = await runCli(["run", "--compat", "claude", "-p", "/lisa:codex-parity hooks"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      "/lisa:codex-parity is not a command of this run, so the prompt went to the model as written (did you mean /codex-parity? In Claude Code's folders a command file in a subfolder is named by its file alone)",
    );
  });
});

describe("an agent whose hooks are a flat list of handlers (thomasvan's golang-general-engineer)", () => {
  // `hooks: PostToolUse: - type: command …` leaves out Claude Code's matcher groups: the hook never runs. The
  // warning named the agent only (`agent golang-general-engineer: hooks.PostToolUse[0] is not {…}`).
  it("the warning names the agent's file and the shape that runs the handler", async () => {
    const p = project();
    mkdirSync(join(p.dir, ".claude", "agents"), { recursive: true });
    cpSync(
      join(FIXTURES, "thomasvan", "agents", "golang-general-engineer.md"),
      join(p.dir, ".claude", "agents", "golang-general-engineer.md"),
    );
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    const file = join(p.dir, ".claude", "agents", "golang-general-engineer.md");
    expect(out.stderr).toContain(
      `agent golang-general-engineer (${file}): hooks.PostToolUse[0] is a hook handler written where a matcher group belongs, so it does not run`,
    );
    expect(out.stderr).toContain('put it in a group: {"matcher"?, "hooks": [<the handler>]}');
  });
});

describe("a Read deny rule against a program the engine does not know (melodic-software's settings)", () => {
  // Its settings deny Read(./.env) (and more) in bypassPermissions mode; `python3 tool.py` is denied,
  // since the script may read .env. The reason given was "it makes links or moves files, so a later path
  // may lead anywhere", which names nothing python3 tool.py does.
  it("the denial says the program is unknown to the engine and may read any file", async () => {
    const p = project("melodic");
    writeFileSync(join(p.dir, "tool.py"), "print('hi')\n");
    const out = await runCli(["run", "--compat", "claude", "-p", "run the tool"], p.dir, {
      ...p.env,
      UBQ_STEPS: JSON.stringify([{ toolCalls: [{ toolName: "Bash", input: { command: "python3 tool.py" } }] }]),
    });
    expect(out.code, out.stderr).toBe(0);
    const sent = p.requests().join("\n");
    expect(sent).toContain("the rule Read(./.env) in settings (project: ");
    expect(sent).toContain(
      "forbids this (python3 is not a program the engine knows, so it may read any file, which could be a file this rule names)",
    );
  });
});
