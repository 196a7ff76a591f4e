/**
 * Which processes each test file starts, by kind: with `UBIQUITY_TEST_SPAWN_LOG=<file>` vitest
 * loads this setup file, which counts the calls of node:child_process in the test's process and
 * appends one line per test file and kind (path, kind, count) to that file:
 *
 *   UBIQUITY_TEST_SPAWN_LOG=/tmp/spawn.tsv npx vitest run test/cli
 *   awk -F'\t' '$2 == "bin" { n += $3 } END { print n }' /tmp/spawn.tsv
 *
 * `bin` is the runner (a path ending in ubiquity.mjs: this checkout's bin or an installed copy);
 * any other kind is the program's name (`node <script>` for Node). Only what the test's own
 * process starts is counted, not what those children start (bwrap and bash under the bin), nor a
 * call through `promisify(execFile)` (its promisified form calls Node's own function). Counting
 * changes nothing a test sees: each call goes on to Node's function with the same arguments.
 */
import * as cp from "node:child_process";
import { appendFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";
import { afterAll } from "vitest";

// One map per worker: a shared project's files re-run this module but keep the first wrappers.
const g = globalThis as { spawnCounts?: Map<string, number> };
g.spawnCounts ??= new Map<string, number>();
const counts = g.spawnCounts;
function kind(file: unknown, args: unknown): string {
  const all = [String(file), ...(Array.isArray(args) ? args.map(String) : [])].join(" ");
  if (all.includes("ubiquity.mjs")) return "bin";
  const first = String(file).split(" ")[0]!;
  const name = basename(first);
  if (/^node/.test(name) || first === process.execPath) {
    const script = Array.isArray(args) ? args.find((a) => typeof a === "string" && !a.startsWith("-")) : undefined;
    return `node ${script ? basename(script) : "-"}`;
  }
  return name;
}
const real = (cp as unknown as { default: Record<string, (...a: unknown[]) => unknown> }).default;
for (const name of ["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"]) {
  const original = real[name]!;
  if ((original as { probed?: boolean }).probed) continue;
  const wrapped = function (this: unknown, ...a: unknown[]) {
    const k = name === "fork" ? `node ${basename(String(a[0]))}` : kind(a[0], a[1]);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    return original.apply(this, a);
  };
  // promisify(execFile) and promisify(exec) resolve to { stdout, stderr } through a symbol property.
  for (const key of Reflect.ownKeys(original))
    if (typeof key === "symbol")
      (wrapped as unknown as Record<symbol, unknown>)[key] = (original as unknown as Record<symbol, unknown>)[key];
  (wrapped as { probed?: boolean }).probed = true;
  real[name] = wrapped;
}
syncBuiltinESMExports();

const log = process.env.UBIQUITY_TEST_SPAWN_LOG!;
// biome-ignore lint/correctness/noEmptyPattern: vitest requires a destructuring pattern for a hook's first argument
afterAll(({}, suite) => {
  const path = "filepath" in suite ? suite.filepath : suite.file.filepath;
  for (const [k, n] of counts) appendFileSync(log, `${path}\t${k}\t${n}\n`);
  counts.clear();
});
