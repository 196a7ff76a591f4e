/**
 * What a newcomer's trial (zf, 2026-12-07: a developer hands Ubiquity a long refactor over many
 * runs of one session — a todo list, a dev server in the background, a long command interrupted by
 * SIGTERM and Ctrl-C, a SIGKILLed run, `--continue` the next day, `/compact` before going on,
 * `ubiquity sessions show` for what the whole thing cost; the packed package in an empty project,
 * a scripted model in its config) met:
 * - SIGTERM (a CI job cancelled, `timeout`, a laptop's session manager) or Ctrl-C in the middle of a
 *   Bash call ended the process with 143 (130) and nothing more: no `result` line (the runner's
 *   promise: "its result printed"), the call never answered in the transcript, the session's lock
 *   left behind. The runner's listener was a `once`, gone by the time the process kit's own
 *   listener (there while a command runs) looked whether anyone else handles the signal; finding
 *   none, it killed the program. The run now ends in order: the call answered "[Aborted: …]", the
 *   result `error_during_execution` printed with its cost, the transcript closed, the lock removed;
 * - the next day, `--continue` and BashOutput on the dev server's `shell-1` (in the model's history,
 *   "Started in the background as shell-1") answered "None was started in this session", which
 *   it had been: the message now says a task ends with the run that started it, its output with
 *   it, and to start it again;
 * - `ubiquity -p --continue "/compact"` (Claude Code's `-p` and its Agent SDK compact on it) sent
 *   the word to the model, a paid turn that compacted nothing, with a warning that named no way to
 *   compact: the warning for `/compact` (and `/clear`, `/cost`, `/resume`, `/rewind`, `/tasks`) in a
 *   run now says what does its work here (compaction runs by itself; `compactThreshold`);
 * - the cost of the whole refactor was nowhere: each run's result has its own run's cost (a
 *   resumed run's covers that run alone), `sessions list` and `show` none. `sessions show` now ends
 *   each run's line with its cost and gives the session's total in its header, saying how many
 *   prompts ended without a result (a SIGKILLed run records no cost, so the total is a floor).
 * - a run SIGKILLed while a background agent worked (the laptop's process killed), resumed: the
 *   model's history said "You will be told when it finishes, with its reply … do not redo its work",
 *   and nothing said the agent was gone with the process. The resumed session's first prompt now
 *   names each task of an earlier run the model never heard end, and that its reply will not come.
 * - `ubiquity rewind` listed whole uuids, and `--to` with the start of one (what `/rewind` takes since
 *   trial za, as git takes a short hash) ended "has no message or checkpoint": it now takes it too.
 * Noticed and left: `npx ubiquity …` given SIGTERM (npm exec's process, what a process manager that
 * started `npx ubiquity` signals) dies without passing it on, and the run goes on orphaned: npm's
 * behaviour — run the bin itself (`node_modules/.bin/ubiquity`) under a supervisor. And `sessions
 * show` pairs calls with results by `toolUseId`, which the scripted model repeats in every run
 * (`call_0_0`): a killed run's unanswered call showed a later run's result.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { requireDist } from "../helpers/project";

interface Line {
  type: string;
  subtype?: string;
  toolName?: string;
  output?: { content: string; isError: boolean };
  totalCostUsd?: number | null;
  sessionId?: string;
}

// The developer's config: one script per step of the day, picked by ZF_STEP.
const CONFIG = `import { defineConfig } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
const scripts = {
  start: [
    { toolCalls: [
      { toolName: "TodoWrite", input: { todos: [
        { content: "rename the parser module", status: "in_progress", activeForm: "renaming" },
        { content: "update the imports", status: "pending", activeForm: "updating" } ] } },
      { toolName: "Bash", input: { command: "while true; do echo tick; sleep 1; done", run_in_background: true, description: "dev server" } },
    ] },
    { toolCalls: [{ toolName: "Bash", input: { command: "echo up > long-started; exec sleep 600", description: "the slow test suite" } }] },
    { text: "never reached" },
  ],
  output: [{ toolCalls: [{ toolName: "BashOutput", input: { bash_id: "shell-1" } }] }, { text: "the server is gone" }],
  compact: [{ text: "a paid answer to the word /compact" }],
};
export default defineConfig({
  model: scriptedModel(scripts[process.env.ZF_STEP]),
  modelPricing: { scripted: { input: 3, output: 15 } },
});
`;

let app: string | undefined;
/** The trial's project: the packed package and the config, nothing else. */
function project(): string {
  if (app) return app;
  app = tempDir("ubiquity-trial-zf-");
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "refactor", private: true, type: "module" }));
  installPacked(app);
  writeFileSync(join(app, "ubiquity.config.mjs"), CONFIG);
  return app;
}

