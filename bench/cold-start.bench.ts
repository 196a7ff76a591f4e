/**
 * Cold start, whole process: `ubiquity run --model test "hi"` through the built bin, and a
 * one-line `summon()` program, against a script that only imports the AI SDK and zod — all on
 * the Node running the bench (the repo's pinned Node 24 under `npm run bench`). Wall time from
 * spawn to exit and peak RSS (`process.resourceUsage().maxRSS`, reported at exit by a one-line
 * `--import` that every command gets alike); medians of alternating rounds after a warm-up.
 * Needs a build (`npx unbuild`). Targets: ≤ 1.5× the baseline's wall time, ≤ 85 MiB peak.
 *
 * Then each built-in plugin's import cost: a process that has imported the package entry imports
 * one plugin module (`ubiquity/plugins/<name>`); the time and the RSS it adds, medians of
 * `COLD_PLUGIN_ROUNDS` [3] processes. What a plugin loads that the entry already has costs nothing
 * here, so the column says what each plugin itself brings to a cold start. The package build
 * merges the preset's plugins into shared chunks (build.config.ts), so there each plugin's module
 * loads all of them: the table is measured on a second build with rollup's own chunks, made for
 * it under node_modules/.cache (`UBIQUITY_CHUNKS=rollup`, ~10 s).
 *
 * Then the time from the `result` line to the process's exit (target ≤ 50 ms), for a run without
 * tools and for one whose scripted model runs one Bash command, against the floor of a process
 * that prints one line and ends.
 *
 * `COLD_ROUNDS=21` for more rounds on a busy machine. Each command runs in a fresh project folder with its own HOME (so the session files a run
 * writes land in a temp folder, and no user config applies).
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROUNDS = Number(process.env.COLD_ROUNDS ?? 11);
const TARGET_RATIO = 1.5;
const TARGET_MIB = 85;

// COLD_REPO=<checkout with a build> measures another build (e.g. the commit before a change).
const repo = process.env.COLD_REPO ?? join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(repo, "bin", "ubiquity.mjs");
const entry = pathToFileURL(join(repo, "dist", "sdk", "index.mjs")).href;

// Prints the peak RSS (KiB) and the CPU time (µs, user + system) on stderr as the process exits;
// the same for every command. CPU time moves less than wall time when the machine is busy.
const REPORT_RSS = `data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\n@maxrss="+u.maxRSS+" @cpu="+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;

/** One measured run: wall time, peak RSS, CPU time. */
export interface Sample {
  ms: number;
  kib: number;
  cpuMs: number;
}

/** One run of `args` under this Node: wall time and peak RSS; throws when it fails. */
export function measure(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--import", REPORT_RSS, ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      const kib = Number(/@maxrss=(\d+)/.exec(err)?.[1]);
      const cpuMs = Number(/@cpu=(\d+)/.exec(err)?.[1]) / 1000;
      if (code !== 0 || !Number.isFinite(kib))
        reject(new Error(`${args.join(" ")} exited ${code}: ${err.trim() || out.trim()}`));
      else resolve({ ms, kib, cpuMs });
    });
  });
}

