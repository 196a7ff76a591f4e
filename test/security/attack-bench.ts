/**
 * The scaffolding a red team's file shares: fresh projects in temp folders (removed after the
 * file), bash itself as the oracle, the permission engine's verdict on one Bash command, and runs
 * through the built bin against the scripted attacker (a fake provider). Each file says what its
 * projects hold and which model and key its runs use.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { decidePermission, type PermissionMode } from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { requireDist, runCli } from "../helpers/project";
import { attacker, toolResults, type AttackCall } from "./scripted-attacker";

/** A project folder and the home its runs get. */
export interface AttackProject {
  cwd: string;
  home: string;
}

export interface AttackBenchOptions<O> {
  /** Names the temp folders (`ubq-<name>-ws-…`). */
  name: string;
  /** The model the bin runs with (`openai:…`: the fake provider speaks the OpenAI wire). */
  model: string;
  /** The provider key the bin's runs get (a test can look for it in what comes back). */
  key: string;
  /** Fill a fresh project. */
  fill: (p: AttackProject, options: O) => void;
}

const PATH = process.env.PATH ?? "/usr/bin:/bin";
const tools = new Map(builtinTools().map((t) => [t.name, t] as const));

/** The scaffolding of one red team's file; call it at the file's top level (it registers the file's hooks). */
export function attackBench<O extends object = Record<string, never>>(bench: AttackBenchOptions<O>) {
  const made: string[] = [];
  let server: FakeProviderServer | undefined;
  beforeAll(() => requireDist());
  afterAll(async () => {
    await server?.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  const temp = (prefix: string) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    made.push(dir);
    return dir;
  };

  /** A fresh project, filled by the file's `fill`. */
  const project = (options = {} as O): AttackProject => {
    const p = { cwd: temp(`ubq-${bench.name}-ws-`), home: temp(`ubq-${bench.name}-home-`) };
    bench.fill(p, options);
    return p;
  };

  /** What bash does with `command` in a project: stdout and stderr, and the project to look at afterwards. */
  const oracle = (command: string, p = project()) => {
    const run = spawnSync("bash", ["-c", command], { cwd: p.cwd, env: { PATH, HOME: p.home }, encoding: "utf8" });
    return { ...p, stdout: run.stdout, stderr: run.stderr };
  };

  /** The engine's verdict on one Bash command in a project. */
  const verdict = (
    command: string,
    mode: PermissionMode,
    rules: { allow?: string[]; deny?: string[] } = {},
    p = project(),
  ) =>
    decidePermission({
      toolName: "Bash",
      input: { command },
      rules,
      mode,
      cwd: p.cwd,
      home: p.home,
      tool: tools.get("Bash"),
    });

  /** Every one of `commands` gets `behavior` from the engine (the message names the command that did not). */
  const expectVerdicts = async (
    commands: readonly string[],
    behavior: "allow" | "ask" | "deny",
    ...args: Parameters<typeof verdict> extends [string, ...infer Rest] ? Rest : never
  ) => {
    for (const c of commands) {
      const d = await verdict(c, ...args);
      expect(d.behavior, `${c}: ${d.message}`).toBe(behavior);
    }
  };

  /** The fake provider answering with `script` (the one before it is closed). */
  const serve = async (script: Parameters<typeof startProviderServer>[0]) => {
    await server?.close();
    server = await startProviderServer(script);
    return server;
  };

  /** The bin's environment for a run in `p` against the current provider. */
  const env = (p: AttackProject) => ({ HOME: p.home, OPENAI_API_KEY: bench.key, OPENAI_BASE_URL: server!.baseURL });

  /** Run `calls` through the bin, one per model turn, in a project (stream-json): every call answered. */
  const attack = async (calls: AttackCall[], flags: string[], p = project()) => {
    await serve(attacker(calls));
    const run = await runCli(
      ["run", "--model", bench.model, "--output-format", "stream-json", ...flags, "do the task"],
      p.cwd,
      env(p),
    );
    expect(run.code, run.stderr).toBe(0);
    const out = toolResults(run.stdout);
    expect(out, run.stdout).toHaveLength(calls.length);
    return { ...p, run, out };
  };

  return { temp, project, oracle, verdict, expectVerdicts, serve, env, attack, server: () => server! };
}
