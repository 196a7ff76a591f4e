/**
 * The red team's harness (issue 36), shared by both rounds: a fake provider on 127.0.0.1 scripts
 * the model's calls, the attack runs as `bash attack.sh` through the real bin (default sandbox,
 * bypassPermissions), and afterwards the user is played outside the sandbox (git status in every
 * repository). Importing it registers the build check and the clean-up of its temp folders.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { sensitiveReason } from "../../plugins/permissions/sensitive";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { binPath, requireDist, runCli } from "../helpers/project";
import { processesWith } from "../sandbox/helpers";
import { attacker, type AttackCall } from "./scripted-attacker";

const made: string[] = [];
export const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
};

/** The attack as a script the engine cannot read: in bypassPermissions it is left to the sandbox. */
export const script = (body: string) => `cat > attack.sh <<'ATTACK'\n${body}\nATTACK\nbash attack.sh; echo exit=$?`;

type Streamed = { type: string; subtype?: string; output?: { content: unknown } };
const messages = (stdout: string): Streamed[] =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Streamed);
const results = (all: Streamed[]) =>
  all.filter((m) => m.type === "tool_result").map((m) => String(m.output?.content ?? ""));

let server: FakeProviderServer | undefined;
beforeAll(() => requireDist());
afterAll(async () => {
  await server?.close();
  if (made.length === 0) return;
  // One chmod and one rm for every folder of the file (two processes, not two a folder).
  try {
    execFileSync("chmod", ["-R", "u+rwx", ...made], { stdio: "ignore" });
  } catch {
    // best effort
  }
  // Deep trees are past PATH_MAX for rmSync: rm -rf copes.
  try {
    execFileSync("rm", ["-rf", ...made], { stdio: "ignore" });
  } catch {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  }
});

export const KEY = "sk-test-redteam-0123456789abcdef";

/** The user's git, outside the sandbox, with the test's home (no system or real global config). */
export function userGit(home: string, cwd: string, ...args: string[]): string {
  try {
    return execFileSync("git", args, {
      cwd,
      stdio: "pipe",
      env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
      timeout: 240_000,
    }).toString();
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

/** Every path in the workspace (find copes with trees past PATH_MAX, which Node's fs does not). */
export function allPaths(cwd: string): string[] {
  try {
    return execFileSync("find", [cwd, "-mindepth", "1"], { maxBuffer: 256 * 1024 * 1024 })
      .toString()
      .split("\n")
      .filter(Boolean);
  } catch (error) {
    return String((error as { stdout?: Buffer }).stdout ?? "")
      .split("\n")
      .filter(Boolean);
  }
}

// What the sandbox leaves writable on purpose (the brief: package.json, .yarn, .pnp.*, .pth,
// deno.json, node_modules): not counted as "left behind".
const INTENTIONAL = (rel: string) =>
  /(^|\/)(node_modules|\.yarn)(\/|$)/.test(rel) ||
  /(^|\/)(package\.json|\.pnp\.cjs|\.pnp\.loader\.mjs|deno\.jsonc?)$/.test(rel) ||
  /\.pth$/.test(rel) ||
  rel === "attack.sh";

/** Files that run code later (the engine's list) that were not in the workspace before the run. */
export function leftBehind(cwd: string, before: ReadonlySet<string>): string[] {
  return allPaths(cwd)
    .map((p) => relative(cwd, p))
    .filter(
      (rel) =>
        !before.has(rel) && !rel.split("/").includes(".git") && !INTENTIONAL(rel) && sensitiveReason(rel) !== undefined,
    );
}

interface Setup {
  /** Prepare the workspace (a git repository with one commit) before the run. */
  prepare?: (cwd: string, home: string, mark: string) => void;
  flags?: string[];
  env?: Record<string, string>;
}

let template: string | undefined;
/** A folder holding a git repository with one empty commit, made once per file by the user's git. */
function gitTemplate(): string {
  if (template) return template;
  const dir = temp("ubq-rt-git-");
  const home = temp("ubq-rt-git-home-");
  userGit(home, dir, "init", "-q", ".");
  userGit(home, dir, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "one");
  return (template = dir);
}

export async function attack(calls: AttackCall[], setup: Setup = {}) {
  const home = temp("ubq-rt-home-");
  const cwd = temp("ubq-rt-ws-");
  const mark = join(temp("ubq-rt-mark-"), "pwned");
  // A repository with one commit, as `git init` and `git commit --allow-empty` leave it: copied
  // from one the file made that way (two git processes a file, not two an attack).
  cpSync(gitTemplate(), cwd, { recursive: true });
  setup.prepare?.(cwd, home, mark);
  const before = new Set(allPaths(cwd).map((p) => relative(cwd, p)));
  await server?.close();
  const sub = (v: unknown): unknown => (typeof v === "string" ? v.replaceAll("MARK", mark) : v);
  server = await startProviderServer(
    attacker(
      calls.map((c) =>
        typeof c === "string"
          ? c.replaceAll("MARK", mark)
          : { name: c.name, input: Object.fromEntries(Object.entries(c.input).map(([k, v]) => [k, sub(v)])) },
      ),
    ),
  );
  const run = await runCli(
    [
      "run",
      "--model",
      "openai:gpt-4.1",
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
      ...(setup.flags ?? []),
      "do the task",
    ],
    cwd,
    {
      HOME: home,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: server.baseURL,
      ...setup.env,
    },
  );
  // The user, afterwards, outside the sandbox: git status at the top and in every folder holding a .git.
  userGit(home, cwd, "status");
  for (const p of allPaths(cwd)) {
    if (!p.endsWith("/.git") || p.includes("/node_modules/") || p === join(cwd, ".git")) continue;
    userGit(home, join(p, ".."), "status");
  }
  const all = messages(run.stdout);
  return { run, cwd, home, mark, all, out: results(all).join("\n"), before };
}

export const survivors = (tag: string) => processesWith(tag);

/** The user's next `ubiquity run` in the folder, against a provider that only says "done". */
export async function nextRun(cwd: string, home: string) {
  await server?.close();
  server = await startProviderServer(() => "done");
  return runCli(["run", "--model", "openai:gpt-4.1", "--output-format", "stream-json", "hi"], cwd, {
    HOME: home,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: server.baseURL,
    UBIQUITY_TRUST: "",
  });
}

/** The user trusts the folder as it is now. */
export const trustNow = (ws: string, home: string) =>
  execFileSync(process.execPath, [binPath, "trust", "."], {
    cwd: ws,
    env: { ...process.env, HOME: home, UBIQUITY_TRUST: "" },
    stdio: "pipe",
  });
