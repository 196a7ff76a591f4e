/**
 * The scaffolding a red team's file shares: fresh projects in temp folders (removed after the
 * file), bash itself as the oracle, the permission engine's verdict on one Bash command, and runs
 * through the built bin against the scripted attacker (a fake provider). Each file says what its
 * projects hold and which model and key its runs use.
 */
import { execFile, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { decidePermission, type PermissionMode } from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { trustCommand } from "../../runner/trust-command";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { withEnv } from "../helpers/env";
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

/**
 * `ubiquity trust .` in a project, done by the trust command itself (runner/trust-command.ts) in the
 * test's worker with HOME the project's home, as the bin has it: the same files found, digested and
 * stored in the same store. A bin run costs ~0.2 CPU-s and a process more each, and a red team
 * trusts before most of its attacks; the command through the bin is the subject of
 * test/security/trust-pinned, trust-store and untrusted-repo, which keep it. The worker loads the
 * default preset once, at the first call (~0.2 CPU-s).
 */
export async function trustNow(p: AttackProject): Promise<void> {
  const said: string[] = [];
  const io = { stdout: (t: string) => said.push(t), stderr: (t: string) => said.push(t) };
  const code = await withEnv({ HOME: p.home }, () => trustCommand.run({ values: {}, positionals: [p.cwd] }, io));
  expect(code, said.join("")).toBe(0);
}

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
  const attack = async (calls: AttackCall[], flags: string[], p = project(), more: Record<string, string> = {}) => {
    await serve(attacker(calls));
    const run = await runCli(
      ["run", "--model", bench.model, "--output-format", "stream-json", ...flags, "do the task"],
      p.cwd,
      { ...env(p), ...more },
    );
    expect(run.code, run.stderr).toBe(0);
    const out = toolResults(run.stdout);
    expect(out, run.stdout).toHaveLength(calls.length);
    return { ...p, run, out };
  };

  /**
   * Several cases' calls in one run of the bin (one project, one set of flags), for cases whose
   * calls change nothing a later call reads: `add`, at a describe's top level, takes a case's calls
   * (or a function of the project giving them) and returns what the case's test awaits: the run,
   * the project and that case's own tool results, in order. The first test to await starts the run
   * with every case added by then; `make` makes its project (a fresh one by default).
   */
  const batch = (flags: string[], make: () => AttackProject = () => project()) => {
    const cases: ((p: AttackProject) => AttackCall[])[] = [];
    let done: Promise<Awaited<ReturnType<typeof attack>> & { sizes: number[] }> | undefined;
    const start = async () => {
      const p = make();
      const calls = cases.map((c) => c(p));
      return { ...(await attack(calls.flat(), flags, p)), sizes: calls.map((c) => c.length) };
    };
    return {
      add(calls: AttackCall[] | ((p: AttackProject) => AttackCall[])) {
        const i = cases.push(typeof calls === "function" ? calls : () => calls) - 1;
        return async () => {
          done ??= start();
          const r = await done;
          const at = r.sizes.slice(0, i).reduce((a, b) => a + b, 0);
          return { ...r, out: r.out.slice(at, at + r.sizes[i]!) };
        };
      },
    };
  };

  /** `attack` in a project whose trust is pinned (UBIQUITY_TRUST unset): `ubiquity trust .` first unless `trust` is false. */
  const trustedAttack = async (calls: AttackCall[], flags: string[], p: AttackProject, trust = true) => {
    if (trust) await trustNow(p);
    return attack(calls, flags, p, { UBIQUITY_TRUST: "" });
  };

  /** A project whose settings run `command` as a PreToolUse hook for every tool, with scripts/guard.sh saying nothing. */
  const hookedProject = (command: string, options?: O) => {
    const p = project(options);
    mkdirSync(join(p.cwd, ".ubiquity"));
    mkdirSync(join(p.cwd, "scripts"));
    writeFileSync(join(p.cwd, "scripts", "guard.sh"), "#!/bin/sh\nexit 0\n");
    writeFileSync(
      join(p.cwd, ".ubiquity", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command }] }] } }),
    );
    return p;
  };

  return {
    temp,
    project,
    oracle,
    verdict,
    expectVerdicts,
    serve,
    env,
    attack,
    batch,
    trustedAttack,
    trustNow,
    hookedProject,
    server: () => server!,
  };
}

const REPO = join(import.meta.dirname, "..", "..");

/** Where a fake MCP server package is installed in a project (`npx -y @acme/mcp-weather` runs it). */
export const MCP_PACKAGE = join("node_modules", "@acme", "mcp-weather");
/** What that package's server holds as installed. */
export const MCP_SERVER = "#!/usr/bin/env node\n// the weather server as installed\n";

/** Install the fake MCP server package in `cwd`, as npm would: its folder, and its `.bin` link. */
export function installMcpPackage(cwd: string): void {
  mkdirSync(join(cwd, MCP_PACKAGE), { recursive: true });
  mkdirSync(join(cwd, "node_modules", ".bin"), { recursive: true });
  writeFileSync(
    join(cwd, MCP_PACKAGE, "package.json"),
    JSON.stringify({ name: "@acme/mcp-weather", version: "1.0.0", bin: { "mcp-weather": "index.js" } }),
  );
  writeFileSync(join(cwd, MCP_PACKAGE, "index.js"), MCP_SERVER, { mode: 0o755 });
  symlinkSync("../@acme/mcp-weather/index.js", join(cwd, "node_modules", ".bin", "mcp-weather"));
}

/**
 * The environment in which `cargo <args>` runs here (rustup's, with a toolchain in the user's real
 * home), or undefined when it does not: the cargo cases run only where cargo does.
 */
export function rustEnv(args: readonly string[]): NodeJS.ProcessEnv | undefined {
  const env = {
    PATH,
    HOME: homedir(),
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), ".rustup"),
    CARGO_HOME: process.env.CARGO_HOME ?? join(homedir(), ".cargo"),
  };
  return spawnSync("cargo", [...args], { env, encoding: "utf8" }).status === 0 ? env : undefined;
}

/**
 * What `npm i ubiquity` leaves in a project, from this checkout: the built package copied into
 * `<cwd>/node_modules/ubiquity`, its dependencies linked from this checkout's `node_modules` (the
 * ones in `copied` copied instead, for a test that changes them). Returns the installed bin.
 */
export function installUbiquityInto(cwd: string, copied: readonly string[] = []): string {
  const pkg = join(cwd, "node_modules", "ubiquity");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(REPO, "dist"), join(pkg, "dist"), { recursive: true });
  cpSync(join(REPO, "bin"), join(pkg, "bin"), { recursive: true });
  copyFileSync(join(REPO, "package.json"), join(pkg, "package.json"));
  for (const entry of readdirSync(join(REPO, "node_modules"))) {
    if (entry === ".bin" || entry === "ubiquity") continue;
    const [from, to] = [join(REPO, "node_modules", entry), join(cwd, "node_modules", entry)];
    if (copied.includes(entry)) cpSync(from, to, { recursive: true });
    else symlinkSync(from, to);
  }
  return join(pkg, "bin", "ubiquity.mjs");
}

/** One `run` of an installed bin in bypassPermissions against `model` (the provider's URL and key in `env`), stdin closed. */
export function runInstalled(
  bin: string,
  cwd: string,
  env: Record<string, string>,
  model = "openai:gpt-4.1",
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const args = [bin, "run", "--model", model, "--output-format", "stream-json"];
    const child = execFile(
      process.execPath,
      [...args, "--permission-mode", "bypassPermissions", "go"],
      { cwd, env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "1", ...env }, timeout: 240_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("");
  });
}
