/**
 * The bash grammar stays on V8's baseline wasm code (plugins/permissions/shell/parser.ts): a
 * process that parses 1,000 compound commands peaks far below the ~575 MB that V8's optimizing
 * recompilation of the grammar costs. The peak is the child's own (`/usr/bin/time -f %M`). With
 * UBIQUITY_WASM_TIERING=default the same child peaks at ~575 MB (bench/parser-tiering.bench.ts);
 * that side is not asserted here, since when the background recompilation finishes depends on load.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tsNodeArgs } from "../helpers/ts-child";

const fixture = join(import.meta.dirname, "fixtures", "parse-many.ts");

function peakMb(env: Record<string, string>): number {
  const run = spawnSync("/usr/bin/time", ["-f", "peak %M", process.execPath, ...tsNodeArgs, fixture], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  expect(run.stdout).toBe("parsed\n");
  return Math.round(Number(/peak (\d+)/.exec(run.stderr)![1]) / 1024);
}

describe.skipIf(!existsSync("/usr/bin/time") || process.platform !== "linux")("the bash grammar's memory", () => {
  it("1,000 parses stay under 300 MB at peak", () => {
    expect(peakMb({})).toBeLessThan(300);
  });
});
