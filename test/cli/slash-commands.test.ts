/**
 * Slash commands through the built bin: `ubiquity run "/name args"` expands a command file; a
 * refused `!` line ends the run with exit 1 and never runs (a marker file); in the terminal a
 * `/name` that is not built in runs the command file, and an unknown one says so.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { SCRIPTED_CONFIG, SCRIPTED_CONFIG_FILE, scriptedProject, type Logged } from "../helpers/scripted-project";
import { inTerminal, PROMPT } from "../helpers/terminal";

const made: string[] = [];
afterAll(() => {
  removeTempProjects();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
};
beforeAll(requireDist);

const CONFIG = SCRIPTED_CONFIG.replace(
  "marketPricing: false,",
  'marketPricing: false,\n  commandSources: ["project"],\n  sandbox: false,',
);

describe("slash commands through the bin", () => {
  it("run: a command file expands with its arguments; a refused ! line fails the run and never runs", async () => {
    const p = scriptedProject({
      [SCRIPTED_CONFIG_FILE]: CONFIG,
      ".ubiquity/commands/git/hello.md": "---\ndescription: Greet\n---\nSay hello to $1 and $2.\n",
      ".ubiquity/commands/deploy.md": "Deploying.\n!`touch deployed-marker`\n",
    });
    const ok = await p.run(["/git:hello Ada Grace"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.requests[0]!.users.at(-1)).toBe("Say hello to Ada and Grace.");

    const refused = await p.run(["/deploy"]);
    expect(refused.code).toBe(1);
    expect(`${refused.stdout}${refused.stderr}`).toContain(
      "/deploy: the shell line `touch deployed-marker` was not run",
    );
    expect(refused.requests).toHaveLength(0);
    expect(existsSync(join(p.dir, "deployed-marker"))).toBe(false);
  });

  it.skipIf(!existsSync("/usr/bin/script"))(
    "terminal: /name runs a command file, /help lists it, an unknown /name says so",
    async () => {
      const p = scriptedProject({
        [SCRIPTED_CONFIG_FILE]: CONFIG,
        ".ubiquity/commands/hello.md":
          "---\ndescription: Greet someone\nargument-hint: <who>\n---\nSay hello to $ARGUMENTS.\n",
      });
      const logFile = join(p.dir, "chat.log");
      writeFileSync(logFile, "");
      const { code, screen } = await inTerminal(p.dir, ["chat"], { UBQ_LOG: logFile, UBQ_SESSIONS: p.sessions }, [
        { until: (s) => s.includes(PROMPT), type: "/help\r" },
        { until: (s) => s.includes("Greet someone") && s.includes(PROMPT), type: "/nonesuch\r" },
        { until: (s) => s.includes("Unknown command /nonesuch") && s.includes(PROMPT), type: "/hello the world\r" },
        { until: (s) => s.includes("answer to Say hello to the world.") && s.includes(PROMPT), type: "/exit\r" },
      ]);
      expect(code, screen).toBe(0);
      expect(screen).toMatch(/\/hello <who>\s+Greet someone/);
      const requests = readFileSync(logFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Logged);
      expect(requests.map((r) => r.users.at(-1))).toEqual(["Say hello to the world."]);
    },
  );

  it("ubiquity plugin add | list | remove records a Claude Code plugin in the user's settings; run uses its commands", async () => {
    const home = tempDir("ubq-plugin-home-");
    const folder = join(tempDir("ubq-plugin-"), "commit-commands");
    cpSync(fileURLToPath(new URL("../fixtures/compat/plugins/commit-commands/", import.meta.url)), folder, {
      recursive: true,
    });
    const p = scriptedProject({ [SCRIPTED_CONFIG_FILE]: CONFIG, "a.txt": "one\n" });
    const git = (...args: string[]) => execFileSync("git", args, { cwd: p.dir, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    git("-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "first commit");
    const env = { HOME: home };

    const added = await runCli(["plugin", "add", folder], p.dir, env);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(home, ".ubiquity", "settings.json"), "utf8"))).toEqual({
      claudePlugins: [folder],
    });
    expect((await runCli(["plugin", "list"], p.dir, env)).stdout).toMatch(new RegExp(`commit-commands\\s+${folder}`));
    const notAPlugin = await runCli(["plugin", "add", join(home, "nowhere")], p.dir, env);
    expect(notAPlugin.code).toBe(2);

    const ran = await p.run(
      ["/commit-commands:commit", "--allowedTools", "Bash(git diff:*) Bash(git branch:*) Bash(git log:*)"],
      {},
      env,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.requests[0]!.users.at(-1)).toContain("- Current branch: main");
    expect(ran.requests[0]!.users.at(-1)).toContain("first commit");

    const removed = await runCli(["plugin", "remove", "commit-commands"], p.dir, env);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await runCli(["plugin", "list"], p.dir, env)).stdout).toContain("No plugins");
    const after = await p.run(["/commit-commands:commit"], {}, env);
    expect(after.requests[0]!.users.at(-1)).toBe("/commit-commands:commit");
  });

  it("ubiquity plugin add <marketplace> <plugin>: a local plugin of a Claude Code or Codex marketplace; a source neither local nor git is refused", async () => {
    const home = tempDir("ubq-plugin-home-");
    const claudeMarket = tempDir("ubq-market-");
    cpSync(
      fileURLToPath(new URL("../fixtures/compat/plugins/commit-commands/", import.meta.url)),
      join(claudeMarket, "plugins", "commit-commands"),
      { recursive: true },
    );
    writeFileSync(join(claudeMarket, "plugins", "..", "README.md"), "a marketplace made by the test\n");
    execFileSync("mkdir", ["-p", join(claudeMarket, ".claude-plugin")]);
    writeFileSync(
      join(claudeMarket, ".claude-plugin", "marketplace.json"),
      JSON.stringify({
        name: "test-market",
        plugins: [
          { name: "commit-commands", source: "./plugins/commit-commands" },
          { name: "remote", source: { source: "npm", package: "@example/remote-plugin" } },
        ],
      }),
    );
    const codexMarket = tempDir("ubq-market-");
    cpSync(
      fileURLToPath(new URL("../fixtures/compat/plugins/coderabbit/", import.meta.url)),
      join(codexMarket, "plugins", "coderabbit"),
      { recursive: true },
    );
    execFileSync("mkdir", ["-p", join(codexMarket, ".agents", "plugins")]);
    writeFileSync(
      join(codexMarket, ".agents", "plugins", "marketplace.json"),
      JSON.stringify({
        name: "codex-market",
        plugins: [{ name: "coderabbit", source: { source: "local", path: "./plugins/coderabbit" } }],
      }),
    );
    const env = { HOME: home };
    const cwd = tempDir("ubq-plugin-cwd-");

    const bare = await runCli(["plugin", "add", claudeMarket], cwd, env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("is a marketplace; name one of its 2 plugins");
    const remote = await runCli(["plugin", "add", claudeMarket, "remote"], cwd, env);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("neither a folder of the marketplace nor a git repository");
    expect((await runCli(["plugin", "add", claudeMarket, "commit-commands"], cwd, env)).code).toBe(0);
    expect((await runCli(["plugin", "add", codexMarket, "coderabbit"], cwd, env)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(home, ".ubiquity", "settings.json"), "utf8"))).toEqual({
      claudePlugins: [join(claudeMarket, "plugins", "commit-commands"), join(codexMarket, "plugins", "coderabbit")],
    });
    const listed = (await runCli(["plugin", "list"], cwd, env)).stdout;
    expect(listed).toMatch(/commit-commands\s/);
    expect(listed).toMatch(/coderabbit\s/);
  });
});
