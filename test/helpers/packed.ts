/**
 * The package as `npm publish` would ship it, for tests that install it where a user has it:
 * the declarations built (`npm run build:types`, after the `unbuild` of pretest), then `npm pack`
 * into a temp folder. Made once per test file.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, requireDist } from "./project";

let tarball: string | undefined;
const dirs: string[] = [];

/**
 * The packed tarball's path (built and packed on first call). Test files run in parallel
 * workers and the declarations are written in place (dist/types), so one worker builds and packs
 * at a time: a lock file in node_modules/.cache (taken with `wx`, so atomically; one older than ten
 * minutes is a crashed run's and is taken over).
 */
export function packedTarball(): string {
  if (tarball) return tarball;
  requireDist();
  mkdirSync(join(repoRoot, "node_modules", ".cache"), { recursive: true });
  const lock = join(repoRoot, "node_modules", ".cache", "ubiquity-pack.lock");
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { force: true });
      } catch {
        // Released meanwhile.
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    execFileSync("npm", ["run", "--silent", "build:types"], { cwd: repoRoot, stdio: "pipe" });
    const dir = tempDir("ubiquity-pack-");
    const name = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], {
      cwd: repoRoot,
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .at(-1)!;
    tarball = join(dir, name);
    return tarball;
  } finally {
    rmSync(lock, { force: true });
  }
}

/** A fresh temp folder (real path), removed by `removePackedDirs`. */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** `npm install` in `cwd` (what a user types), quiet; throws with npm's output on failure. */
export function npmInstall(cwd: string, specs: string[]): void {
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs], {
    cwd,
    stdio: "pipe",
  });
}

/** Remove the temp folders made here (call from afterAll). */
export function removePackedDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
