/**
 * The package as `npm publish` would ship it, for tests that install it where a user has it:
 * the declarations built (`npm run build:types`, after the `unbuild` of pretest), then `npm pack`.
 * Made once for a given content of everything the tarball is made from (see `packInputs`): the
 * tarball is kept in node_modules/.cache/ubiquity-pack/<hash of that content>/, so the test files
 * that install it share one build of the declarations (~11 CPU-s each), and a changed source, build
 * or package file makes a new one — never an old tarball.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
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
    const cache = join(repoRoot, "node_modules", ".cache", "ubiquity-pack");
    const kept = join(cache, packInputsHash());
    const packed = existsSync(kept) ? readdirSync(kept).find((f) => f.endsWith(".tgz")) : undefined;
    if (packed) return (tarball = join(kept, packed));
    execFileSync("npm", ["run", "--silent", "build:types"], { cwd: repoRoot, stdio: "pipe" });
    const dir = tempDir("ubiquity-pack-");
    const name = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], {
      cwd: repoRoot,
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .at(-1)!;
    // One kept tarball: the one for what the repository holds now.
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(kept, { recursive: true });
    renameSync(join(dir, name), join(kept, name));
    return (tarball = join(kept, name));
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * What the packed tarball is made from: the declarations' sources and build settings (tsconfig.build.json
 * includes these folders), the JavaScript unbuild wrote (dist/, but not dist/types, which build:types
 * writes), and every other file `files` in package.json ships. A hash of their paths and contents.
 */
const packInputs = {
  folders: ["src", "loader", "sdk", "plugins", "presets", "harness", "runner", "bin", "docs", "dist"],
  files: [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "scripts/fix-dts.mjs",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "schema/ubiquity.config.schema.json",
  ],
  skip: ["dist/types", "docs/.vitepress", "docs/reference", "node_modules"],
};

function packInputsHash(): string {
  const hash = createHash("sha256");
  const add = (path: string) => {
    const rel = relative(repoRoot, path);
    if (packInputs.skip.some((s) => rel === s || rel.startsWith(`${s}/`) || rel.endsWith("/node_modules"))) return;
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return hash.update(`${rel}\0absent\0`);
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) add(join(path, entry));
      return;
    }
    hash.update(`${rel}\0${stat.size}\0`).update(readFileSync(path)).update("\0");
  };
  for (const f of [...packInputs.files, ...packInputs.folders]) add(join(repoRoot, f));
  return hash.digest("hex").slice(0, 16);
}

/**
 * node_modules as `npm i ubiquity` leaves it, in `dir`: the packed package (declarations as
 * published) and this repository's other packages beside it (as links).
 */
export function installPacked(dir: string): void {
  const modules = join(dir, "node_modules");
  const own = join(modules, "ubiquity");
  mkdirSync(own, { recursive: true });
  execFileSync("tar", ["-xzf", packedTarball(), "-C", own, "--strip-components=1"]);
  const root = join(repoRoot, "node_modules");
  for (const name of readdirSync(root)) {
    if (name.startsWith(".") || name === "ubiquity") continue;
    symlinkSync(join(root, name), join(modules, name), "dir");
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
