import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";

/**
 * What starts Node on a TypeScript file of this repository, run from its sources (never a stale
 * build): `[process.execPath, ...tsNodeArgs, script, ...args]`. See ts-loader.mjs.
 */
export const tsNodeArgs = ["--import", join(import.meta.dirname, "ts-loader.mjs")];

/** Start a real Node process (the Node running the tests) on a TypeScript script; `env` adds variables. */
export function spawnTs(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...tsNodeArgs, script, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
}
