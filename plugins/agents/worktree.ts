/**
 * Worktree isolation: an agent that works in a fresh `git worktree` of its caller's repository,
 * on a branch of its own, so its edits never touch the caller's working tree (nor another
 * isolated agent's: two of them may edit the same file).
 *
 * The worktrees live under `worktreeDir` [$XDG_DATA_HOME/ubiquity/worktrees, else
 * ~/.local/share/ubiquity/worktrees], one folder per repository: outside the user's tree (its
 * Glob, Grep and `git status` never see them, no .gitignore to edit), and outside `.git` and
 * `.ubiquity`, where every write is a sensitive one that asks even in bypassPermissions mode.
 *
 * Git runs with hooks and fsmonitor off and diffs without external drivers, so neither a hook nor
 * an fsmonitor program runs when a worktree is made or inspected (a checkout still applies the
 * filters the user's git config defines, such as Git LFS).
 *
 * A WorktreeCreate hook (Claude Code's) replaces git: it makes the working copy its own way (SVN,
 * Mercurial, Perforce, jj) and prints its path, which is taken only if it is an existing folder
 * of its own — not the caller's folder, nor one holding it or the home folder, nor a sensitive
 * folder itself (`~/.ssh`, a `.git` folder, a dot-folder of the home folder: the agent's commands
 * may write all of it, in the sandbox too); a folder inside one (`~/.claude/worktrees/x`, Claude
 * Code's own example) is its own. Its WorktreeRemove hook removes it.
 */
import { execFile } from "node:child_process";
import { hostEnv } from "../_kits/process/index";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, realpathSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { UbiquityError } from "../../src/index";
import { sensitiveReason } from "../permissions/api";
import { unsafeGitConfig } from "../sandbox/api";

/** An agent's worktree. */
export interface Worktree {
  /** The worktree's folder. */
  path: string;
  /** The agent's folder inside it (the caller's folder, relative to its repository's top, in the worktree). */
  cwd: string;
  /** The branch it is on (`ubiquity/agent-<id>`). */
  branch: string;
  /** The commit it started from (the caller's HEAD). */
  base: string;
  /** The caller's repository (its top folder). */
  repo: string;
  /** Made by a WorktreeCreate hook (no branch, base or repository of ours: the hook's own way). */
  byHook?: true;
  /** Made in a folder the user has not trusted: git runs in it only while the repository's config runs nothing. */
  untrusted?: true;
}

/** What the worktree holds once its agent finished. */
export interface WorktreeReport {
  /** False when it was unchanged, and was removed with its branch. */
  kept: boolean;
  /** `git diff --stat` against the base (new files included), empty when unchanged. */
  stat: string;
  /** Commits the agent made on its branch. */
  commits: number;
  /** What to tell the caller. */
  text: string;
}

/** A worktree that could not be made or inspected; the message carries git's own words. */
export class WorktreeError extends UbiquityError {
  override name = "WorktreeError";
}

// Settings that keep a repository's own config from running anything while we work in it.
const OVERRIDES = ["core.hooksPath=/dev/null", "core.fsmonitor=false", "core.quotePath=false", "commit.gpgSign=false"];
const SAFE = OVERRIDES.flatMap((c) => ["-c", c]);
/** The keys SAFE sets (lower case): the repository's own values of them never count. */
const OVERRIDDEN = new Set(OVERRIDES.map((c) => c.slice(0, c.indexOf("=")).toLowerCase()));

/**
 * Why git must not run in the repository at `cwd` for a folder the user has not trusted, or
 * undefined when its config runs nothing. SAFE turns off hooks and fsmonitor only: a checkout
 * runs the smudge filters (`filter.<x>.smudge`, `.process`) a repository's own `.git/config`
 * defines for the paths its `.gitattributes` names, and `git add` and `git status` their clean
 * filters, on the host and outside the sandbox. A folder that came as an archive with its `.git`
 * is the attacker's whole (red team x, X1). Fail closed: any setting the sandbox's check of a
 * git folder does not know as harmless (its allow-list) refuses, in the repository's config, a
 * linked worktree's own and the per-worktree file.
 */
async function untrustedConfig(cwd: string): Promise<string | undefined> {
  const [gitDir, common] = (await git(cwd, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]))
    .trim()
    .split("\n");
  const files = new Set([join(common!, "config"), join(common!, "config.worktree")]);
  if (gitDir) for (const name of ["config", "config.worktree"]) files.add(join(gitDir, name));
  for (const file of files) {
    const why = await unsafeGitConfig(file, OVERRIDDEN);
    if (why) return `${file} ${why}`;
  }
  return undefined;
}

