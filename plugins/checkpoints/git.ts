/**
 * Git plumbing against the shadow store, isolated from the user's git: `GIT_DIR`, `GIT_WORK_TREE`
 * and `GIT_INDEX_FILE` set explicitly, every `GIT_*` variable of the user's environment removed,
 * no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), no hooks.
 * The user's own repository is never named, so nothing here can read or write it.
 */
import { lazyRequire } from "../_kits/lazy/index";
import { hostEnv } from "../_kits/process/index";
import { UbiquityError } from "../../src/index";

// node:child_process on first use: an ESM import of it loads net, dgram and perf code, which a
// run that spawns nothing never needs (cold start, bench/lean-profile.md).
const childProcess = lazyRequire<typeof import("node:child_process")>("node:child_process");

/** A git command that failed; the message carries git's own words. */
export class GitError extends UbiquityError {
  override name = "GitError";
}

/** Where one git command points: the store, the folder it snapshots, and that folder's index. */
export interface GitPlace {
  gitDir: string;
  workTree?: string;
  indexFile?: string;
}

// Settings that make the result independent of whatever the user's environment would set.
const CONFIG = [
  "core.hooksPath=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.fsmonitor=false",
  "core.symlinks=true",
  "core.quotePath=false",
  "core.untrackedCache=false",
  "core.bigFileThreshold=512m",
  "gc.auto=0",
  "advice.addEmbeddedRepo=false",
  "commit.gpgSign=false",
  // The store is ours; a workspace owned by another user (a shared checkout) is still only read.
  "safe.directory=*",
].flatMap((c) => ["-c", c]);

/** The environment git runs with: the process's, minus every `GIT_*` variable, plus the place. */
export function gitEnv(place: GitPlace): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(hostEnv(process.env, [place.workTree ?? place.gitDir])))
    if (!key.startsWith("GIT_") && value !== undefined) env[key] = value;
  env.GIT_DIR = place.gitDir;
  if (place.workTree) env.GIT_WORK_TREE = place.workTree;
  if (place.indexFile) env.GIT_INDEX_FILE = place.indexFile;
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_CONFIG_GLOBAL = "/dev/null";
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = "ubiquity";
  env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = "checkpoints@ubiquity.invalid";
  env.LC_ALL = "C";
  return env;
}

/** Run `git <args>` at `place`; resolves to its stdout. `input` goes to its stdin. */
export function git(place: GitPlace, args: string[], input?: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn("git", [...CONFIG, ...args], {
      cwd: place.workTree ?? place.gitDir,
      env: gitEnv(place),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new GitError(
          error.code === "ENOENT"
            ? "checkpoints need git on PATH: install git, or turn checkpoints off"
            : `git ${args[0]} could not start: ${error.message}`,
        ),
      ),
    );
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitError(`git ${args[0]} failed (exit ${code}): ${Buffer.concat(err).toString("utf8").trim()}`));
    });
    child.stdin.on("error", () => {}); // git may exit before reading everything; the exit code says why
    child.stdin.end(input);
  });
}

/** Split NUL-separated git output. */
export function nulList(out: Buffer): string[] {
  return out.toString("utf8").split("\0").filter(Boolean);
}
