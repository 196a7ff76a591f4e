/**
 * The workspace guard: every file that runs code later stays read-only inside the sandbox at any
 * depth, and one a sandboxed process creates is taken out of the workspace before anything
 * outside the sandbox can run it.
 *
 * - **Existing protected paths** (the permission engine's sensitive list, via `sandboxReason`, at
 *   any depth; the config, hooks and redirections — `commondir`, `config.worktree`, a `.git`
 *   file — of every git folder, nested repositories and bare ones included) are found by one walk
 *   of the writable folders and bound read-only over themselves.
 * - **New ones** are found by a sweep, before and after each sandboxed spawn or call: it stats the
 *   folders the walk knows (a folder's mtime changes when an entry is added, renamed or removed
 *   in it), reads only the folders that changed, and walks the new ones whole. A protected entry
 *   that was not there before is moved out of the workspace into a quarantine folder (nothing is
 *   lost), and reported — unless the file tools wrote it (the permission engine judged that
 *   write), or it is a git folder whose every setting is one this module understands as
 *   harmless (what `git init` and `git clone` write). Attribution is by state, not by clock:
 *   whatever appeared since the last sweep and was not written by a file tool is treated as the
 *   sandbox's, also when the user's editor made it (it is then in the quarantine folder).
 * - `node_modules` is not walked: installed code is code the user runs by choice, like
 *   `package.json`, which the sandbox leaves writable too.
 */