/** Throw when `cwd`'s repository config may run a program and the folder is not trusted (see untrustedConfig). */
async function refuseUntrustedConfig(cwd: string): Promise<void> {
  const why = await untrustedConfig(cwd);
  if (why)
    throw new WorktreeError(
      `worktree isolation runs git in this repository, and this folder is not trusted while ${why}: git would run it outside the sandbox. Trust the folder (\`ubiquity trust .\`) after reviewing its .git/config, or run the agent without isolation`,
    );
}

function git(cwd: string, args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  // The user's GIT_DIR / GIT_WORK_TREE would point every command elsewhere.
  for (const [key, value] of Object.entries(hostEnv(process.env, [cwd])))
    if (!key.startsWith("GIT_") && value !== undefined) env[key] = value;
  env.GIT_TERMINAL_PROMPT = "0";
  env.LC_ALL = "C";
  return new Promise((resolve, reject) => {
    execFile("git", [...SAFE, ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      reject(
        new WorktreeError(
          missing
            ? "worktree isolation needs git on PATH: install git, or run the agent without isolation"
            : `git ${args[0]} failed: ${String(stderr).trim() || error.message}`,
        ),
      );
    });
  });
}

/** The default home of agents' worktrees. */
export function defaultWorktreeDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const data = env.XDG_DATA_HOME?.startsWith("/") ? env.XDG_DATA_HOME : join(home, ".local", "share");
  return join(data, "ubiquity", "worktrees");
}

/** The folder of one repository's worktrees: its name and a digest of its path, so two `app` repositories never share one. */
export function repoFolder(dir: string, repo: string): string {
  const digest = createHash("sha256").update(repo).digest("hex").slice(0, 10);
  return join(dir, `${basename(repo).replace(/[^A-Za-z0-9._-]/g, "_") || "repo"}-${digest}`);
}

/** A fresh worktree's name (`agent-<hex>`), as a WorktreeCreate hook receives it. */
export const worktreeName = (): string => `agent-${randomBytes(4).toString("hex")}`;

/** The worktree a WorktreeCreate hook printed the path of, for an agent called from `callerCwd`; throws when it cannot be one. */
export function worktreeFromHook(printed: string | undefined, callerCwd: string, home = homedir()): Worktree {
  const said = (what: string) =>
    new WorktreeError(
      `the WorktreeCreate hook ${what}; it must make the worktree and print its absolute path as the last line of its output`,
    );
  if (!printed) throw said("printed no path");
  if (!isAbsolute(printed)) throw said(`printed ${JSON.stringify(printed)}, which is not an absolute path`);
  let path: string;
  try {
    path = realpathSync(printed);
  } catch {
    throw said(`printed ${printed}, which does not exist`);
  }
  if (!statSync(path).isDirectory()) throw said(`printed ${printed}, which is not a folder`);
  const holds = (outer: string, inner: string) =>
    inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  for (const [what, folder] of [
    ["the agent's caller's folder", real(callerCwd)],
    ["the home folder", real(home)],
  ] as const)
    if (holds(path, folder))
      throw new WorktreeError(
        `the WorktreeCreate hook printed ${path}, which ${path === folder ? "is" : "holds"} ${what} (${folder}): a worktree must be a folder of its own, since the agent may change all of it`,
      );
  // A sensitive folder itself (its files configure or run things: keys, git's hooks, a tool's settings).
  const homeReal = real(home);
  const sensitive = sensitiveReason(path);
  const gitInside = sensitive && /git/.test(sensitive) && /inside/.test(sensitive);
  if ((sensitive && /^it is a /.test(sensitive)) || gitInside)
    throw new WorktreeError(
      `the WorktreeCreate hook printed ${path}: ${sensitive}, which an agent may not be given to change`,
    );
  if (dirname(path) === homeReal && basename(path).startsWith("."))
    throw new WorktreeError(
      `the WorktreeCreate hook printed ${path}, a dot-folder of the home folder (a tool's settings), which an agent may not be given to change; make the worktree in a folder inside it`,
    );
  const system = systemFolderAt(path, holds, real);
  if (system)
    throw new WorktreeError(
      `the WorktreeCreate hook printed ${path}, which ${system}: a worktree is made writable for the agent's commands, sandboxed or not, and a system folder must never be`,
    );
  return { path, cwd: path, branch: "", base: "", repo: "", byHook: true };
}

/**
 * System folders a worktree may neither be, nor hold, nor be inside (fail closed: the sandbox
 * binds a worktree writable over its own view of them, so /run would bring back the sockets it
 * hides, /proc the host's processes and their environments, /dev the host's devices, and the
 * rest the programs every later command runs).
 */
const SYSTEM_FOLDERS = [
  "/proc",
  "/sys",
  "/dev",
  "/run",
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/var/run",
  "/var/lib",
];
/** Shared folders a worktree may be inside (a folder of its own) but neither be nor hold. */
const SHARED_FOLDERS = ["/tmp", "/var/tmp", "/var", "/dev/shm"];

