/**
 * The package as `npm publish` would ship it, for tests that install it where a user has it:
 * the declarations built (`npm run build:types`, after the `unbuild` of pretest), then `npm pack`
 * into a temp folder. Made once per test file.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, requireDist } from "./project";

let tarball: string | undefined;
const dirs: string[] = [];

/** The packed tarball's path (built and packed on first call). */
export function packedTarball(): string {
  if (tarball) return tarball;
  requireDist();
  execFileSync("npm", ["run", "--silent", "build:types"], { cwd: repoRoot, stdio: "pipe" });
  const dir = tempDir("ubiquity-pack-");
  const name = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], { cwd: repoRoot, encoding: "utf8" }).trim().split("\n").at(-1)!;
  tarball = join(dir, name);
  return tarball;
}

/** A fresh temp folder (real path), removed by `removePackedDirs`. */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** `npm install` in `cwd` (what a user types), quiet; throws with npm's output on failure. */
export function npmInstall(cwd: string, specs: string[]): void {
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs], { cwd, stdio: "pipe" });
}

/** Remove the temp folders made here (call from afterAll). */
export function removePackedDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