import { createHash } from "node:crypto";
import { cpSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { readRegularBytesSync } from "../../loader/index";
import {
  isPluginFolder,
  pathsNamedByConfig,
  pathsNamedByEnvrc,
  sandboxReason,
  venvActivateReason,
} from "../permissions/api";
import { racyStamp } from "./secret-walk";

/** Past this length a path may not be statted (PATH_MAX is 4096 on Linux); new folders deeper are removed. */
const MAX_PATH = 3800;

/** Names inside a git folder that make git run code or read another folder's config. */
const GIT_PROTECTED = ["config", "hooks", "commondir", "config.worktree"] as const;

/** One protected path found in the workspace. */
export interface Guarded {
  path: string;
  reason: string;
  /** The path's bytes, when its name is not valid UTF-8. */
  raw?: Buffer;
}

/** A protected entry removed from the workspace. */
export interface Quarantined {
  path: string;
  /** Where it went (undefined: it could not be moved and was deleted). */
  movedTo?: string;
  reason: string;
}

/** How a folder's entries are read: an ordinary folder, a git folder, or git's folder of worktrees or submodules. */
type Mode = "plain" | "git" | "worktrees" | "modules";

interface DirState {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Read within a clock tick of its last change: the next sweep reads it again, whatever its stamp. */
  racy: boolean;
  /** Protected names in this folder when last read, with their {@link identity} (a replaced one is new). */
  guarded: Map<string, string>;
  mode: Mode;
  /** Names (hex) that are not valid UTF-8 and were there when the folder was first read: the user's. */
  odd?: Set<string>;
}

/** What an entry of a folder is to the guard. */
type Classify =
  | { kind: "bind"; reason: string }
  | { kind: "gitdir"; worktree?: boolean }
  | { kind: "walk"; mode: Mode }
  | { kind: "skip" };

/** A git folder to git's discovery: HEAD, and objects/ and refs/ here or where a `commondir` leads (red team zk, ZK3). */
const isGitFolder = (names: ReadonlySet<string>) =>
  names.has("HEAD") && ((names.has("objects") && names.has("refs")) || names.has("commondir"));

/**
 * Which file `info` is: its inode and its birth time. The inode number alone is not enough: a file
 * system hands a freed number to the next file made (ext4 often does, at once), so a protected file
 * removed and written again could look like the one that was there.
 */
function identity(info: Stats | undefined): string {
  return info ? `${info.ino}:${info.birthtimeMs}` : "";
}

/**
 * What tells one version of a file from the next: its change time too, which no process can set
 * back. Inode, size and modification time alone were forged by a sandboxed background shell: it
 * rewrote a kept git folder's config (same size, in place) with core.fsmonitor and put the
 * modification time back with `touch -r`, and the sweep took it for the harmless one it had judged
 * (red team u, U4).
 */
function version(info: Stats | undefined): string {
  return info ? `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}` : "";
}

function stat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Entries whose name is not valid UTF-8: a string path cannot reach them, so they are moved by their bytes. */
function unreadableNames(dir: string): Buffer[] {
  try {
    return readdirSync(dir, { encoding: "buffer" }).filter((b) => !Buffer.from(b.toString("utf8"), "utf8").equals(b));
  } catch {
    return [];
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The guard of one run's writable folders. */
export class WorkspaceGuard {
  readonly #roots: readonly string[];
  readonly #quarantine: () => string;
  readonly #own: (path: string) => boolean;
  #dirs: Map<string, DirState> | undefined;
  /** Paths the file tools wrote during the run: approved by the permission engine, not the sandbox's. */
  #approved = new Set<string>();
  /** Paths existing git configs name (hooksPath, includes, scripts): protected whether they exist or not. */
  #named = new Map<string, string>();
  /** Each worktree git folder's index, when last read for gitlinks ({@link version}). */
  #indexes = new Map<string, string>();
  /** `.git` paths of gitlinks in folders the walk skips (node_modules), with their root. */
  #linked = new Map<string, string>();
  /** `.git` files found by the current sweep. */
  #links: Guarded[] = [];
  /** Protected paths bound read-only, with the reason. */
  #bound = new Map<string, string>();
  /** Why an Edit or Write rule's pattern names a path (writeRuleMatcher), if it does. */
  readonly #ruled: ((path: string) => string | undefined) | undefined;
  /** How many times a sweep found a folder changed (an entry added, renamed or removed). */
  #changes = 0;

  /** Grows whenever a sweep finds a folder whose entries changed: what was worked out from the names in the workspace may be stale then. */
  get changes(): number {
    return this.#changes;
  }

  /**
   * @param roots the writable folders
   * @param quarantine where removed entries go (a folder outside the workspace; made on first use)
   * @param own the sandbox's own placeholders (empty read-only folders standing in for missing protected ones)
   */
  constructor(
    roots: readonly string[],
    quarantine: () => string,
    own: (path: string) => boolean = () => false,
    ruled?: (path: string) => string | undefined,
  ) {
    this.#roots = roots;
    this.#quarantine = quarantine;
    this.#own = own;
    this.#ruled = ruled;
  }

  /**
   * A file tool wrote `path` (absolute): it is the user's, not the sandbox's. `sha256`: what the
   * tool wrote; a file that no longer holds it (changed between the write and now) is not.
   */
  approve(path: string, sha256?: string): void {
    const p = resolve(path);
    this.#approved.add(p);
    // As written: a sandboxed process spawned before it existed (a background shell) has it
    // writable, so a later change to a protected one is judged like a new entry.
    const info = stat(p);
    if (!info?.isFile()) return void this.#stamps.delete(p);
    let changed = false;
    if (sha256 !== undefined && info.size <= 1024 * 1024) {
      try {
        const bytes = readRegularBytesSync(p, 1024 * 1024);
        changed = bytes === undefined || createHash("sha256").update(bytes).digest("hex") !== sha256;
      } catch {
        changed = true;
      }
    }
    // A stamp no file has: the next sweep judges it.
    this.#stamps.set(p, changed ? "changed" : version(info));
  }

  /**
   * The sandbox put a protected link back (a command replaced it): the link now at `path` is the
   * user's one, not a new entry. Without this the next sweep saw a protected name with a new inode
   * and moved the put-back link out of the workspace, unless the file system had handed the old
   * inode number to the new link (ext4 often does; not when another process took it first, nor on
   * tmpfs). Only a symlink naming `target` that the last sweep knew under that name is taken.
   */
  restored(path: string, target: string): void {
    const state = this.#dirs?.get(dirname(path));
    const name = basename(path);
    if (!state?.guarded.has(name)) return;
    const info = stat(path);
    if (!info?.isSymbolicLink()) return;
    try {
      if (readlinkSync(path) !== target) return;
    } catch {
      return;
    }
    state.guarded.set(name, identity(info));
  }

  /** Each git config bound read-only, as the last sweep saw it, and whether it ran code then. */
  #configs = new Map<string, { print: string; unsafe: boolean }>();

  /** What each git folder's stopped rebase, cherry-pick or revert runs on --continue ({@link continueSteps}), as the last sweep saw it. */
  #todos = new Map<string, Set<string>>();

  /** The entries of each protected folder bound read-only, as the last sweep saw them. */
  #inside = new Map<string, Map<string, string>>();

  /** The {@link version} of each file the file tools wrote, as they left it. */
  #stamps = new Map<string, string>();

  /**
   * Did the file tools write `path`? A file: exactly it. A folder: every entry in it is a file
   * they wrote (a Write into `sub/.vscode/` approves that folder, not whatever else is put there).
   */
  #isApproved(path: string): boolean {
    if (this.#approved.has(path)) return true;
    const info = stat(path);
    if (!info?.isDirectory()) return false;
    let seen = 0;
    const all = (dir: string): boolean =>
      list(dir).every((name) => {
        const p = join(dir, name);
        const s = stat(p);
        if (++seen > 1000 || !s) return false;
        return s.isDirectory() ? all(p) : s.isFile() && this.#approved.has(p);
      });
    return all(path);
  }

  /** Existing protected paths to bind read-only (walking the workspace the first time). */
  protectedPaths(): Guarded[] {
    if (!this.#dirs) this.#walkAll();
    return [...this.#bound].flatMap(([path, reason]) => (stat(path) ? [{ path, reason }] : []));
  }

  #walkAll() {
    this.#dirs = new Map();
    for (const root of this.#roots)
      if (stat(root)?.isDirectory())
        this.#walk(root, root, undefined, isGitFolder(new Set(list(root))) ? "git" : "plain");
    this.#checkLinked(undefined);
    for (const [dir, state] of this.#dirs) if (state.mode === "git") this.#todos.set(dir, continueSteps(dir));
    // A named path the walk reached before the config that names it: bound whole from now on.
    for (const [path, reason] of this.#named) {
      if (!stat(path)) continue;
      for (const d of [...this.#dirs.keys()]) if (d === path || d.startsWith(`${path}${sep}`)) this.#dirs.delete(d);
      this.#bound.set(path, reason);
    }
  }

  /**
   * Record `dir` and everything under it. With `found`, the folder is new since the last sweep:
   * the protected entries in it are pushed there instead of being accepted.
   */
  #walk(root: string, dir: string, found: Guarded[] | undefined, mode: Mode) {
    // A new folder nested past what a path can name cannot be read whole: it goes, whole.
    if (found && dir.length > MAX_PATH)
      return void found.push({ path: dir, reason: "it is nested deeper than the guard can read" });
    const now = Date.now();
    const info = stat(dir);
    if (!info?.isDirectory()) return;
    const names = list(dir);
    const state: DirState = {
      mtimeMs: info.mtimeMs,
      ctimeMs: info.ctimeMs,
      ino: info.ino,
      racy: racyStamp(info, now),
      guarded: new Map(),
      mode,
    };
    this.#dirs!.set(dir, state);
    if (found) this.#unreadable(dir, found, state);
    else {
      const odd = unreadableNames(dir).map((b) => b.toString("hex"));
      if (odd.length > 0) state.odd = new Set(odd);
    }
    for (const name of names) this.#entry(root, dir, name, state, found);
    // What an existing config names runs too: core.hooksPath's hooks, an included file, a script.
    if (mode === "git") {
      this.#readGitlinks(root, dir);
      for (const path of pathsNamedByConfig(dir)) {
        if (this.#roots.some((r) => path.startsWith(`${r}${sep}`)))
          this.#named.set(
            path,
            `${relative(root, dir) || "."}'s config names it (git runs it or reads config from it)`,
          );
      }
    }
  }

  /** New entries of `dir` whose names the guard cannot read go (what is in them cannot be judged). */
  #unreadable(dir: string, found: Guarded[], state: DirState) {
    for (const raw of unreadableNames(dir)) {
      if (state.odd?.has(raw.toString("hex"))) continue;
      found.push({
        path: join(dir, raw.toString("hex")),
        raw: Buffer.concat([Buffer.from(`${dir}${sep}`), raw]),
        reason: "its name is not valid UTF-8, so what it holds cannot be judged",
      });
    }
  }

  #entry(root: string, dir: string, name: string, state: DirState, found: Guarded[] | undefined) {
    const path = join(dir, name);
    if (this.#own(path)) return;
    const what = this.#classify(root, dir, name, state.mode);
    if (what.kind === "skip") return;
    if (what.kind === "walk") return this.#walk(root, path, found, what.mode);
    state.guarded.set(name, identity(stat(path)));
    const fresh = found !== undefined && !this.#isApproved(path);
    if (what.kind === "bind") {
      // What an existing .envrc loads (direnv runs it on cd) is protected like the .envrc.
      if (!fresh && /^\.envrc/i.test(name))
        for (const p of pathsNamedByEnvrc(path))
          if (this.#roots.some((r) => p.startsWith(`${r}${sep}`)))
            this.#named.set(p, `${relative(root, path)} loads it (direnv runs it on cd)`);
      // What a linked worktree's (or a submodule's) config names runs too: its `.git` file leads to a
      // git folder outside the roots, whose config (and its commondir's) the walk never reads (red team zg, ZG4).
      if (!fresh && name === ".git") this.#nameFromGitFile(root, dir, path);
      if (fresh && name === ".git")
        this.#links.push({ path, reason: what.reason }); // judged once the sweep knows every new git folder
      else if (fresh) found.push({ path, reason: what.reason });
      else this.#bound.set(path, what.reason);
      return;
    }
    // A git folder made since the last sweep is kept when everything in it is understood (the
    // file tools' approval does not cover one: git reads it whole).
    if (found !== undefined) {
      const why = what.worktree ? unsafeNested(path, root, true) : unsafeGitFolder(path, root);
      if (why) return void found.push({ path, reason: why });
    }
    this.#walk(root, path, undefined, "git");
  }

  /** Protect what the git folder a `.git` file at `file` leads to names in the work tree `dir` (core.hooksPath, includes, scripts). */
  #nameFromGitFile(root: string, dir: string, file: string) {
    const m = /^gitdir: (.+?)\s*$/m.exec(readText(file));
    if (!m) return;
    for (const path of pathsNamedByConfig(resolve(dir, m[1]!), undefined, dir))
      if (this.#roots.some((r) => path.startsWith(`${r}${sep}`)))
        this.#named.set(
          path,
          `${relative(root, file)} leads to a git config that names it (git runs it or reads config from it)`,
        );
  }

  /**
   * The index's gitlinks that lie where the walk does not go (node_modules): `git status` at the
   * top looks inside them, so their git folders are judged like any other.
   */
  #readGitlinks(root: string, gitDir: string) {
    if (basename(gitDir) !== ".git") return;
    const index = join(gitDir, "index");
    const seen = version(stat(index));
    if (this.#indexes.get(gitDir) === seen) return;
    this.#indexes.set(gitDir, seen);
    const hash = /objectformat\s*=\s*sha256/i.test(readText(join(gitDir, "config"))) ? 32 : 20;
    for (const rel of gitlinksInIndex(index, hash)) {
      if (rel.split("/").includes("node_modules")) this.#linked.set(join(dirname(gitDir), rel, ".git"), root);
    }
  }

  /** Judge the gitlinked git folders under node_modules not yet known (`found`: new since the last sweep). */
  #checkLinked(found: Guarded[] | undefined) {
    for (const [path, root] of this.#linked) {
      if (this.#dirs!.has(path) || this.#bound.has(path)) continue;
      const info = stat(path);
      if (!info) continue;
      if (info.isDirectory()) {
        const why = found ? unsafeGitFolder(path, root) : undefined;
        if (why) found!.push({ path, reason: `a gitlink in the index makes git status read it, and ${why}` });
        else this.#walk(root, path, undefined, "git");
      } else if (found && !this.#knownGitLink(path))
        found.push({
          path,
          reason: "a gitlink in the index makes git status read it, and it is a .git file leading elsewhere",
        });
      else this.#bound.set(path, "a .git file a gitlink leads to");
    }
  }

  /** A `.git` file made by `git worktree add` or `git submodule`: it leads to a linked worktree's or a submodule's git folder the guard knows. */
  #knownGitLink(file: string): boolean {
    const m = /^gitdir: (.+)\n?$/.exec(readText(file));
    if (!m) return false;
    const target = resolve(dirname(file), m[1]!);
    const state = this.#dirs!.get(target);
    return state?.mode === "git" && /[\\/](worktrees|modules)[\\/]/.test(target);
  }

  #classify(root: string, dir: string, name: string, mode: Mode): Classify {
    const path = join(dir, name);
    const named = this.#named.get(path);
    if (named) return { kind: "bind", reason: named };
    const info = stat(path);
    switch (mode) {
      case "git":
        if ((GIT_PROTECTED as readonly string[]).includes(name))
          return { kind: "bind", reason: `${name} of a git folder runs code or redirects git` };
        if ((name === "worktrees" || name === "modules") && info?.isDirectory()) return { kind: "walk", mode: name };
        return { kind: "skip" };
      case "worktrees":
        return info?.isDirectory() ? { kind: "gitdir", worktree: true } : { kind: "skip" };
      case "modules":
        // modules/a is a submodule's git folder; modules/lib only groups the parts of lib/b.
        if (!info?.isDirectory()) return { kind: "skip" };
        return isGitFolder(new Set(list(path))) ? { kind: "gitdir" } : { kind: "walk", mode: "modules" };
      case "plain":
        if (name === "node_modules") return { kind: "skip" };
        if (name === ".git")
          return info?.isDirectory()
            ? { kind: "gitdir" }
            : { kind: "bind", reason: "a .git file points git at another folder" };
        if (info?.isDirectory() && isGitFolder(new Set(list(path)))) return { kind: "gitdir" };
        // A plugin folder below a root: the engine asks for every write in it (its hooks, scripts
        // and MCP servers run code), so the sandbox keeps it whole (red team zb, ZB4).
        if (info?.isDirectory() && isPluginFolder(path))
          return {
            kind: "bind",
            reason: "it is a Claude Code or Codex plugin folder (its hooks, scripts and MCP servers run code)",
          };
        {
          const reason = sandboxReason(relative(root, path)) ?? venvActivateReason(path) ?? this.#ruled?.(path);
          if (reason) return { kind: "bind", reason };
        }
        return info?.isDirectory() ? { kind: "walk", mode: "plain" } : { kind: "skip" };
    }
  }

  /**
   * Find what changed since the last sweep: protected entries that appeared are moved out of the
   * workspace (unless a file tool wrote them); new folders are walked; gone ones forgotten.
   */
  sweep(): Quarantined[] {
    if (!this.#dirs) {
      this.#walkAll();
      return [];
    }
    const found: Guarded[] = [];
    const now = Date.now();
    for (const [dir, state] of [...this.#dirs]) {
      if (!this.#dirs.has(dir)) continue; // forgotten with a parent meanwhile
      const info = stat(dir);
      if (!info?.isDirectory()) {
        this.#changes++;
        this.#forget(dir);
        continue;
      }
      // A stamp read in the tick of a change may hide a second change in that tick (a sandboxed
      // background shell writing as the sweep reads): such a folder is read again.
      if (!state.racy && info.mtimeMs === state.mtimeMs && info.ctimeMs === state.ctimeMs && info.ino === state.ino)
        continue;
      this.#changes++;
      const root = this.#roots.find((r) => dir === r || dir.startsWith(`${r}${sep}`)) ?? dir;
      const parent = this.#dirs.get(dirname(dir));
      if (info.ino !== state.ino && parent && dir !== root) {
        // Replaced (removed and made again): everything in it is new.
        this.#forget(dir);
        this.#entry(root, dirname(dir), basename(dir), parent, found);
        continue;
      }
      const before = state.guarded;
      const names = list(dir);
      Object.assign(state, {
        mtimeMs: info.mtimeMs,
        ctimeMs: info.ctimeMs,
        ino: info.ino,
        racy: racyStamp(info, now),
        guarded: new Map<string, string>(),
      });
      if (state.mode === "plain" && isGitFolder(new Set(names))) {
        // An existing folder became a git folder (`git init --bare` in it): judged as a new one.
        const why = unsafeGitFolder(dir, root); // git reads it whole: the file tools' approval does not cover it
        state.mode = "git";
        for (const name of names)
          if ((GIT_PROTECTED as readonly string[]).includes(name) && why)
            found.push({ path: join(dir, name), reason: why });
        for (const d of [...this.#dirs.keys()]) if (d.startsWith(`${dir}${sep}`)) this.#dirs.delete(d);
        if (why) continue;
      }
      this.#unreadable(dir, found, state);
      for (const name of names) {
        if (this.#dirs.has(join(dir, name))) continue; // a folder already known: swept on its own
        // A protected entry that was there before stays bound (a mount point cannot be replaced).
        this.#entry(root, dir, name, state, before.get(name) === identity(stat(join(dir, name))) ? undefined : found);
      }
    }
    for (const [dir, state] of this.#dirs) {
      if (state.mode !== "git") continue;
      this.#readGitlinks(this.#roots.find((r) => dir.startsWith(`${r}${sep}`)) ?? dir, dir);
      this.#judgeRebase(dir, found);
    }
    this.#checkLinked(found);
    this.#boundChanges(found, now);
    for (const link of this.#links.splice(0)) {
      if (this.#knownGitLink(link.path)) this.#bound.set(link.path, link.reason);
      else found.push(link);
    }
    return found.map((g) => this.#remove(g));
  }

  /** What changed in or of the protected paths bound read-only since the last sweep (see sweep). */
  #boundChanges(found: Guarded[], sweptAt: number) {
    // A protected folder bound read-only is so only for what is spawned after it existed: a
    // sandboxed background shell spawned before (a git folder made since, its hooks) may write in
    // it. What appears or changes in one since the last sweep is judged like a new entry.
    for (const [path, reason] of this.#bound) {
      const info = stat(path);
      if (!info?.isDirectory()) continue;
      const now = new Map(
        list(path).map((name) => {
          const s = stat(join(path, name));
          return [name, version(s)] as const;
        }),
      );
      const was = this.#inside.get(path);
      this.#inside.set(path, now);
      if (!was) continue;
      for (const [name, print] of now) {
        const entry = join(path, name);
        if (was.get(name) === print || this.#approved.has(entry)) continue;
        found.push({
          path: entry,
          reason: `it is inside ${relative(this.#roots.find((r) => path.startsWith(`${r}${sep}`)) ?? dirname(path), path)}, which is protected (${reason})`,
        });
      }
    }
    // A git config bound read-only, changed since the last sweep (by a sandboxed background shell
    // spawned before its git folder existed, say): judged again, and taken out when the change made
    // it run code (it was harmless before, and is not now). A harmless change stays.
    for (const [path] of this.#bound) {
      const name = basename(path);
      if (name !== "config" && name !== "config.worktree") continue;
      const s = stat(path);
      if (!s?.isFile()) continue;
      const print = version(s);
      const was = this.#configs.get(path);
      if (was?.print === print) continue;
      const why = unsafeGitConfig(path);
      // Read in the tick of its last change: judged again at the next sweep (as a racy folder is read).
      this.#configs.set(path, { print: racyStamp(s, sweptAt) ? `${print}:racy` : print, unsafe: why !== undefined });
      if (was && !was.unsafe && why) found.push({ path, reason: `this git config ${why}` });
    }
    // A protected file the file tools wrote that changed since: not theirs any more.
    for (const [path, reason] of this.#bound) {
      const was = this.#stamps.get(path);
      const now = was && stat(path);
      if (!was || !now || version(now) === was) continue;
      this.#approved.delete(path);
      this.#stamps.delete(path);
      found.push({ path, reason: `${reason}; it changed after the file tools wrote it` });
    }
  }

  /**
   * A rebase, cherry-pick or revert stopped midway runs programs on the user's next `git rebase
   * --continue` (or `cherry-pick --continue`), outside the sandbox: its to-do list's exec lines,
   * and the merge strategy its state names (`rebase-merge/strategy`, `sequencer/opts`), which for a
   * name git has not built in is the program `git-merge-<name>` — `../x` is a file in the work
   * tree. Continuing one only moves lines to `done`: a step that was not there before is the
   * sandbox's (a planted state, or an agent's own --exec rebase), and the folder holding it goes to
   * the quarantine folder (the branches and commits stay as they are).
   */
  #judgeRebase(gitDir: string, found: Guarded[]) {
    const now = continueSteps(gitDir);
    const was = this.#todos.get(gitDir) ?? new Set();
    this.#todos.set(gitDir, now);
    const todo = join(gitDir, "rebase-merge", "git-rebase-todo");
    const fresh = [...now].filter((step) => !was.has(step));
    const folders = new Set(fresh.map((step) => step.slice(0, step.indexOf(":"))));
    // A to-do list the file tools wrote was judged by the permission engine; a strategy was not.
    if (!fresh.includes("rebase-merge: strategy") && this.#isApproved(todo)) folders.delete("rebase-merge");
    for (const folder of folders) {
      const step = fresh.find((s) => s.startsWith(`${folder}: `))!.slice(folder.length + 2, folder.length + 82);
      found.push({
        path: join(gitDir, folder),
        reason: `a stopped ${folder === "sequencer" ? "cherry-pick or revert" : "rebase"} gained a step that runs a program (${step}: exec lines, a merge strategy git has not built in), which git runs outside the sandbox on --continue`,
      });
    }
  }

  #forget(dir: string) {
    for (const d of [...this.#dirs!.keys()]) if (d === dir || d.startsWith(`${dir}${sep}`)) this.#dirs!.delete(d);
    for (const p of [...this.#bound.keys()]) if (p === dir || p.startsWith(`${dir}${sep}`)) this.#bound.delete(p);
  }

  #remove(g: Guarded): Quarantined {
    this.#forget(g.path);
    const root = this.#roots.find((r) => g.path.startsWith(`${r}${sep}`)) ?? dirname(g.path);
    const target = join(this.#quarantine(), relative(root, g.path));
    const source = g.raw ?? g.path;
    try {
      mkdirSync(dirname(target), { recursive: true });
      try {
        renameSync(source, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
        cpSync(g.path, target, { recursive: true, verbatimSymlinks: true });
        rmSync(g.path, { recursive: true, force: true });
      }
      return { path: g.path, movedTo: target, reason: g.reason };
    } catch {
      rmSync(source, { recursive: true, force: true });
      return { path: g.path, reason: g.reason };
    }
  }
}

// Settings of a repository's config that only describe it, read as git reads them
// (section.key, or section.subsection.key with the key last). Anything else — core.fsmonitor,
// core.hooksPath, aliases, filters, diff drivers, credential helpers, includes — is not harmless.
const HARMLESS_GIT =
  /^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|safecrlf|eol)|extensions\.(objectformat|refstorage|worktreeconfig|preciousobjects)|init\.defaultbranch|user\.(name|email)|remote\.[^.]+\.(url|pushurl|fetch|push|tagopt|prune|mirror)|branch\.[^.]+\.(remote|merge|rebase|pushremote)|submodule\.[^.]+\.(url|active|path|branch|update)|pull\.(rebase|ff)|push\.(default|autosetupremote)|fetch\.prune|gc\.auto)$/;

/** A URL git reaches without running a program of the repository's choosing. */
const PLAIN_URL =
  /^(https?:\/\/|git:\/\/|ssh:\/\/[A-Za-z0-9_.@[\]]|file:\/\/|[A-Za-z0-9_.]+@[A-Za-z0-9_.-]+:|\/|\.\.?\/|[A-Za-z0-9_][A-Za-z0-9_.-]*$)[^\s]*$/;

/** Why a git folder made during the call is not harmless, or undefined when it is. */
export function unsafeGitFolder(dir: string, root: string): string | undefined {
  const names = new Set(list(dir));
  const rel = relative(root, dir) || dir;
  if (names.has("commondir")) return `${rel}/commondir points git at another folder's config`;
  if (names.has("config.worktree")) {
    const why = unsafeGitConfig(join(dir, "config.worktree"));
    if (why) return `${rel}/config.worktree ${why}`;
  }
  if (names.has("config")) {
    const why = unsafeGitConfig(join(dir, "config"));
    if (why) return `${rel}/config ${why}`;
  }
  for (const hook of list(join(dir, "hooks")))
    if (!hook.endsWith(".sample")) return `${rel}/hooks/${hook} is a git hook`;
  if (names.has("gitdir") && !stat(join(dir, "HEAD"))) return `${rel} is not a git folder git would make`;
  for (const sub of ["modules", "worktrees"]) {
    for (const name of list(join(dir, sub))) {
      const why = unsafeNested(join(dir, sub, name), root, sub === "worktrees");
      if (why) return why;
    }
  }
  return undefined;
}

function unsafeNested(dir: string, root: string, worktree: boolean): string | undefined {
  if (!stat(dir)?.isDirectory()) return undefined;
  const names = new Set(list(dir));
  if (worktree) {
    // A linked worktree's folder: commondir must lead back to the repository that holds it.
    // Without one, git reads the folder as a whole git folder (its own config and hooks).
    if (!names.has("commondir")) return unsafeGitFolder(dir, root);
    if (names.has("config")) {
      const why = unsafeGitConfig(join(dir, "config"));
      if (why) return `${relative(root, dir)}/config ${why}`;
    }
    for (const hook of list(join(dir, "hooks")))
      if (!hook.endsWith(".sample")) return `${relative(root, dir)}/hooks/${hook} is a git hook`;
    {
      const target = readText(join(dir, "commondir")).trim();
      const common = isAbsolute(target) ? target : resolve(dir, target);
      if (resolve(common) !== resolve(dir, "..", ".."))
        return `${relative(root, dir)}/commondir points git at another folder's config`;
    }
    if (names.has("config.worktree")) {
      const why = unsafeGitConfig(join(dir, "config.worktree"));
      if (why) return `${relative(root, dir)}/config.worktree ${why}`;
    }
    return undefined;
  }
  if (isGitFolder(names)) return unsafeGitFolder(dir, root);
  for (const name of names) {
    const why = unsafeNested(join(dir, name), root, false); // modules/lib/b: a name with slashes
    if (why) return why;
  }
  return undefined;
}

/** The merge strategies git has built in: any other name runs the program `git-merge-<name>`, found on PATH or as a path. */
const BUILTIN_STRATEGIES = new Set(["ort", "recursive", "resolve", "octopus", "ours", "subtree"]);

/** The settings of `sequencer/opts` (git's sequencer.c) that run nothing; strategy is judged by its value. */
const SEQUENCER_OPTIONS =
  /^options\.(no-commit|edit|allow-empty|allow-empty-message|drop-redundant-commits|keep-redundant-commits|signoff|record-origin|allow-ff|mainline|strategy-option|allow-rerere-auto|default-msg-cleanup|empty)$/;

/**
 * The steps of git folder `dir`'s stopped rebase, cherry-pick or revert that run a program on
 * --continue, each as `folder: step`: the rebase to-do list's exec lines (`exec cmd`, `x cmd`), a
 * merge strategy git has not built in, and any line of the sequencer's options (a git config
 * file) this check does not understand as harmless (fail closed).
 */
function continueSteps(dir: string): Set<string> {
  const out = new Set<string>();
  const todo = join(dir, "rebase-merge", "git-rebase-todo");
  if ((stat(todo)?.size ?? 0) > 1024 * 1024) out.add("rebase-merge: (a to-do list too large to read)");
  else if (stat(todo) && readText(todo) === "\0") out.add("rebase-merge: (a to-do list that is not a plain file)");
  else
    for (const line of readText(todo).split("\n"))
      if (/^\s*(x|exec)\s/.test(line)) out.add(`rebase-merge: ${line.trim()}`);
  for (const folder of ["rebase-merge", "rebase-apply"]) {
    const strategy = join(dir, folder, "strategy");
    // As git writes it (the name, a newline); anything else is not understood.
    if (stat(strategy) && !BUILTIN_STRATEGIES.has(readText(strategy).replace(/\n$/, "")))
      out.add(`${folder}: strategy`);
  }
  const opts = join(dir, "sequencer", "opts");
  if (!stat(opts)) return out;
  if ((stat(opts)?.size ?? 0) > 64 * 1024) return out.add("sequencer: (options too large to read)");
  let section = "";
  for (const raw of readText(opts).split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[\s*([A-Za-z0-9-]+)\s*\]$/.exec(line);
    if (head) {
      section = head[1]!.toLowerCase();
      continue;
    }
    const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    const key = `${section}.${setting?.[1]?.toLowerCase()}`;
    const value = (setting?.[2] ?? "").trim().replace(/^"(.*)"$/, "$1");
    if (setting && /^[A-Za-z0-9_.=, -]*$/.test(value)) {
      if (SEQUENCER_OPTIONS.test(key) || key === "options.gpg-sign") continue;
      if (key === "options.strategy" && BUILTIN_STRATEGIES.has(value)) continue;
    }
    out.add(`sequencer: ${line}`);
  }
  return out;
}

/**
 * A file of the workspace as text, or "\0" when it is absent, not a regular file or over 4 MiB
 * (not understood). Opened without blocking: a FIFO a sandboxed command made (`mkfifo
 * .git/rebase-merge/git-rebase-todo`) froze the host's sweep, and with it the process (red team y, Y5).
 */
function readText(path: string): string {
  return readRegularBytesSync(path, 4 * 1024 * 1024)?.toString("utf8") ?? "\0";
}

/**
 * The paths of the gitlinks (submodule entries, mode 160000) in a git index: `git status` looks
 * inside each, running that repository's fsmonitor. Reads index versions 2 to 4; an index it
 * cannot read yields what it read so far.
 */
export function gitlinksInIndex(indexPath: string, hashLength = 20): string[] {
  // A regular file only (a FIFO would block the sweep), of any size: a large repository's index is large.
  const data = readRegularBytesSync(indexPath, Number.MAX_SAFE_INTEGER);
  if (!data) return [];
  if (data.length < 12 || data.toString("latin1", 0, 4) !== "DIRC") return [];
  const version = data.readUInt32BE(4);
  const count = data.readUInt32BE(8);
  if (version < 2 || version > 4) return [];
  const out: string[] = [];
  let at = 12;
  let previous = "";
  for (let k = 0; k < count && at < data.length; k++) {
    const start = at;
    const mode = data.readUInt32BE(at + 24);
    const flagsAt = at + 40 + hashLength;
    if (flagsAt + 2 > data.length) break;
    const flags = data.readUInt16BE(flagsAt);
    at = flagsAt + 2 + (version >= 3 && flags & 0x4000 ? 2 : 0);
    let path: string;
    if (version === 4) {
      let strip = 0;
      let byte: number;
      let shift = 0;
      // git's offset varint: each continuation adds one before shifting
      byte = data[at++]!;
      strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = data[at++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
        shift++;
        if (shift > 4) return out;
      }
      const end = data.indexOf(0, at);
      if (end === -1) break;
      path = previous.slice(0, Math.max(0, previous.length - strip)) + data.toString("utf8", at, end);
      at = end + 1;
    } else {
      const end = data.indexOf(0, at);
      if (end === -1) break;
      path = data.toString("utf8", at, end);
      at = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    previous = path;
    if (mode >>> 12 === 0o16) out.push(path);
  }
  return out;
}

/**
 * Why a git config file is not harmless (its first setting this module does not understand).
 * `overridden`: keys (lower case, `section.key`) the caller sets itself on git's command line, so
 * the file's own values of them never count.
 */
export function unsafeGitConfig(path: string, overridden: ReadonlySet<string> = new Set()): string | undefined {
  const info = stat(path);
  if (!info) return undefined;
  if (!info.isFile() || info.size > 64 * 1024) return "is not a plain config file";
  let section = "";
  for (const raw of readText(path).split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]$/.exec(line);
    if (head) {
      section = head[2] === undefined ? head[1]!.toLowerCase() : `${head[1]!.toLowerCase()}.${head[2]}`;
      if (/[.\\]/.test(head[2] ?? "")) return `has a section name this check does not read (${line})`;
      continue;
    }
    const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!setting || !section) return `has a line this check does not read (${line.slice(0, 80)})`;
    const key = `${section}.${setting[1]!.toLowerCase()}`;
    const value = (setting[2] ?? "").trim();
    if (/\\$/.test(value) || /[`$]/.test(value)) return `has a value this check does not read (${key})`;
    if (overridden.has(key)) continue;
    if (!HARMLESS_GIT.test(key)) return `sets ${key}, which can make git run a program`;
    const bare = value.replace(/^"(.*)"$/, "$1");
    if (/\.(url|pushurl)$/.test(key) && !PLAIN_URL.test(bare))
      return `sets ${key} to a URL that can run a program (${value.slice(0, 80)})`;
    // `update = !command` runs the command on `git submodule update`.
    if (/^submodule\..*\.update$/.test(key) && !/^(checkout|rebase|merge|none)$/.test(bare))
      return `sets ${key} to ${bare.slice(0, 80)}, which can run a program`;
  }
  return undefined;
}