const home = () => (homeDir ??= tempDir("ubiquity-trial-zf-home-"));
let homeDir: string | undefined;
const sessions = () => (sessionsDir ??= tempDir("ubiquity-trial-zf-sessions-"));
let sessionsDir: string | undefined;

/** The packed bin in the project, as `node_modules/.bin/ubiquity` runs it. */
function start(step: string, args: string[]): ChildProcess {
  const dir = project();
  return spawn(
    process.execPath,
    [
      join(dir, "node_modules", "ubiquity", "bin", "ubiquity.mjs"),
      ...(args[0] === "sessions" || args[0] === "rewind" ? [] : ["--trust"]),
      ...args,
      "--session-dir",
      sessions(),
    ],
    {
      cwd: dir,
      env: { ...process.env, HOME: home(), ZF_STEP: step, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run to the end; `signal` is sent once `marker` exists in the project (the command is running). */
function finish(child: ChildProcess, interrupt?: { marker: string; signal: NodeJS.Signals }): Promise<Ended> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const ended = new Promise<Ended>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  if (interrupt) {
    const marker = join(project(), interrupt.marker);
    void (async () => {
      // Waits for the file the command writes (or the run's end, which the assertions then catch).
      while (!existsSync(marker) && child.exitCode === null && child.signalCode === null)
        await new Promise((r) => setTimeout(r, 25));
      child.kill(interrupt.signal);
    })();
  }
  return ended;
}

function lines(stdout: string): Line[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);
}

/** The session's transcript folder (one project, so one slug folder). */
function transcriptFiles(): string[] {
  const [slug] = readdirSync(sessions());
  return slug ? readdirSync(join(sessions(), slug)).map((f) => join(sessions(), slug, f)) : [];
}

beforeAll(() => requireDist());
afterAll(() => removePackedDirs());

describe("a long refactor over one session", () => {
  const results: Line[] = [];

  for (const [signal, exit, why] of [
    ["SIGTERM", 143, "terminated (SIGTERM)"],
    ["SIGINT", 130, "interrupted (Ctrl-C)"],
  ] as const)
    it(`${signal} in the middle of a Bash call ends the run in order: the call answered, the result printed, the lock gone`, async () => {
      const marker = "long-started";
      const first = signal === "SIGTERM";
      // The command writes the marker once it runs; the second run continues the session.
      rmSync(join(project(), marker), { force: true });
      const args = ["-p", "--dangerously-skip-permissions", "--output-format", "stream-json"];
      const run = await finish(
        start("start", first ? [...args, "refactor the parser"] : [...args, "--continue", "go on"]),
        {
          marker,
          signal,
        },
      );
      expect(run.code, run.stderr).toBe(exit);
      const out = lines(run.stdout);
      const answered = out.find(
        (l) => l.type === "tool_result" && l.toolName === "Bash" && l.output?.content.includes("Aborted"),
      );
      expect(answered?.output?.content).toContain("[Aborted: the run was cancelled");
      const result = out.at(-1);
      expect(result).toMatchObject({
        type: "result",
        subtype: "error_during_execution",
        result: `Run aborted: ${why}`,
      });
      expect(typeof result?.totalCostUsd).toBe("number");
      results.push(result!);
      // The transcript has the answer and the result; no lock is left for the next run to take over.
      const files = transcriptFiles();
      expect(files.filter((f) => f.endsWith(".lock"))).toEqual([]);
      const records = readFileSync(files.find((f) => f.endsWith(".jsonl"))!, "utf8");
      expect(records).toContain(`Run aborted: ${why}`);
    });

  it("the next day, BashOutput on the dev server started before the resume says it ended with its run", async () => {
    const run = await finish(
      start("output", ["-p", "--output-format", "stream-json", "--continue", "is the server up?"]),
    );
    expect(run.code, run.stderr).toBe(0);
    const said = lines(run.stdout).find((l) => l.type === "tool_result" && l.toolName === "BashOutput");
    expect(said?.output?.content).toContain('There is no background shell "shell-1"');
    expect(said?.output?.content).not.toContain("None was started in this session");
    expect(said?.output?.content).toContain("ends with the run (or live session) that started it");
    expect(said?.output?.content).toContain("start it again");
    results.push(lines(run.stdout).at(-1)!);
  });

  it('`-p --continue "/compact"` says how a run compacts here', async () => {
    const run = await finish(start("compact", ["-p", "--output-format", "stream-json", "--continue", "/compact"]));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("/compact is a command of the terminal mode");
    expect(run.stderr).toContain("a run compacts by itself when its context fills");
    expect(run.stderr).toContain("compactThreshold");
    results.push(lines(run.stdout).at(-1)!);
  });

  it("`sessions show` gives each run's cost and the session's total, counting a SIGKILLed run as unrecorded", async () => {
    rmSync(join(project(), "long-started"), { force: true });
    const killed = await finish(
      start("start", [
        "-p",
        "--dangerously-skip-permissions",
        "--output-format",
        "stream-json",
        "--continue",
        "once more",
      ]),
      { marker: "long-started", signal: "SIGKILL" },
    );
    expect(killed.signal).toBe("SIGKILL");
    const sessionId = results[0]!.sessionId!;
    expect(results.every((r) => r.sessionId === sessionId)).toBe(true);
    const show = await finish(start("compact", ["sessions", "show", sessionId]));
    expect(show.code, show.stderr).toBe(0);
    const total = results.reduce((sum, r) => sum + (r.totalCostUsd as number), 0);
    expect(show.stdout).toContain(
      `  cost     $${total.toFixed(4)} over ${results.length} runs; 1 prompt ended without a result (the run was killed), its spend not recorded`,
    );
    for (const r of results) expect(show.stdout).toContain(` · $${(r.totalCostUsd as number).toFixed(4)}\n`);
  });
});

// A program of the developer's on summon(): a background reviewer agent, then (resumed) a question.
const AGENT_PROGRAM = `import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
const resume = process.argv[2];
const model = resume
  ? scriptedModel([{ text: "going on" }])
  : scriptedModel([
      { toolCalls: [{ toolName: "Agent", input: { subagent_type: "reviewer", description: "review the parser", prompt: "review src", run_in_background: true, name: "rev" } }] },
      { text: "waiting for the review" },
      { toolCalls: [{ toolName: "Bash", input: { command: "echo > agent-running; exec sleep 600" } }] },
      { text: "never" },
    ]);
const query = summon(resume ? "where is the review?" : "refactor with a reviewer", {
  model,
  ...(resume ? { resume } : {}),
  permissionMode: "bypassPermissions",
  agents: { reviewer: { description: "Reviews code", prompt: "You review" } },
});
for await (const m of query) if (m.type === "system" && m.subtype === "init" && !m.agentId) console.log("session", m.sessionId);
if (resume) console.log("told", JSON.stringify(model.requests.at(-1).prompt.at(-1)));
`;

describe("a background agent when the laptop's process was killed", () => {
  it("the resumed session's first prompt says the agent is gone and its reply will not come", async () => {
    const dir = project();
    writeFileSync(join(dir, "review.mjs"), AGENT_PROGRAM);
    rmSync(join(dir, "agent-running"), { force: true });
    const env = { ...process.env, HOME: home(), DEBUG: "", NO_COLOR: "1" };
    const first = spawn(process.execPath, ["review.mjs"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    const killed = await finish(first, { marker: "agent-running", signal: "SIGKILL" });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const sessionId = /session (\S+)/.exec(killed.stdout)?.[1];
    expect(sessionId).toBeDefined();
    const second = spawn(process.execPath, ["review.mjs", sessionId!], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const resumed = await finish(second);
    expect(resumed.code, resumed.stderr).toBe(0);
    const told = JSON.parse(/told (.*)/.exec(resumed.stdout)![1]!) as { content: { text: string }[] };
    const text = told.content.map((p) => p.text).join("\n");
    expect(text).toContain("- agent-1 (started by an earlier run of this session) ended with that run");
    expect(text).toContain("its reply (none will come)");
    expect(text).toContain("where is the review?");
  });
});

// Checkpoints on; the file's name is built, so the config names no file of the project.
const CHECKPOINT_CONFIG = `import { defineConfig } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
const file = ["src", "parser.js"].join("/");
export default defineConfig({
  checkpoints: true,
  model: scriptedModel([
    { toolCalls: [{ toolName: "Read", input: { file_path: file } }] },
    { toolCalls: [{ toolName: "Write", input: { file_path: file, content: "export const v = 2;\\n" } }] },
    { text: "renamed" },
  ]),
});
`;

describe("ubiquity rewind", () => {
  it("--to takes the start of a listed checkpoint's uuid, as /rewind does", async () => {
    const dir = project();
    writeFileSync(join(dir, "ck.config.mjs"), CHECKPOINT_CONFIG);
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "src", "parser.js"), "export const v = 1;\n");
    const config = ["--config", "ck.config.mjs"];
    const run = await finish(start("none", ["-p", "--dangerously-skip-permissions", ...config, "rename it"]));
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, "src", "parser.js"), "utf8")).toBe("export const v = 2;\n");
    const list = await finish(start("none", ["rewind", ...config]));
    expect(list.code, list.stderr).toBe(0);
    const uuid = /^ {2}([0-9a-f-]{36}) /m.exec(list.stdout)?.[1];
    expect(uuid, list.stdout).toBeDefined();
    const rewound = await finish(start("none", ["rewind", ...config, "--to", uuid!.slice(0, 8), "--yes"]));
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain(`Checkpoint ${uuid}`);
    expect(readFileSync(join(dir, "src", "parser.js"), "utf8")).toBe("export const v = 1;\n");
  });
});
