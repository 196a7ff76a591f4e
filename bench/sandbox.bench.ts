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
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKernel, type ToolContext } from "../src/index";
import type { SandboxOption } from "../plugins/sandbox/index";
import sandbox, { getSandboxApi } from "../plugins/sandbox/index";
import { sandboxAvailability } from "../plugins/sandbox/availability";
import { BashTool } from "../plugins/tool-bash/index";
import { FILTER_FD, socketFilter } from "../plugins/sandbox/seccomp";
import { FOLDER_FD_BASE, folderLaunch, pinFolder, unpin } from "../plugins/sandbox/pin";
import { PRIVATE_WALK_ROOTS, privateSystemPaths } from "../plugins/sandbox/secrets";

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
