/**
 * Credentials git keeps in a repository's own config: an `http.<url>.extraheader` (GitHub's
 * actions/checkout writes `AUTHORIZATION: basic …` there by default) and a password in a remote's
 * URL (`https://ci:TOKEN@host/…`). They are no secret by a file's name, and `git config --list`,
 * `git remote -v`, `cat .git/config` and Read show them: registered as secrets when a run starts
 * in the repository, they are masked wherever they show (red team ze, ZE7); its submodules'
 * configs likewise (red team zh, ZH7).
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readRegularBytesSync } from "../../../loader/index";
import { urlPasswords } from "../../../src/index";
import { noteSecretForms } from "./secret-forms";

/** Note as secrets the credentials the git config of the repository holding `dir` keeps. */
export function noteGitCredentials(dir: string): void {
  const gitDir = repositoryOf(resolve(dir));
  if (!gitDir) return;
  // A linked worktree's git folder keeps its own config.worktree; the repository's config is in
  // the folder its `commondir` names (git reads both): in a worktree, `git remote -v` printed the
  // token of a remote that the main checkout masked (red team zh, ZH7).
  const common = commonDirOf(gitDir);
  const folders = common && common !== gitDir ? [gitDir, common] : [gitDir];
  const files = folders.flatMap((g) => [join(g, "config"), join(g, "config.worktree"), ...submoduleConfigs(g)]);
  for (const file of files) {
    const text = readRegularBytesSync(file, 1024 * 1024)?.toString("utf8");
    if (!text) continue;
    for (const password of urlPasswords(text)) noteSecretForms(password);
    // `extraheader = AUTHORIZATION: basic …`: the header's value, with the forms a server echoes.
    for (const m of text.matchAll(/^\s*extraheader\s*=\s*"?[A-Za-z][\w-]*:\s*([^"\n]+?)"?\s*$/gim))
      noteSecretForms(m[1]);
  }
}

/** Folders of a git folder that hold no config of a submodule (git's own data), not walked. */
const GIT_DATA = new Set(["objects", "refs", "logs", "hooks", "info", "lfs", "rr-cache", "worktrees"]);

/**
 * The configs of the repository's submodules (`.git/modules/<name>/config`, a name may hold `/`,
 * and a submodule's own under its `modules`): a remote's URL there carries a token as the
 * repository's own does, and Read or `cat` showed it while the repository's was masked (red team
 * zh, ZH7). Walked up to 8 levels and 500 folders (a bound, not a limit real checkouts reach).
 */
function submoduleConfigs(gitDir: string): string[] {
  const found: string[] = [];
  let budget = 500;
  const walk = (folder: string, depth: number) => {
    if (depth > 8 || budget-- <= 0) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isFile() && (entry.name === "config" || entry.name === "config.worktree"))
        found.push(join(folder, entry.name));
      else if (entry.isDirectory() && !GIT_DATA.has(entry.name)) walk(join(folder, entry.name), depth + 1);
    }
  };
  walk(join(gitDir, "modules"), 0);
  return found;
}

/** The repository's common git folder a linked worktree's git folder names (`commondir`), if any. */
function commonDirOf(gitDir: string): string | undefined {
  const named = readRegularBytesSync(join(gitDir, "commondir"), 4096)?.toString("utf8").trim();
  return named ? resolve(gitDir, named) : undefined;
}

/** The git folder of the repository holding `dir` (the nearest `.git` up, a folder or a `gitdir:` file). */
function repositoryOf(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(dotGit, { throwIfNoEntry: false });
    } catch {
      info = undefined;
    }
    if (info?.isDirectory()) return dotGit;
    if (info?.isFile()) {
      const m = /^gitdir: (.+?)\s*$/m.exec(readRegularBytesSync(dotGit, 64 * 1024)?.toString("utf8") ?? "");
      return m ? resolve(d, m[1]!) : undefined;
    }
    if (dirname(d) === d) return undefined;
  }
}
