/**
 * Finding a ripgrep that runs: the binary bundled by @vscode/ripgrep, else `rg` on PATH.
 * Probed once per process; undefined sends Grep to the pure-Node backend.
 */
import { lazyRequire } from "../_kits/lazy/index";
import { hostEnv } from "../_kits/process/index";

// node:child_process on first use: an ESM import of it loads net, dgram and perf code, which a
// run that spawns nothing never needs (cold start, bench/lean-profile.md).
const childProcess = lazyRequire<typeof import("node:child_process")>("node:child_process");

let probe: Promise<string | undefined> | undefined;

/** Path of a working ripgrep binary, or undefined when none runs here. */
export function findRipgrep(): Promise<string | undefined> {
  probe ??= (async () => {
    const bundled = await import("@vscode/ripgrep").then(
      (m) => m.rgPath,
      () => undefined,
    );
    for (const candidate of [bundled, "rg"]) {
      if (candidate && (await runs(candidate))) return candidate;
    }
    return undefined;
  })();
  return probe;
}

/** True when `path --version` exits 0. */
export function runs(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    childProcess().execFile(path, ["--version"], { timeout: 10_000, env: hostEnv() }, (error) => resolve(!error));
  });
}
