/**
 * What stays read-only inside the writable folders: the files that configure the agent or run
 * code later (git hooks and config, Ubiquity's own config, settings, MCP servers and memory,
 * shell start-up files, package-manager config that can run programs), existing or not.
 *
 * A path that exists is bound read-only over itself. One that does not exist is harder:
 * bubblewrap can only mount over a name that exists, and makes one in the real folder when it
 * is missing. For a folder that is fine — an empty folder is invisible to git and to the
 * config search — so a missing protected folder gets an empty read-only folder, made by us
 * before the command and removed after the run. For a file it is not: an empty
 * `ubiquity.config.ts` or `.mcp.json` would be committed by `git add -A` inside the very
 * command, and would break the next run's config search if left behind. So a missing
 * protected file is watched instead: when a sandboxed Bash command ends (and with it every
 * process it started, thanks to the PID namespace), whatever it created there is removed and
 * reported as a violation, before anything outside the sandbox can read it.
 */
import { lazyRequire } from "../_kits/lazy/index";
import { hostEnv } from "../_kits/process/index";
import { existsSync, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CONFIG_SEARCH_PLACES } from "../../loader/index";

// node:child_process on first use: an ESM import of it loads net, dgram and perf code, which a
// run that spawns nothing never needs (cold start, bench/lean-profile.md).
const childProcess = lazyRequire<typeof import("node:child_process")>("node:child_process");

/**
 * Protected folders, relative to each writable folder (made read-only, existing or not): the
 * agent's own config, and editor/tool folders whose files run code later. The same folders make
 * a write ask in the permission engine (sensitive paths), so autoAllowBash does not open them.
 */
export const PROTECTED_FOLDERS = [".ubiquity", ".vscode", ".idea", ".husky", ".claude", ".githooks"] as const;

/** Credential folders, protected like the above when a writable folder is the home folder itself. */
export const PROTECTED_HOME_FOLDERS = [".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure"] as const;

/** Protected folders inside `.git` (only when `.git` is a folder: a worktree's gitdir lives elsewhere). */
export const PROTECTED_GIT = ["hooks", "config"] as const;

/** Protected files, relative to each writable folder (read-only when present, watched when missing). */
export const PROTECTED_FILES: readonly string[] = [
  ...CONFIG_SEARCH_PLACES.filter((p) => p !== "package.json"),
  ".mcp.json",
  "UBIQUITY.md",
  "UBIQUITY.local.md",
  ".envrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".kshrc",
  ".mkshrc",
  ".config/fish/config.fish",
  ".gitconfig",
  ".git-credentials",
  ".netrc",
  ".pypirc",
  ".pgpass",
];

/** How one writable folder is laid out in the sandbox. */
export interface RootLayout {
  /** Folders bound writable over themselves, so they cannot be renamed away (`mv .git .git2`). */
  pinned: string[];
  /** Existing paths bound read-only over themselves. */
  readOnly: string[];
  /** Missing protected folders: an empty read-only folder stands there while the run lasts. */
  placeholders: string[];
  /** Missing protected files: removed again if a sandboxed command creates them. */
  watched: string[];
  /**
   * Protected paths that are symlinks: a bind lands on the target, so the link itself could be
   * replaced; it is checked after each Bash command and put back.
   */
  links: { path: string; target: string }[];
  /**
   * Read-only paths shown through a stand-in (the path → the file bound there instead): a git
   * folder's config without its credentials (red team q, Q6).
   */
  standIns?: Map<string, string>;
}

type Kind = "dir" | "file" | "other" | undefined;
function kind(path: string): Kind {
  try {
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (!info) return undefined;
    return info.isDirectory() ? "dir" : info.isSymbolicLink() || info.isFile() ? "file" : "other";
  } catch {
    return "other"; // ENOTDIR and the like: nothing can be created there either
  }
}

/** Submodules' git folders (`.git/modules/a`, `.git/modules/lib/b`, nested ones), a few levels deep. */
function submoduleGitDirs(gitDir: string): string[] {
  const out: string[] = [];
  // Under modules/, a folder with a HEAD is a submodule's git folder; one without only groups
  // the parts of a name with slashes (modules/lib/b).
  const walk = (dir: string, depth: number) => {
    if (depth > 4) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const sub = join(dir, name);
      if (kind(sub) !== "dir") continue;
      if (kind(join(sub, "HEAD")) === "file") {
        out.push(sub);
        walk(join(sub, "modules"), depth + 1);
      } else walk(sub, depth + 1);
    }
  };
  walk(join(gitDir, "modules"), 0);
  return out;
}

