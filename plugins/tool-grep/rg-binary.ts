/**
 * Finding a ripgrep that runs: the binary bundled by @vscode/ripgrep, else `rg` on PATH.
 * Probed once per process; undefined sends Grep to the pure-Node backend.
 */
import { execFile } from "node:child_process";

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
    execFile(path, ["--version"], { timeout: 10_000 }, (error) => resolve(!error));
  });
}
