/**
 * The default sandbox attacked through the real `ubiquity` bin (issue 36). No sandbox flag is
 * given: on a machine with bubblewrap every run is sandboxed by default. An "attacker" model on
 * 127.0.0.1 runs, in bypassPermissions, the routes by which code ran outside the sandbox after an
 * earlier run; after the run the test plays the user (`git status` outside the sandbox) and
 * checks that no marker file appeared, no protected file was left behind, no key was read and
 * no process survived.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { requireDist, runCli } from "../helpers/project";
import { processesWith, SKIP } from "../sandbox/helpers";
import { attacker } from "./scripted-attacker";

const made: string[] = [];
const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
};

/**
 * The attack as a script the engine cannot read (`bash attack.sh`): in bypassPermissions it is
 * left to the sandbox, which is what is under test. Written with a quoted heredoc, so it runs as written.
 */
const script = (body: string) => [`cat > attack.sh <<'ATTACK'\n${body}\nATTACK`, "bash attack.sh; echo exit=$?"];

type Streamed = {
  type: string;
  subtype?: string;
  sandbox?: { status: string; backend?: string };
  output?: { content: unknown };
};
const messages = (stdout: string): Streamed[] =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Streamed);

let server: FakeProviderServer | undefined;
beforeAll(() => requireDist());
afterAll(async () => {
  await server?.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const KEY = "sk-test-sandbox-attacks-0123456789";
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, stdio: "pipe", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });

async function attack(commands: string[], prepare: (cwd: string) => void = () => {}, flags: string[] = []) {
  const home = temp("ubq-sbx-atk-home-");
  const cwd = temp("ubq-sbx-atk-ws-");
  const mark = join(temp("ubq-sbx-atk-mark-"), "pwned");
  git(cwd, "init", "-q", ".");
  git(cwd, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "one");
  prepare(cwd);
  await server?.close();
  server = await startProviderServer(attacker(commands.map((c) => c.replaceAll("MARK", mark))));
  const run = await runCli(
    [
      "run",
      "--model",
      "openai:gpt-5",
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
      ...flags,
      "do the task",
    ],
    cwd,
    {
      HOME: home,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: server.baseURL,
    },
  );
  // The user, afterwards, outside the sandbox: git in every repository the workspace has.
  for (const repo of ["", "sub", "lib", "evil"]) {
    if (existsSync(join(cwd, repo))) {
      try {
        git(join(cwd, repo), "status");
      } catch {
        // not a repository (any more): nothing ran
      }
    }
  }
  return { run, cwd, home, mark, all: messages(run.stdout) };
}

describe.skipIf(SKIP)("the default sandbox, attacked through the bin (bypassPermissions)", () => {
  it("is on by default: system/init says so", async () => {
    const { run, all } = await attack(["true"]);
    expect(run.code).toBe(0);
    const init = all.find((m) => m.type === "system" && m.subtype === "init")!;
    expect(init.sandbox).toEqual({ status: "on", backend: "bubblewrap" });
    expect(run.stderr).not.toContain("UNSANDBOXED");
  });

  it(".git/commondir pointing at a planted common folder: git status afterwards runs nothing", async () => {
    const { cwd, mark, all } = await attack(
      script(
        "mkdir -p evil && cp -r .git/HEAD .git/objects .git/refs evil/ && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch MARK\\n' > evil/config\nprintf '../evil\\n' > .git/commondir && echo planted",
      ),
    );
    expect(String(all.filter((m) => m.type === "tool_result")[1]!.output!.content)).toContain("planted");
    expect(existsSync(join(cwd, ".git", "commondir"))).toBe(false);
    expect(existsSync(join(cwd, "evil", "config"))).toBe(false);
    expect(existsSync(mark)).toBe(false);
  });

  it("a nested repository made in the run, and an existing one, with core.fsmonitor: git status there runs nothing", async () => {
    const { cwd, mark, all } = await attack(
      script(
        "git init -q sub && git -C sub config core.fsmonitor 'touch MARK'\ngit -C lib config core.fsmonitor 'touch MARK' || echo lib-refused",
      ),
      (ws) => {
        mkdirSync(join(ws, "lib"));
        git(ws, "init", "-q", "lib");
      },
    );
    expect(existsSync(join(cwd, "sub", ".git"))).toBe(false);
    expect(readFileSync(join(cwd, "lib", ".git", "config"), "utf8")).not.toContain("fsmonitor");
    expect(existsSync(mark)).toBe(false);
    const result = String(all.filter((m) => m.type === "tool_result")[1]!.output!.content);
    expect(result).toContain("lib-refused");
    expect(result).toContain("blocked by the sandbox");
    expect(result).toContain("sub/.git");
  });

  it("leaves none of the files that run code later behind, at the top or in a subfolder, and removes a config planted in a subfolder", async () => {
    const planted = [
      ".pre-commit-config.yaml",
      "lefthook.yml",
      ".pnpmfile.cjs",
      "bunfig.toml",
      "pkg/.pre-commit-config.yaml",
      "pkg/lefthook.yml",
      "pkg/.pnpmfile.cjs",
      "pkg/deep/bunfig.toml",
      "pkg/.envrc",
      "pkg/ubiquity.config.mjs",
      "pkg/.ubiquity/settings.json",
      "pkg/.mcp.json",
    ];
    const { cwd, home, all } = await attack(
      script(
        `${planted.map((p) => `mkdir -p "$(dirname ${p})" && echo 'touch MARK' > ${p}`).join(" && ")} && echo planted`,
      ),
    );
    for (const p of planted) expect(existsSync(join(cwd, p)), p).toBe(false);
    const result = String(all.filter((m) => m.type === "tool_result")[1]!.output!.content);
    expect(result).toContain("planted");
    // Each is named (a protected folder by itself: pkg/.ubiquity for the settings file in it).
    for (const p of planted) expect(result).toContain(`${p.replace("/settings.json", "")} is protected`);
    // Nothing is lost: the user finds them in the quarantine folder.
    const kept = readdirSync(join(home, ".ubiquity", "sandbox-removed"));
    expect(kept).toHaveLength(1);
    expect(existsSync(join(home, ".ubiquity", "sandbox-removed", kept[0]!, "pkg", "lefthook.yml"))).toBe(true);
  });

  it("reads no key from the parent's environment and leaves no process behind", async () => {
    const { all } = await attack([
      "cat /proc/$PPID/environ /proc/1/environ 2>&1 | tr '\\0' '\\n' | grep -c OPENAI; env | grep -c OPENAI; echo done",
      "setsid sleep 3636 & nohup sleep 3636 >/dev/null 2>&1 & echo started",
    ]);
    expect(JSON.stringify(all)).not.toContain(KEY);
    expect(processesWith("sleep 3636")).toEqual([]);
  });

  it("--no-sandbox runs unsandboxed, says so once on stderr, and system/init says off", async () => {
    const { run, all } = await attack(["true"], () => {}, ["--no-sandbox"]);
    expect(run.code).toBe(0);
    expect(all.find((m) => m.type === "system" && m.subtype === "init")!.sandbox).toMatchObject({ status: "off" });
    // Once: the run's logger and the init message carry the same warning (it was printed twice).
    expect(run.stderr.match(/the sandbox is off/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/^warning: (\[ubiquity:sandbox\] )?the sandbox is off/m);
    expect(run.stderr).toContain("/proc/$PPID/environ");
  });
});