/** The layout of one writable folder, with `extra` (denyWrite) paths protected like files. */
export function layoutRoot(root: string, extra: readonly string[] = [], home?: string): RootLayout {
  const out: RootLayout = { pinned: [], readOnly: [], placeholders: [], watched: [], links: [] };
  for (const name of root === home ? [...PROTECTED_FOLDERS, ...PROTECTED_HOME_FOLDERS] : PROTECTED_FOLDERS) {
    const path = join(root, name);
    const k = kind(path);
    if (k === undefined) out.placeholders.push(path);
    else out.readOnly.push(path);
  }
  const git = join(root, ".git");
  if (kind(git) === "dir") {
    for (const gitDir of [git, ...submoduleGitDirs(git)]) {
      out.pinned.push(gitDir);
      for (const name of PROTECTED_GIT) {
        const path = join(gitDir, name);
        const k = kind(path);
        if (k !== undefined) out.readOnly.push(path);
        else if (name === "hooks") out.placeholders.push(path);
        else out.watched.push(path);
      }
    }
  }
  const dotConfig = kind(join(root, ".config"));
  for (const name of PROTECTED_FILES) {
    if (name.startsWith(".config/") && dotConfig !== "dir" && dotConfig !== undefined) continue; // .config is a file: nothing can go under it
    const path = join(root, name);
    if (kind(path) !== undefined) out.readOnly.push(path);
    else out.watched.push(path);
  }
  for (const path of extra) {
    if (!path.startsWith(`${root}/`) && path !== root) continue;
    if (kind(path) !== undefined) out.readOnly.push(path);
    else out.watched.push(path);
  }
  for (const path of out.readOnly) {
    try {
      if (lstatSync(path).isSymbolicLink()) out.links.push({ path, target: readlinkSync(path) });
    } catch {
      // gone meanwhile
    }
  }
  // A dangling link cannot be bound (its target is missing): watch its target like a missing file.
  for (const link of out.links) if (!existsSync(link.path)) out.watched.push(resolve(dirname(link.path), link.target));
  out.readOnly = [...new Set(out.readOnly.filter((p) => existsSync(p)))];
  return out;
}

/** Most entries looked at here below protected folders for a hard link, per command, before `find` takes over. */
const MAX_LINK_SCAN = 5000;

/** Why a protected path stops a sandboxed command: it has another name, or that could not be ruled out. */
export interface SharedProtected {
  path: string;
  /** `linked`: the file has another name; `unchecked`: the check itself failed (fail closed). */
  why: "linked" | "unchecked";
}

/**
 * A protected file with a second name (a hard link): a read-only bind protects a path, not the
 * file, so a sandboxed command would change it through its other name (`cfg` linked to
 * `.git/config`). Looks at `paths` (protected files, and every file below protected folders) and
 * returns the first such file, or undefined. A few thousand entries are looked at here; folders
 * larger than that (`~/.claude` with its transcripts, when the workspace is the home folder) are
 * searched whole by `find`, and a search that fails refuses the command (fail closed).
 */
export function hardLinkedProtected(paths: readonly string[]): SharedProtected | undefined {
  let seen = 0;
  const visit = (path: string): string | undefined | "over" => {
    if (++seen > MAX_LINK_SCAN) return "over";
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (!info) return undefined;
    if (info.isFile()) return info.nlink > 1 ? path : undefined;
    if (!info.isDirectory()) return undefined;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return undefined;
    }
    for (const name of names) {
      const hit = visit(join(path, name));
      if (hit) return hit;
    }
    return undefined;
  };
  for (const path of paths) {
    const hit = visit(path);
    if (hit === "over") return linkedByFind(paths);
    if (hit) return { path: hit, why: "linked" };
  }
  return undefined;
}

/** The same search by `find` (every level, no budget): the first file with more than one name. */
function linkedByFind(paths: readonly string[]): SharedProtected | undefined {
  const found = childProcess().spawnSync("find", [...paths, "-type", "f", "-links", "+1", "-print", "-quit"], {
    env: hostEnv(process.env, paths),
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  const first = found.stdout?.split("\n")[0];
  if (first) return { path: first, why: "linked" };
  // An unreadable folder, or no `find`: nothing below could be ruled out.
  if (found.status !== 0) return { path: paths[0] ?? "", why: "unchecked" };
  return undefined;
}
