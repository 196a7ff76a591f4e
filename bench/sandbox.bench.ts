/**
 * Per-call cost of the sandbox: the Bash tool running `true` with the sandbox on (bubblewrap,
 * no network; then with the allow-list proxy, which adds socat) against the same tool without
 * it, alternating so both see the same machine load; the median of 60 calls each, after a
 * warm-up. Also bare `bwrap … /bin/true` for reference. Target: ≤ 15 ms added per call.
 *
 * The default sandbox (no `sandbox` option) is measured twice: in an empty folder, and in a clone
 * of this repository (its tracked files, ~400 folders, nested `.git` included), where the sweep
 * before and after each call stats every folder the walk found — the cost that grows with the
 * workspace.
 *
 * The socket filter's share: bare bwrap against the same started as the sandbox starts it now,
 * through the `/bin/sh` that opens the filter, with `--seccomp`.
 *
 * Then, per command on the peer task's checkout (bench/peers.bench.ts: 2,800 files in 28 folders),
 * where the time goes (`commandBreakdown`): the JS before the spawn (`wrap`: the first command of a
 * run, one with nothing changed, one after an Edit renamed a file into its folder), the parts of it
 * timed alone (the guard's first walk, the secret walk with and without its kept readings, the
 * system folders' walk with its cache file, the dependency closure), bubblewrap's own start (with
 * and without a network namespace, with 0–80 read-only binds, the runtime's argument list with and
 * without its masks of the system's private files, and handed its descriptors directly as the
 * Bash tool does, `passFds`, against the launcher: alone and with the `wrap` before it), and the
 * sweep after. CPU ms for JS (less moved
 * by the other helpers' load than wall), wall medians for spawns. `SANDBOX_BENCH=breakdown` runs only that part.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKernel, type ToolContext } from "../src/index";
import type { SandboxOption } from "../plugins/sandbox/index";
import sandbox, { getSandboxApi, type SpawnSpec } from "../plugins/sandbox/index";
import { withDescriptors } from "../plugins/_kits/process/index";
import { sandboxAvailability } from "../plugins/sandbox/availability";
import { BashTool } from "../plugins/tool-bash/index";
import { FILTER_FD, socketFilter } from "../plugins/sandbox/seccomp";
import { FOLDER_FD_BASE, folderLaunch, pinFolder, unpin } from "../plugins/sandbox/pin";
import { PRIVATE_WALK_ROOTS, privateSystemPaths, SECRET_PATTERNS, secretPaths } from "../plugins/sandbox/secrets";
import { SecretWalk } from "../plugins/sandbox/secret-walk";
import { WorkspaceGuard } from "../plugins/sandbox/guard";
import { ownModuleFolders } from "../loader/index";

const CALLS = 60;

function context(cwd: string, id: string): ToolContext {
  const quiet = () => {};
  return {
    cwd,
    roots: [cwd],
    abortSignal: new AbortController().signal,
    sessionId: "bench",
    toolUseId: id,
    env: {},
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function timeCalls(pairs: [string, () => Promise<unknown> | unknown][]): Promise<Record<string, number>> {
  for (const [, fn] of pairs) await fn();
  const times: Record<string, number[]> = Object.fromEntries(pairs.map(([n]) => [n, []]));
  for (let i = 0; i < CALLS; i++) {
    const order = i % 2 ? [...pairs].reverse() : pairs;
    for (const [name, fn] of order) {
      const started = performance.now();
      await fn();
      times[name]!.push(performance.now() - started);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([n, xs]) => [n, median(xs)]));
}

export default async function bench(): Promise<void> {
  const found = sandboxAvailability();
  if (!found.ok) {
    console.log(`skipped: ${found.reason}`);
    return;
  }
  if (process.env.SANDBOX_BENCH !== "breakdown") await perCall(found);
  await commandBreakdown(found.program!);
}

async function perCall(found: ReturnType<typeof sandboxAvailability>): Promise<void> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bench-home-")));
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bench-ws-")));
  const savedHome = process.env.HOME;
  process.env.HOME = home;
  try {
    const plain = new BashTool();
    const kernels = [];
    const tools: Record<string, BashTool> = {};
    const repo = join(ws, "..", `${ws.split("/").pop()}-repo`);
    execFileSync("git", ["clone", "-q", "--no-hardlinks", join(import.meta.dirname, ".."), repo]);
    const folders = Number(
      execFileSync("find", [repo, "-type", "d"], { encoding: "utf8" }).split("\n").filter(Boolean).length,
    );
    const variants: [string, SandboxOption | undefined, string][] = [
      ["sandboxed", true, ws],
      ["sandboxed + proxy", { network: { allowedDomains: ["example.com"] } }, ws],
      ["default sandbox", undefined, ws],
      [`default sandbox, repo clone (${folders} folders)`, undefined, repo],
    ];
    const cwdOf: Record<string, string> = {};
    for (const [name, option, cwd] of variants) {
      const kernel = createKernel({ plugins: [sandbox()], cwd, ...(option === undefined ? {} : { sandbox: option }) });
      await kernel.ready();
      kernels.push(kernel);
      tools[name] = new BashTool(getSandboxApi(kernel));
      cwdOf[name] = cwd;
    }
    let n = 0;
    const call =
      (tool: BashTool, cwd = ws) =>
      () =>
        tool.call({ command: "true" }, context(cwd, `b${n++}`));
    const bare = [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--",
      "/bin/true",
    ];
    const filterFile = join(ws, "..", `${ws.split("/").pop()}.bpf`);
    writeFileSync(filterFile, socketFilter("blocked") ?? Buffer.alloc(0));
    // The launcher every sandboxed spawn has (pin.ts): bash opening the filter and the workspace's descriptor for bwrap.
    const pin = pinFolder(ws)!;
    const launched = folderLaunch(
      [pin],
      [],
      [found.program!, "--seccomp", String(FILTER_FD), "--bind-fd", String(FOLDER_FD_BASE), ws, ...bare],
      filterFile,
    );
    const result = await timeCalls([
      ["unsandboxed", call(plain)],
      ["sandboxed", call(tools.sandboxed!)],
      ["sandboxed + proxy", call(tools["sandboxed + proxy"]!)],
      ...variants.slice(2).map(([name]) => [name, call(tools[name]!, cwdOf[name])] as [string, () => Promise<unknown>]),
      ["spawnSync /bin/true", () => spawnSync("/bin/true")],
      ["spawnSync bwrap … /bin/true", () => spawnSync(found.program!, bare)],
      ["spawnSync launcher + bwrap", () => spawnSync(launched.command, launched.args)],
    ]);
    unpin(pin);
    rmSync(filterFile, { force: true });
    for (const [name, ms] of Object.entries(result))
      console.log(`${name.padEnd(30)} ${ms.toFixed(1)} ms (median of ${CALLS})`);
    console.log(
      `sandbox overhead per Bash call: ${(result.sandboxed! - result.unsandboxed!).toFixed(1)} ms (with the proxy: ${(result["sandboxed + proxy"]! - result.unsandboxed!).toFixed(1)} ms); bare bwrap: ${(result["spawnSync bwrap … /bin/true"]! - result["spawnSync /bin/true"]!).toFixed(1)} ms; target ≤ 15 ms`,
    );
    console.log(
      `launcher (bash opening the filter and a folder's descriptor) + --seccomp + --bind-fd over bare bwrap: ${(result["spawnSync launcher + bwrap"]! - result["spawnSync bwrap … /bin/true"]!).toFixed(1)} ms`,
    );
    for (const [name] of variants.slice(2))
      console.log(
        `${name}: ${(result[name]! - result.unsandboxed!).toFixed(1)} ms per call over unsandboxed; target ≤ 15 ms`,
      );
    for (const k of kernels) await k.dispose();
    rmSync(repo, { recursive: true, force: true });
    systemWalkFigures(home);
  } finally {
    process.env.HOME = savedHome;
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The walk for what of the system's folders not everyone may read (a run's first sandboxed
 * command pays it): CPU ms without the cache (a first run, or a new HOME) and with it.
 */
