/**
 * Files and folders a repository's existing git config names, which git runs or reads config from:
 * core.hooksPath (a project's `githooks/`), an included file (`include.path = ../project.gitconfig`),
 * and path-like words in the commands it runs (a diff driver's `tools/conv.sh`). They run code as
 * `.git/hooks` and `.git/config` do. One list for the engine, which asks before a write there, and
 * the sandbox's guard, which keeps them read-only (red team ze, ZE4: the guard knew them, the
 * engine did not).
 */
import { statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { readRegularBytesSync } from "../../loader/index";

/** Keys whose value is a path git reads config or hooks from. */
const PATH_KEYS = /^(core\.hookspath|include\.path|includeif\..*\.path)$/;
/** Keys whose value is a command git runs (a path in it runs). */
const COMMAND_KEYS =
  /^(core\.(fsmonitor|sshcommand|editor|pager|askpass|gitproxy)|alias\..*|filter\..*\.(clean|smudge|process)|diff\.(external|.*\.(command|textconv))|merge\..*\.driver|(difftool|mergetool)\..*\.cmd|trailer\..*\.(command|cmd)|remote\..*\.(uploadpack|receivepack)|submodule\..*\.update|credential(\..*)?\.helper|gpg(\..*)?\.program|gpg\.ssh\.defaultkeycommand|sequence\.editor|uploadpack\.packobjectshook|pager\..*)$/;
/** How deep git follows includes (its own limit). */
const MAX_INCLUDE_DEPTH = 10;

function readText(path: string): string {
  return readRegularBytesSync(path, 4 * 1024 * 1024)?.toString("utf8") ?? "\0";
}

/**
 * The paths a git folder's existing config names that git reads or runs: core.hooksPath,
 * includes (and what they name in turn), and path-like words in the commands it runs. Resolved as
 * git does (a hooks path relative to the worktree, an include relative to the file that names it),
 * `~/` from HOME.
 */
export function pathsNamedByConfig(
  gitDir: string,
  home = process.env.HOME ?? "",
  worktree = worktreeOf(gitDir),
): string[] {
  const out: string[] = [];
  // Red team zg (ZG4): a linked worktree's git folder (`.git/worktrees/NAME`, where its `.git`
  // file leads) holds only its own config.worktree; the repository's config is in the folder its
  // `commondir` names, and git reads it for every worktree.
  const common = commonDirOf(gitDir);
  // The repository's own config, and the user's and the system's: a relative core.hooksPath
  // there (`.git-hooks`) names a folder in every repository.
  const xdg = process.env.XDG_CONFIG_HOME || join(home, ".config");
  const files = [
    join(common, "config"),
    join(common, "config.worktree"),
    join(gitDir, "config"),
    join(gitDir, "config.worktree"),
    ...(home ? [join(home, ".gitconfig"), join(xdg, "git", "config")] : []),
    "/etc/gitconfig",
  ];
  const read = new Set<string>();
  const readFile = (file: string, depth: number) => {
    if (read.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    read.add(file);
    const own = file.startsWith(`${gitDir}${sep}`);
    let section = "";
    for (const raw of configLines(readText(file))) {
      let line = raw.trim();
      const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]/.exec(line);
      if (head) {
        section = head[2] === undefined ? head[1]!.toLowerCase() : `${head[1]!.toLowerCase()}.${head[2]}`;
        // git reads a setting on the header's own line too (`[core] hooksPath = githooks`).
        line = line.slice(head[0].length).trim();
      }
      const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
      if (!setting || !section) continue;
      const key = `${section}.${setting[1]!.toLowerCase()}`;
      const value = configValue(setting[2]!);
      const words = PATH_KEYS.test(key)
        ? [value]
        : COMMAND_KEYS.test(key)
          ? value.replace(/^!/, "").split(/[\s;|&()'"]+/)
          : [];
      for (const word of words) {
        if (!word || (!word.includes("/") && !PATH_KEYS.test(key))) continue;
        const expanded = word.startsWith("~/") ? join(home, word.slice(2)) : word;
        const base = key.startsWith("include") ? (own ? gitDir : dirname(file)) : worktree;
        const path = isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
        out.push(path);
        // An included file's settings are the config's own: what it names runs too.
        if (key.startsWith("include")) readFile(path, depth + 1);
      }
    }
  };
  for (const file of files) readFile(file, 0);
  return out;
}

/**
 * The config's lines as git reads them: a line ending in a backslash (an odd number of them) goes
 * on in the next one (`hooksPath = git\` then `hooks` is `githooks`).
 */
function configLines(text: string): string[] {
  const out: string[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    const body = line.replace(/\r$/, "");
    const trailing = /\\*$/.exec(body)![0].length;
    if (trailing % 2 === 1) pending += body.slice(0, -1);
    else {
      out.push(pending + body);
      pending = "";
    }
  }
  if (pending) out.push(pending);
  return out;
}

/** The folder a git folder shares its config, objects and refs with: its `commondir` (a linked worktree's), or itself. */
function commonDirOf(gitDir: string): string {
  const named = readRegularBytesSync(join(gitDir, "commondir"), 4096)?.toString("utf8").trim();
  return named ? resolve(gitDir, named) : gitDir;
}

/** The work tree a git folder serves: `.git`'s parent, a linked worktree's (its `gitdir` file names its `.git` file), or itself (bare). */
function worktreeOf(gitDir: string): string {
  if (basename(gitDir) === ".git") return dirname(gitDir);
  const named = readRegularBytesSync(join(gitDir, "gitdir"), 4096)?.toString("utf8").trim();
  return named ? dirname(resolve(gitDir, named)) : gitDir;
}

/**
 * A setting's value as git reads it: quotes removed, `\"`, `\\`, `\t` and `\n` unescaped, and a
 * `#` or `;` outside quotes starting a comment (`path = ../x.gitconfig ; shared`).
 */
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\" && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "" : next;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

/**
 * The git config (of a repository holding `path`, inside a permitted root) that names `path`, or a
 * folder holding it, as a hook, an included config or a program git runs.
 */
export function gitConfigNaming(path: string, roots: readonly string[], home?: string): string | undefined {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (!roots.some((root) => dir === root || dir.startsWith(`${root}${sep}`))) return undefined;
    const gitDir = gitDirOf(dir);
    if (gitDir === undefined) continue;
    const named = pathsNamedByConfig(gitDir, home, dir).find((p) => path === p || path.startsWith(`${p}${sep}`));
    if (named) return `${join(gitDir, "config")} (or a file it includes) names ${named}`;
  }
  return undefined;
}

/** The git folder of a work tree at `dir`: `dir/.git`, or where a `.git` file's `gitdir:` leads. */
function gitDirOf(dir: string): string | undefined {
  const dotGit = join(dir, ".git");
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(dotGit, { throwIfNoEntry: false });
  } catch {
    return undefined; // unreadable: git cannot read it either
  }
  if (info?.isDirectory()) return dotGit;
  if (!info?.isFile()) return undefined;
  const m = /^gitdir: (.+?)\s*$/m.exec(readText(dotGit));
  return m ? resolve(dir, m[1]!) : undefined;
}