/** Why `path` (real) cannot be a worktree for being a system folder, holding one or being in one; undefined when it can. */
function systemFolderAt(
  path: string,
  holds: (outer: string, inner: string) => boolean,
  real: (p: string) => string,
): string | undefined {
  for (const folder of [...SYSTEM_FOLDERS, ...SHARED_FOLDERS, tmpdir()]) {
    for (const f of new Set([folder, real(folder)])) {
      if (holds(path, f)) return `${path === f ? "is" : "holds"} the system folder ${f}`;
      if (SYSTEM_FOLDERS.includes(folder) && holds(f, path)) return `is inside the system folder ${f}`;
    }
  }
  return undefined;
}

// Git's worktree commands read every worktree's admin folder: two at once in one repository can
// read the other's half-written one ("failed to read .git/worktrees/…/commondir", seen when two
// isolated agents started together on a busy machine). One at a time per repository here.
const worktreeJobs = new Map<string, Promise<unknown>>();
function oneAtATime<T>(repo: string, job: () => Promise<T>): Promise<T> {
  const done = (worktreeJobs.get(repo) ?? Promise.resolve()).then(job, job);
  worktreeJobs.set(
    repo,
    done.catch(() => {}),
  );
  return done;
}

/**
 * Make a fresh worktree of the repository `cwd` is in, at its HEAD, on a new branch. `trusted`:
 * whether the run's folder is; when it is not, the repository's config must run nothing.
 */
export async function createWorktree(cwd: string, dir: string, trusted = true): Promise<Worktree> {
  let repo: string;
  try {
    repo = (await git(cwd, ["rev-parse", "--show-toplevel"])).trim();
  } catch (error) {
    if (error instanceof WorktreeError && /needs git/.test(error.message)) throw error;
    throw new WorktreeError(
      `worktree isolation needs a git repository, and ${cwd} is not in one: run the agent without isolation, or run git init`,
    );
  }
  let base: string;
  try {
    base = (await git(repo, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
  } catch {
    throw new WorktreeError(
      `worktree isolation needs a commit to start from, and ${repo} has none yet: commit once, or run the agent without isolation`,
    );
  }
  if (!trusted) await refuseUntrustedConfig(repo);
  const name = worktreeName();
  const branch = `ubiquity/${name}`;
  const parent = repoFolder(dir, repo);
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const path = join(parent, name);
  await oneAtATime(repo, () => git(repo, ["worktree", "add", "--quiet", "-b", branch, path, base]));
  return {
    path,
    cwd: join(path, relative(repo, cwd)),
    branch,
    base,
    repo,
    ...(trusted ? {} : { untrusted: true as const }),
  };
}

/**
 * What the agent changed, and the clean-up: an unchanged worktree (no commit, nothing modified
 * or new) is removed with its branch; a changed one is kept for the caller to review and merge.
 */
export async function finishWorktree(tree: Worktree): Promise<WorktreeReport> {
  // The agent's commands could write its worktree's files, its `.git` link among them: checked again.
  if (tree.untrusted) await refuseUntrustedConfig(tree.path);
  const commits = Number((await git(tree.path, ["rev-list", "--count", `${tree.base}..HEAD`])).trim()) || 0;
  const dirty = (await git(tree.path, ["status", "--porcelain", "--untracked-files=all"])).trim() !== "";
  if (!dirty && commits === 0) {
    await oneAtATime(tree.repo, () => git(tree.repo, ["worktree", "remove", "--force", tree.path]));
    await git(tree.repo, ["branch", "-D", "--quiet", tree.branch]).catch(() => undefined);
    return {
      kept: false,
      stat: "",
      commits,
      text: `Worktree: no changes; its worktree and branch ${tree.branch} were removed.`,
    };
  }
  // Our own worktree: intent-to-add lets the diff show new files too.
  await git(tree.path, ["add", "--intent-to-add", "--all"]);
  const stat = (await git(tree.path, ["diff", "--no-ext-diff", "--no-textconv", "--stat", tree.base])).trimEnd();
  const lines = [
    `Worktree: branch ${tree.branch} at ${tree.path} (from ${tree.base.slice(0, 12)}${commits ? `; ${commits} commit${commits === 1 ? "" : "s"} by the agent` : ""}${dirty ? "; uncommitted changes in the worktree" : ""}).`,
    "Changes against the base:",
    stat || "(none in tracked content)",
    `Review with \`git -C ${tree.path} diff ${tree.base.slice(0, 12)}\`; bring them in by committing there and merging ${tree.branch}. Remove it with \`git worktree remove ${tree.path}\` and \`git branch -D ${tree.branch}\`.`,
  ];
  return { kept: true, stat, commits, text: lines.join("\n") };
}