function systemWalkFigures(home: string): void {
  const cache = join(home, "system-private.json");
  const cpu = (f: () => unknown) => {
    const started = process.cpuUsage();
    f();
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  const cold: number[] = [];
  const warm: number[] = [];
  let found = 0;
  for (let i = 0; i < 5; i++) {
    rmSync(cache, { force: true });
    cold.push(cpu(() => (found = privateSystemPaths([home], { cache }).length)));
    warm.push(cpu(() => privateSystemPaths([home], { cache })));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2]!.toFixed(1);
  console.log(
    `system folders' private paths (${PRIVATE_WALK_ROOTS.join(", ")}: ${found} found): ${median(cold)} ms CPU without the cache, ${median(warm)} ms with it (medians of 5)`,
  );
}

/** CPU ms of `f`, this process's and its reaped children's (/proc/self/stat cutime + cstime, in 10 ms ticks). */
function cpuWithChildrenMs(f: () => unknown): number {
  const childTicks = () =>
    readFileSync("/proc/self/stat", "utf8")
      .split(") ")[1]!
      .split(" ")
      .slice(13, 15)
      .reduce((sum, t) => sum + Number(t), 0);
  const started = childTicks();
  const own = cpuMs(f);
  return own + (childTicks() - started) * 10;
}

/** CPU ms of `f` (user + system of this process). */
function cpuMs(f: () => unknown): number {
  const started = process.cpuUsage();
  f();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** The peer task's checkout (bench/peers.bench.ts's generator): `files` modules in 100-file packages. */
function checkout(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = join(root, "src", `pkg-${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `module-${i % 100}.ts`), `export function helper${i}(): number {\n  return 0;\n}\n`);
  }
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "checkout", private: true }));
}

/** Where one sandboxed command's time goes on the peer task's checkout (see the file comment). */
async function commandBreakdown(bwrap: string): Promise<void> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bench-home-")));
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bench-ws-")));
  const savedHome = process.env.HOME;
  process.env.HOME = home;
  const rows: [string, string][] = [];
  try {
    checkout(ws, 2800);
    // Older than the secret walk's racy window, as a checkout is by its first command.
    await new Promise((r) => setTimeout(r, 100));
    const spec = { command: "bash", args: ["-c", "true"], cwd: ws, env: { PATH: process.env.PATH } };
    let n = 0;
    const run = async () => {
      const kernel = createKernel({ plugins: [sandbox()], cwd: ws });
      await kernel.ready();
      const api = getSandboxApi(kernel);
      return {
        kernel,
        wrap: () => api.wrap(spec, { kind: "bash", subject: "true", toolUseId: `w${n++}` }),
        direct: () => api.wrap(spec, { kind: "bash", subject: "true", toolUseId: `w${n++}`, passFds: true }),
      };
    };
    // The process's one-time work (the dependency closure) falls on the first run; find runs at each run's first command.
    const warm = await run();
    rows.push([
      "wrap: first command of the process (cold caches; find's CPU counted)",
      cpuWithChildrenMs(warm.wrap).toFixed(1),
    ]);
    await warm.kernel.dispose();
    const { kernel, wrap, direct } = await run();
    rows.push(["wrap: first command of a run (find's CPU counted)", cpuWithChildrenMs(wrap).toFixed(1)]);
    cpuMs(wrap); // the placeholders the first made changed the workspace's top folder
    const still: number[] = [];
    const edited: number[] = [];
    const target = join(ws, "src", "pkg-3", "module-5.ts");
    for (let i = 0; i < 21; i++) {
      still.push(cpuMs(wrap));
      // What the Edit tool does: a temp file renamed over the file (its folder changes).
      writeFileSync(`${target}.tmp`, "export {};\n");
      renameSync(`${target}.tmp`, target);
      edited.push(cpuMs(wrap));
    }
    rows.push(["wrap: nothing changed since the last command", median(still).toFixed(2)]);
    rows.push(["wrap: after an Edit (one folder changed)", median(edited).toFixed(2)]);
    const wrapped = wrap();
    // The parts, each alone.
    const guard = new WorkspaceGuard([ws], () => join(home, "q"));
    rows.push(["guard: first walk of the workspace", cpuMs(() => guard.protectedPaths()).toFixed(1)]);
    rows.push(["guard: sweep, nothing changed", cpuMs(() => guard.sweep()).toFixed(2)]);
    const input = { home, roots: [ws], readRules: [], denyRead: [], cwd: ws };
    rows.push([
      "secrets: a whole walk (before: at every change, by the glob and a link walk)",
      median([1, 2, 3, 4, 5].map(() => cpuMs(() => secretPaths(input)))).toFixed(2),
    ]);
    const kept = new SecretWalk(SECRET_PATTERNS);
    secretPaths({ ...input, walk: kept });
    rows.push([
      "secrets: the walk with its kept readings, one folder changed",
      median(
        [1, 2, 3, 4, 5].map(() => {
          writeFileSync(`${target}.tmp`, "export {};\n");
          renameSync(`${target}.tmp`, target);
          return cpuMs(() => secretPaths({ ...input, walk: kept }));
        }),
      ).toFixed(2),
    ]);
    const cache = join(home, ".ubiquity", "cache", "system-private.json");
    privateSystemPaths([ws, home], { cache, find: false });
    rows.push([
      `system folders' walk in Node, cache file kept (uid ${process.getuid?.()}: root stats every public file)`,
      cpuMs(() => privateSystemPaths([ws, home], { cache, find: false })).toFixed(1),
    ]);
    rows.push([
      "system folders' walk by find(1) (what a run does; with find's own CPU)",
      cpuWithChildrenMs(() => privateSystemPaths([ws, home])).toFixed(1),
    ]);
    // Kept per HOME in the process: another HOME's is worked out afresh.
    rows.push([
      "ubiquity's dependency closure (once a process)",
      cpuMs(() => ownModuleFolders(join(home, "other"))).toFixed(1),
    ]);
    for (const [what, ms] of rows) console.log(`${what.padEnd(78)} ${ms} ms CPU`);
    // While the run holds the folders the launcher reopens by descriptor.
    spawnFigures(bwrap, wrapped, ws, { wrap, direct });
    await kernel.dispose();
  } finally {
    process.env.HOME = savedHome;
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** bubblewrap's own start: namespaces, binds, and the runtime's whole spawn (wall medians, interleaved). */
function spawnFigures(
  bwrap: string,
  wrapped: { command: string; args: string[]; env?: Record<string, string | undefined> },
  ws: string,
  wraps: { wrap: () => SpawnSpec; direct: () => SpawnSpec },
): void {
  const mask = join(ws, "..", `${ws.split("/").pop()}-mask`);
  writeFileSync(mask, "");
  const targets = Array.from({ length: 80 }, (_, i) => join(ws, "src", "pkg-0", `module-${i}.ts`));
  const base = [
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--ro-bind",
    "/etc",
    "/etc",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    ws,
    ws,
  ];
  const binds = (k: number) => targets.slice(0, k).flatMap((t) => ["--ro-bind", mask, t]);
  const at = wrapped.args.indexOf(bwrap);
  const end = wrapped.args.indexOf("--", at);
  // The runtime's list without its masks of the system's private files (laid from its unreadable file/folder).
  const unmasked = wrapped.args.filter(
    (a, i, all) =>
      !(
        /\/unreadable(\.d)?$/.test(a) ||
        /\/unreadable(\.d)?$/.test(all[i - 1] ?? "") ||
        (a === "--ro-bind" && /\/unreadable(\.d)?$/.test(all[i + 1] ?? ""))
      ),
  );
  const masks = wrapped.args.slice(at, end).filter((a) => /\/unreadable(\.d)?$/.test(a)).length;
  const env = wrapped.env as NodeJS.ProcessEnv;
  const directOnce = wraps.direct();
  const spawnWrapped = (w: SpawnSpec) => {
    try {
      return spawnSync(w.command, w.args, { env, stdio: withDescriptors(["ignore", "pipe", "pipe"], w.fds) });
    } finally {
      w.release?.();
    }
  };
  const variants: [string, () => unknown][] = [
    ["bash -c true (no sandbox)", () => spawnSync("/bin/bash", ["-c", "true"])],
    ["bwrap, shared namespaces but mount", () => spawnSync(bwrap, [...base, "--", "/bin/true"])],
    [
      "bwrap --unshare-all --share-net",
      () => spawnSync(bwrap, [...base, "--unshare-all", "--share-net", "--", "/bin/true"]),
    ],
    [
      "bwrap --unshare-all (a network namespace)",
      () => spawnSync(bwrap, [...base, "--unshare-all", "--", "/bin/true"]),
    ],
    [
      "bwrap --unshare-all, 20 read-only binds",
      () => spawnSync(bwrap, [...base, "--unshare-all", ...binds(20), "--", "/bin/true"]),
    ],
    [
      "bwrap --unshare-all, 40 read-only binds",
      () => spawnSync(bwrap, [...base, "--unshare-all", ...binds(40), "--", "/bin/true"]),
    ],
    [
      "bwrap --unshare-all, 80 read-only binds",
      () => spawnSync(bwrap, [...base, "--unshare-all", ...binds(80), "--", "/bin/true"]),
    ],
    [
      `the runtime's spawn (bash -c true; ${(end - at) >> 0} bwrap arguments)`,
      () => spawnSync(wrapped.command, wrapped.args, { env }),
    ],
    [`the same without its ${masks} masks of system files`, () => spawnSync(wrapped.command, unmasked, { env })],
    // The same list handed its descriptors by this process (no launcher bash); the filter reopened each time, as wrap does.
    [
      "the runtime's spawn, descriptors handed directly (passFds)",
      () => {
        const filter = openSync(`/proc/self/fd/${directOnce.fds![FILTER_FD]}`, "r");
        const fds = directOnce.fds!.map((fd, n) => (n === FILTER_FD ? filter : fd));
        try {
          return spawnSync(directOnce.command, directOnce.args, {
            env,
            stdio: withDescriptors(["ignore", "pipe", "pipe"], fds),
          });
        } finally {
          closeSync(filter);
        }
      },
    ],
    ["wrap + spawn, through the launcher", () => spawnWrapped(wraps.wrap())],
    ["wrap + spawn, descriptors handed directly (passFds)", () => spawnWrapped(wraps.direct())],
  ];
  for (const [name, f] of variants) {
    const r = f() as { status: number | null; stderr?: Buffer };
    if (r.status !== 0) throw new Error(`${name}: exit ${r.status}: ${r.stderr}`);
  }
  const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let i = 0; i < CALLS; i++)
    for (const [name, f] of i % 2 ? [...variants].reverse() : variants) {
      const started = performance.now();
      f();
      times.get(name)!.push(performance.now() - started);
    }
  for (const [name, xs] of times) console.log(`${name.padEnd(78)} ${median(xs).toFixed(1)} ms wall`);
  directOnce.release?.();
  rmSync(mask, { force: true });
}