/** One plugin module's import cost on top of the package entry, in a fresh process: ms and KiB of RSS. */
function pluginImportCost(
  from: string,
  plugin: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; kib: number }> {
  const script = `await import(${JSON.stringify(from)}); const rss = process.memoryUsage().rss; const t = performance.now();
await import(${JSON.stringify(plugin)}); console.log(JSON.stringify({ ms: performance.now() - t, kib: (process.memoryUsage().rss - rss) / 1024 }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as { ms: number; kib: number })
        : reject(new Error(`${plugin}: exited ${code}: ${err.trim()}`)),
    );
  });
}

/** A build of `repo` with rollup's own chunks (one per set of entries), for the per-plugin table: its folder. */
function unmergedBuild(): string {
  const out = join(repo, "node_modules", ".cache", "ubiquity-bench-unmerged");
  const built = spawnSync(process.execPath, [join(repo, "node_modules", "unbuild", "dist", "cli.mjs")], {
    cwd: repo,
    env: { ...process.env, UBIQUITY_CHUNKS: "rollup", UBIQUITY_BUILD_OUT: join(out, "dist") },
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`the build for the per-plugin table failed: ${built.stderr}`);
  return out;
}

/** Every built-in plugin's import cost over the entry, costliest first. */
async function pluginCosts(cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const rounds = Number(process.env.COLD_PLUGIN_ROUNDS ?? 3);
  const build = unmergedBuild();
  const buildEntry = pathToFileURL(join(build, "dist", "sdk", "index.mjs")).href;
  // Each plugin's public module (`ubiquity/plugins/<name>`): its factory and what it re-exports.
  const names = readdirSync(join(build, "dist", "plugins")).filter((name) =>
    existsSync(join(build, "dist", "plugins", name, "public.mjs")),
  );
  const rows: { name: string; ms: number; kib: number }[] = [];
  for (const name of names) {
    const url = pathToFileURL(join(build, "dist", "plugins", name, "public.mjs")).href;
    const samples = [];
    for (let i = 0; i < rounds; i++) samples.push(await pluginImportCost(buildEntry, url, cwd, env));
    rows.push({ name, ms: median(samples.map((s) => s.ms)), kib: median(samples.map((s) => s.kib)) });
  }
  rows.sort((a, b) => b.ms - a.ms);
  console.log(
    `\neach plugin's import on top of the entry, rollup's own chunks (median of ${rounds}; sum ${rows.reduce((n, r) => n + r.ms, 0).toFixed(0)} ms):`,
  );
  for (const { name, ms, kib } of rows)
    console.log(`  ${name.padEnd(24)} ${ms.toFixed(1).padStart(6)} ms  ${(kib / 1024).toFixed(1).padStart(5)} MiB`);
}

/** `COLD_ONLY=plugins`: the plugins' import costs alone. */
async function pluginCostsOnly(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ubiquity-bench-cold-")));
  try {
    await pluginCosts(root, { PATH: process.env.PATH, HOME: root, USERPROFILE: root, TERM: "dumb" });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Milliseconds from the `result` line on stdout to the process's exit: what a run holds after its
 * answer (timers, handles, flushes, teardown). `args` must print a stream-json result line.
 */
function resultToExit(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let resultAt: number | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
      if (resultAt === undefined && out.includes('"type":"result"')) resultAt = performance.now();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 && resultAt !== undefined
        ? resolve(performance.now() - resultAt)
        : reject(
            new Error(`${args.join(" ")} exited ${code} ${resultAt === undefined ? "without a result line" : ""}`),
          ),
    );
  });
}

/**
 * A project whose config's scripted model runs one Bash command, then answers: what a run holds
 * after a command (its drain, its process group) shows in its result-to-exit.
 */
function bashProject(root: string): string {
  const dir = join(root, "bash-project");
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(repo, join(dir, "node_modules", "ubiquity"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-bash", private: true, type: "module" }));
  writeFileSync(
    join(dir, "ubiquity.config.ts"),
    `import { defineConfig } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
export default defineConfig({
  model: scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "echo hi" } }] }, "done"]),
  permissionMode: "bypassPermissions",
});
`,
  );
  return dir;
}

/** Result-to-exit of `ubiquity run`, with and without a Bash command, against a process that prints one line and ends (the floor). */
async function exitFigures(root: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const bash = bashProject(root);
  const commands: [string, string[], string, NodeJS.ProcessEnv][] = [
    [
      "ubiquity run --output-format stream-json",
      [bin, "run", "--model", "test", "--output-format", "stream-json", "hi"],
      cwd,
      env,
    ],
    [
      "the same, after one Bash command",
      [bin, "run", "--output-format", "stream-json", "go"],
      bash,
      { ...env, UBIQUITY_TRUST: "1" },
    ],
    [
      "floor: node printing one line",
      ["-e", `console.log(${JSON.stringify(JSON.stringify({ type: "result" }))})`],
      cwd,
      env,
    ],
  ];
  const samples = commands.map(() => [] as number[]);
  for (let round = 0; round <= ROUNDS; round++)
    for (const [i, [, args, dir, vars]] of commands.entries()) {
      const ms = await resultToExit(args, dir, vars);
      if (round > 0) samples[i]!.push(ms); // round 0 warms up
    }
  console.log(`\nfrom the result line to exit (median of ${ROUNDS}; target ≤ 50 ms):`);
  for (const [i, [label]] of commands.entries())
    console.log(`  ${label.padEnd(40)} ${median(samples[i]!).toFixed(1).padStart(6)} ms`);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function coldStartBench(): Promise<void> {
  if (process.env.COLD_ONLY === "plugins") return pluginCostsOnly();
  if (!existsSync(join(repo, "dist", "runner", "cli.mjs"))) throw new Error("no build: run `npx unbuild` first");
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ubiquity-bench-cold-")));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, "src"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, "README.md"), "# a project\n");
  writeFileSync(join(project, "src", "index.ts"), "export const answer = 42;\n");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, USERPROFILE: home, TERM: "dumb" };
  const ai = import.meta.resolve("ai");
  const zod = import.meta.resolve("zod");
  const commands: [string, string[]][] = [
    ['ubiquity run --model test "hi"', [bin, "run", "--model", "test", "hi"]],
    [
      "summon() one-liner",
      [
        "--input-type=module",
        "-e",
        `import { summon } from ${JSON.stringify(entry)}; for await (const m of summon("hi", { model: "test" })) if (m.type === "result") console.log(m.result);`,
      ],
    ],
    [
      "baseline: import ai, zod",
      ["--input-type=module", "-e", `await import(${JSON.stringify(ai)}); await import(${JSON.stringify(zod)});`],
    ],
    ["ubiquity --version", [bin, "--version"]],
  ];
  try {
    console.log(
      `node ${process.version}, ${ROUNDS} rounds, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}, cwd ${project}`,
    );
    for (const [, args] of commands) await measure(args, project, env); // warm-up: file cache
    const samples = commands.map(() => [] as Sample[]);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order so every command sees the same machine load on average.
      const order = commands.map((_, i) => i);
      if (round % 2) order.reverse();
      for (const i of order) samples[i]!.push(await measure(commands[i]![1], project, env));
    }
    const figures = samples.map((s) => ({
      ms: median(s.map((x) => x.ms)),
      mib: median(s.map((x) => x.kib)) / 1024,
      cpu: median(s.map((x) => x.cpuMs)),
    }));
    const base = figures[2]!;
    for (const [i, [label]] of commands.entries()) {
      const { ms, mib, cpu } = figures[i]!;
      const ratio = ms / base.ms;
      const judged = i === 0 || i === 1;
      const over =
        judged && (ratio > TARGET_RATIO || mib > TARGET_MIB)
          ? `  (target ≤ ${TARGET_RATIO}× and ≤ ${TARGET_MIB} MiB)`
          : "";
      console.log(
        `${label.padEnd(32)} ${ms.toFixed(0).padStart(6)} ms  ${mib.toFixed(1).padStart(6)} MiB peak  ${ratio.toFixed(2)}× baseline   (cpu ${cpu.toFixed(0)} ms, ${(cpu / base.cpu).toFixed(2)}×)${over}`,
      );
    }
    await exitFigures(root, project, env);
    await pluginCosts(project, env);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
