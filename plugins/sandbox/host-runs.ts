/**
 * excludedCommands run outside the sandbox, and may run what the writable folders hold (`npm
 * test` runs package.json's scripts and node_modules, `make` the Makefile, `./deploy.sh` itself).
 * Which files a command runs cannot be listed (fail closed: no list of programs and the files
 * each one reads), so the rule is on the folders: a command runs outside the sandbox only while
 * nothing in the writable folders changed since sandboxed processes could write there, or since
 * the user last approved what had. Otherwise the permission check asks, naming the changed files
 * (dontAsk denies), and a change made after that answer runs the command inside the sandbox.
 *
 * "Changed" is the inode's change time (ctime), which no unprivileged process can set back, found
 * by one `find -cnewer` over the writable folders when an excluded command is about to run (not
 * at every sandboxed command). Attribution is by state, as for the workspace guard: what changed
 * is treated as the sandbox's, unless the file tools wrote it (the permission engine judged that
 * write) and it still holds what they wrote. An excluded command's own writes count for the next
 * one unless no other process the run started was alive meanwhile.
 */
import { createHash } from "node:crypto";
import { lstatSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { readRegularBytesSync } from "../../loader/index";
import { dirname, join } from "node:path";
import { lazyRequire } from "../_kits/lazy/index";
import { hostEnv, liveProcessGroups, liveShellGroups } from "../_kits/process/index";

const childProcess = lazyRequire<typeof import("node:child_process")>("node:child_process");

/**
 * How far back a mark is set: file times come from the kernel's coarse clock (a tick is up to
 * 10 ms), so a change in the same tick as the mark would not be newer than it. Set back, such a
 * change is seen (a change just before the mark is seen too: the safe side).
 */
const MARK_SLACK_S = 0.05;

/**
 * The entries of `roots` whose inode changed after `mark`'s modification time; `unchecked` when
 * the search failed. Folders count: renaming one changes its own change time and not its files'
 * (`mv docs/example scripts` put files nobody changed where `npm test` runs them, outside the
 * sandbox: red team u, U2), and an entry added, renamed or removed changes its folder's.
 */
export function changedSince(roots: readonly string[], mark: string): { files: string[]; unchecked?: string } {
  if (roots.length === 0) return { files: [] };
  const found = childProcess().spawnSync("find", [...roots, "-cnewer", mark, "-print0"], {
    env: hostEnv(process.env, roots),
    encoding: "buffer",
    maxBuffer: 64 << 20,
  });
  const files = (found.stdout ?? Buffer.alloc(0)).toString("utf8").split("\0").filter(Boolean);
  // An unreadable folder (or no `find`): what is below it could not be ruled out.
  if (found.status !== 0 || found.error)
    return { files, unchecked: found.error ? String(found.error.message) : found.stderr.toString("utf8").trim() };
  return { files };
}

const sha256 = (path: string) => {
  try {
    const bytes = readRegularBytesSync(path, Number.MAX_SAFE_INTEGER);
    return bytes && createHash("sha256").update(bytes).digest("hex");
  } catch {
    return undefined;
  }
};

/** The inode change time (or `m`: modification time) of `path` in nanoseconds (undefined: gone). */
function changeTime(path: string, which: "c" | "m" = "c"): bigint | undefined {
  const info = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return which === "c" ? info?.ctimeNs : info?.mtimeNs;
}

/**
 * Red team l (L2): a Bash shell the run started is still alive (run_in_background), and it can
 * write the folders after the check, while the excluded command runs: a background shell waited
 * for `npm test` to start, then rewrote the script it ran next. What it will change cannot be
 * checked beforehand (fail closed): the permission check asks (dontAsk denies), and the approval
 * answers it; a command never checked runs inside the sandbox.
 */
function stillRunning(): { files: string[]; unchecked: string } | undefined {
  const live = liveShellGroups();
  return live === 0
    ? undefined
    : {
        files: [],
        unchecked: `${live === 1 ? "a shell" : `${live} shells`} the run started (run_in_background) still running could change them while it runs`,
      };
}

/** What an excluded command may run on, and when it may run outside the sandbox. */
export class HostRuns {
  readonly #roots: () => readonly string[];
  readonly #markDir: () => string;
  /** Since when sandboxed processes could write the folders (or the user last approved what changed). */
  #baseline: string | undefined;
  /** Each excluded call's mark, made when its permission was checked, and the change time of each file it listed then. */
  #checked = new Map<string, { mark: string; listed: Map<string, bigint | undefined> }>();
  /** Excluded calls running outside the sandbox: how many sandboxed spawns there had been when each started. */
  #running = new Map<string, number>();
  /** What the file tools wrote (sha256 by path): judged by the permission engine, not the sandbox's. */
  #written = new Map<string, string | undefined>();
  /**
   * Folders whose last change was ours (the change time it left): a placeholder the sandbox made,
   * the folder a file tool wrote a file in. A later change of one (a rename into it) counts again.
   */
  #folders = new Map<string, bigint | undefined>();
  #spawns = 0;
  #marks = 0;

  constructor(roots: () => readonly string[], markDir: () => string) {
    this.#roots = roots;
    this.#markDir = markDir;
  }

  /** A sandboxed process is about to start: from now on the folders may hold what it wrote. */
  sandboxed(): void {
    this.#baseline ??= this.#mark();
    this.#spawns += 1;
  }

  /** A file tool wrote `path` (with this digest): a change of it is not the sandbox's while it holds that. */
  approve(path: string, sha?: string): void {
    // Edit reports no digest: what is there now is what it wrote (a process would have to win a
    // race of a few milliseconds, as for the workspace guard).
    this.#written.set(path, sha ?? sha256(path));
    // Writing a file changes its folder: the permission engine judged a write there.
    this.#folders.set(dirname(path), changeTime(dirname(path)));
  }

  /**
   * Ubiquity is about to make (`made`, undefined after) an entry in folder `dir` (a placeholder
   * for a missing protected folder): call `make`, then count the folder's change, and the new
   * entry, as its own, if the folder had not changed since sandboxed processes could write there
   * (or only by ours): then its change time says nothing a sandboxed process did.
   */
  ownEntry(dir: string, made: string, make: () => void): void {
    const before = changeTime(dir);
    const clean =
      before !== undefined &&
      (this.#folders.get(dir) === before ||
        (this.#baseline !== undefined && before <= (changeTime(this.#baseline, "m") ?? 0n)));
    make();
    if (clean) this.#folders.set(dir, changeTime(dir));
    this.#folders.set(made, changeTime(made));
  }

  /**
   * At the permission check of excluded call `id`: the files changed since sandboxed processes
   * could write (empty when none ever ran, or nothing changed), or why that could not be checked.
   */
  check(id: string): { files: string[]; unchecked?: string } {
    if (!this.#baseline) return { files: [] };
    const mark = this.#mark();
    const changed = this.#changed(this.#baseline);
    this.#checked.set(id, { mark, listed: new Map(changed.files.map((f) => [f, changeTime(f)])) });
    const busy = stillRunning();
    return busy && !changed.unchecked ? { ...changed, unchecked: busy.unchecked } : changed;
  }

  /**
   * Excluded call `id` is about to start outside the sandbox: what changed since its permission
   * was checked (its approval covers no more), or since the baseline when it was never checked.
   * Nothing: it may run outside, and what it was approved on becomes the baseline.
   */
  start(id: string): { files: string[]; unchecked?: string } {
    const checked = this.#checked.get(id);
    this.#checked.delete(id);
    if (!this.#baseline) return { files: [] };
    const busy = checked ? undefined : stillRunning();
    if (busy) return busy;
    const found = this.#changed(checked?.mark ?? this.#baseline);
    // What it listed, untouched since (the mark is set back a little, so they may show again).
    const changed = {
      ...found,
      files: found.files.filter((f) => !checked?.listed.has(f) || checked.listed.get(f) !== changeTime(f)),
    };
    if (changed.files.length > 0 || changed.unchecked) return changed;
    if (checked) this.#baseline = checked.mark;
    this.#running.set(id, this.#spawns);
    return changed;
  }

  /**
   * Excluded call `id` ended. When no sandboxed process started meanwhile and no process the run
   * started is still alive, what changed since it started is its own: the baseline moves past it.
   */
  end(id: string): void {
    const spawns = this.#running.get(id);
    if (spawns === undefined) return;
    this.#running.delete(id);
    if (spawns === this.#spawns && this.#running.size === 0 && liveProcessGroups() === 0) this.#baseline = this.#mark();
  }

  #changed(since: string): { files: string[]; unchecked?: string } {
    const found = changedSince(this.#roots(), since);
    const files = found.files.filter((path) => {
      if (this.#folders.has(path) && this.#folders.get(path) === changeTime(path)) return false;
      if (!this.#written.has(path)) return true;
      const sha = this.#written.get(path);
      return sha === undefined || sha256(path) !== sha;
    });
    return { files, ...(found.unchecked !== undefined ? { unchecked: found.unchecked } : {}) };
  }

  /** A new mark file whose modification time is now (less the slack). */
  #mark(): string {
    const path = join(this.#markDir(), `host-runs-${++this.#marks}`);
    writeFileSync(path, "");
    const at = statSync(path).mtimeMs / 1000 - MARK_SLACK_S;
    utimesSync(path, at, at);
    return path;
  }
}

/** A short list of `files` for a message: a few names (relative to `cwd` when inside) and how many more. */
export function fewFiles(files: readonly string[], cwd: string, shown = 5): string {
  const rel = (p: string) => (p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p);
  const list = files.slice(0, shown).map(rel).join(", ");
  return files.length > shown ? `${list} and ${files.length - shown} more` : list;
}
