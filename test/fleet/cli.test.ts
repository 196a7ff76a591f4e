/**
 * The fleet through the real bin: `ubiquity worker` (config with a scripted model that writes a
 * file), `ubiquity fleet run --repos a,b --wait` (each repository in its own checkout),
 * `ubiquity fleet status` (state, turns, the diff) and `ubiquity fleet logs <id>`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";

// Plain JavaScript, written as ubiquity.config.mjs: a .ts config made each fresh project's first run
// load jiti's Babel (~0.2 CPU-s; see test/helpers/scripted-project.ts).
const CONFIG = `
import { scriptedModel } from "ubiquity/testing";
const said = (request) => JSON.stringify(request.prompt.filter((m) => m.role === "user"));
export default {
  marketPricing: false,
  maxRetries: 0,
  permissionMode: "bypassPermissions",
  model: scriptedModel(({ request }) => {
    if (request.prompt.at(-1).role === "tool") return "wrote NOTES.md";
    return { toolCalls: [{ toolName: "Write", input: { file_path: "NOTES.md", content: "fleet was here\\n" } }] };
  }),
};
`;

function gitRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      stdio: "pipe",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# repo\n");
  git("add", ".");
  git("commit", "-qm", "first");
  return dir;
}

describe.skipIf(redisMissing)("ubiquity fleet / ubiquity worker", () => {
  let redis: TestRedis;
  let dir: string;
  let worker: ChildProcess;
  let workerOutput = "";
  let args: string[];
  beforeAll(async () => {
    requireDist();
    redis = await startRedis();
    dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    args = ["--redis", redis.url, "--postgres", join(dir, "sessions")];
    worker = spawn(
      process.execPath,
      [binPath, "worker", ...args, "--workdir", join(dir, "work"), "--concurrency", "2", "--allow-cwd", dir],
      {
        cwd: dir,
        env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    worker.stdout!.on("data", (d) => (workerOutput += d));
    worker.stderr!.on("data", (d) => (workerOutput += d));
    const deadline = Date.now() + 60_000;
    while (!workerOutput.includes("ready:") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!workerOutput.includes("ready:")) throw new Error(`the worker did not start:\n${workerOutput}`);
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker.once("exit", r));
      worker.kill("SIGTERM");
      await exited;
    }
    await redis?.stop();
    removeTempProjects();
  });

  it("fans a prompt out over two repositories, each in its own checkout; status shows the diffs, logs the messages", async () => {
    const a = gitRepo(join(dir, "repo-a"));
    const b = gitRepo(join(dir, "repo-b"));
    const run = await runCli(["fleet", "run", ...args, "--repos", `${a},${b}`, "--wait", "write the notes"], dir);
    expect(run.stderr).toContain("Queued 2 runs");
    expect(run.code).toBe(0);
    const ids = run.stdout.trim().split("\n");
    expect(ids).toHaveLength(2);
    // The source repositories are untouched: each run wrote in its own checkout.
    expect(existsSync(join(a, "NOTES.md")) || existsSync(join(b, "NOTES.md"))).toBe(false);
    expect(existsSync(join(dir, "work", ids[0]!, "NOTES.md"))).toBe(true);

    const status = await runCli(["fleet", "status", ...args, "--diff"], dir);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`${ids[0]}\\s+completed\\s+2\\s+`));
    expect(status.stdout).toContain("+fleet was here");
    const json = JSON.parse((await runCli(["fleet", "status", ...args, "--json"], dir)).stdout) as {
      state: string;
      outcome: { diff: string };
    }[];
    expect(json.map((r) => r.state)).toEqual(["completed", "completed"]);

    const logs = await runCli(["fleet", "logs", ...args, ids[1]!], dir);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain("user: write the notes");
    expect(logs.stdout).toContain("assistant: → Write(");
    expect(logs.stdout).toMatch(/result success after 2 turns.*wrote NOTES\.md/);
    expect(workerOutput).toMatch(/done job \d+: success after 2 turns/);
  });

  it("says what is missing: no store, no prompt, an unknown run", async () => {
    expect(
      (await runCli(["fleet", "status", "--redis", redis.url], dir, { UBIQUITY_FLEET_POSTGRES: "" })).stderr,
    ).toContain("--postgres");
    expect((await runCli(["fleet", "run", ...args], dir)).stderr).toContain("needs a prompt");
    expect((await runCli(["fleet", "run", ...args, "--attempts", "0", "x"], dir)).stderr).toContain(
      "--attempts must be a positive integer",
    );
    expect((await runCli(["worker", ...args, "--store-outage-timeout", "soon"], dir)).stderr).toContain(
      "--store-outage-timeout must be a positive integer",
    );
    const unknown = await runCli(["fleet", "logs", ...args, "999"], dir);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("no fleet run with id")]);
    // A job may not lift the worker's permissions unless the worker accepts that option.
    const lifted = await runCli(
      ["fleet", "run", ...args, "--cwd", dir, "--permission-mode", "plan", "--wait", "write the notes"],
      dir,
    );
    expect(lifted.code).toBe(1);
    expect(lifted.stderr).toMatch(
      /failed[\s\S]*does not accept the job option permissionMode[\s\S]*--accept-job-options/,
    );
  });
});
