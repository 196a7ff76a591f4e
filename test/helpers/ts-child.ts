import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// jiti runs a child's TypeScript straight from src/, so a child never sees a stale build.
const jitiCli = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");

/** Start a real Node process (the Node running the tests) on a TypeScript script; `env` adds variables. */
export function spawnTs(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [jitiCli, script, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
}
