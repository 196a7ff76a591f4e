/**
 * Sensitive paths: writing them can leak secrets, make something run later (git hooks and
 * config, shell start-up files, editor tasks, package manager config and scripts) or change
 * what the agent itself may do (its config files, settings, memory, agents, skills, MCP
 * servers) — a write that grants power. A write or edit to one always asks, even in
 * acceptEdits and bypassPermissions mode. Judged on both forms of the path (as written and
 * fully resolved), by path component and case-insensitively, so a symlink, `..`, `//`,
 * `/proc/self/cwd`, `.GIT` or `Ubiquity.Config.ts` cannot route around it — also for files
 * that do not exist yet (a settings file created where none was is the classic hole).
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { readRegularBytesSync } from "../../loader/index";

// `.ubiquity` holds settings, the project memory file, agents and skills (also `*.local`).
// Also folders whose files run code later: dev containers, cargo's config (build.rustc-wrapper,
// target.runner), hook managers' scripts, yarn's plugins and releases, other agents' settings.
const FOLDERS = new Set([
  ".git",
  ".ssh",
  ".aws",
  ".gnupg",
  ".vscode",
  ".idea",
  ".ubiquity",
  ".claude",
  ".kube",
  ".docker",
  ".husky",
  ".azure",
  ".devcontainer",
  ".cargo",
  ".githooks",
  ".lefthook",
  ".yarn",
  ".codex",
  // Codex's project and user folder: its skills (whose allowed-tools are granted when loaded)
  // and its plugin marketplace; ubiquity reads .agents/skills under compat: ["codex"].
  ".agents",
  ".bashrc.d",
  // direnv's own folder: `layout python` makes a virtualenv there whose bin/ goes on PATH at cd.
  ".direnv",
  ".mvn",
  ".mise",
  // Other VCSs' hooks and config, editors' and REPLs' start-up folders, other agents' settings and MCP servers.
  ".hg",
  // Sapling's .sl/config has Mercurial's [hooks]; Jujutsu's .jj/repo/config.toml names a pager,
  // an editor, fix tools and aliases; Pijul's .pijul/config has hooks (red team j, J9).
  ".sl",
  ".jj",
  ".pijul",
  ".helix",
  ".vim",
  ".emacs.d",
  ".ipython",
  ".julia",
  ".m2",
  ".cursor",
  ".gemini",
  ".zed",
  ".roo",
  ".windsurf",
  ".continue",
  ".kiro",
  ".amazonq",
  // Red-team fix: a plugin manifest's inline hooks and mcpServers run code (Claude Code and Codex plugins).
  ".claude-plugin",
  ".codex-plugin",
]);

// Folders that run code later only under a given parent (home-relative in practice): shells' and
// systemd's start-up folders, ~/.local/bin on PATH, gradle's init scripts, editors' config.
const NESTED_FOLDERS: readonly (readonly string[])[] = [
  [".config", "fish"],
  [".config", "systemd"],
  [".config", "environment.d"],
  [".config", "autostart"],
  [".config", "git"],
  [".config", "mise"],
  [".config", "nvim"],
  [".config", "direnv"],
  [".config", "pip"],
  [".config", "gh"],
  [".config", "pnpm"],
  [".config", "i3"],
  [".config", "sway"],
  [".config", "hypr"],
  [".config", "containers"],
  [".local", "bin"],
  [".gradle", "init.d"],
  [".local", "share", "nvim"],
  [".local", "share", "bash-completion"],
  [".local", "share", "applications"],
  // Programs `npm test` and friends run by name, and the gradle wrapper gradlew downloads and runs.
  ["node_modules", ".bin"],
  ["gradle", "wrapper"],
];

/** The first name of each of NESTED_FOLDERS. */
const NESTED_HEADS = new Set(NESTED_FOLDERS.map((seq) => seq[0]!));

const FILES = new Set([
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".netrc",
  ".gitconfig",
  ".gitmodules",
  ".git-credentials",
  ".pgpass",
  ".mcp.json",
  ".envrc",
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
  "config.fish",
  // The memory files the memory plugin reads: standing instructions in every system prompt.
  "ubiquity.md",
  "ubiquity.local.md",
  // package.json at any depth: its "ubiquity" key is a config file the search loads, and its
  // scripts (and lifecycle scripts such as postinstall) run whenever Bash runs npm, npx, yarn,
  // pnpm or bun — so an edit can turn an approved `npm test` into any code. Telling a scripts
  // edit from a version bump would need a JSON diff of every Write, Edit and shell write; the
  // engine cannot see inside `sed -i`, so it asks for every write.
  "package.json",
  // Where a package manager fetches packages from (an index, find-links, a channel), as .npmrc's
  // registry is: pip reads the environment's own pip.conf (`.venv/pip.conf`), uv its uv.toml beside
  // the project, poetry its poetry.toml, conda a .condarc; a planted one made the next `pip install`
  // fetch and run the attacker's package (red team zn, ZN2).
  "pip.conf",
  "pip.ini",
  "uv.toml",
  "poetry.toml",
  ".condarc",
  "condarc",
  // Run code on a package manager's or a git hook manager's next start.
  ".pnpmfile.cjs",
  ".pnpmfile.mjs",
  "bunfig.toml",
  ".bunfig.toml",
  ".pre-commit-config.yaml",
  // Tool versions that can name a program (mise tasks and hooks, rustup's `path`).
  "mise.toml",
  ".mise.toml",
  "mise.local.toml",
  ".mise.local.toml",
  ".tool-versions",
  "rust-toolchain",
  "rust-toolchain.toml",
  ".devcontainer.json",
  // Run on an interpreter's, editor's or debugger's next start. A virtualenv's pyvenv.cfg names
  // (`home`) the folder its python takes for its own: the standard library, `encodings` and `site`
  // among it, is loaded from beside that folder at every start (red team zk, ZK2).
  "pyvenv.cfg",
  "sitecustomize.py",
  "usercustomize.py",
  ".pythonrc",
  ".pythonrc.py",
  ".irbrc",
  ".pryrc",
  ".rprofile",
  ".vimrc",
  ".gvimrc",
  ".exrc",
  "_vimrc",
  ".nvimrc",
  ".gdbinit",
  ".lldbinit",
  ".tmux.conf",
  ".screenrc",
  ".psqlrc",
  ".wgetrc",
  ".curlrc",
  ".xinitrc",
  ".xprofile",
  ".xsession",
  ".xsessionrc",
  ".dir-locals.el",
  ".dir-locals-2.el",
  ".nvim.lua",
  ".pdbrc",
  ".pdbrc.py",
  ".ghci",
  ".sqliterc",
  ".mongoshrc.js",
  ".mongorc.js",
  ".hgrc",
  // Fossil's checkout database, which holds the checkout's settings (red team j, J9).
  ".fslckout",
  "_fossil_",
  ".emacs",
  ".emacs.el",
  ".bash_completion",
  ".pam_environment",
  // Yarn's Plug'n'Play loader runs at every node start; deno's tasks run like package.json scripts.
  ".pnp.cjs",
  ".pnp.loader.mjs",
  "deno.json",
  "deno.jsonc",
  // gradle.properties' jvmargs (a -javaagent) run with every build, as package.json's scripts do.
  "gradle.properties",
  // Other agents' standing instructions and settings (their MCP servers run code).
  "claude.md",
  "claude.local.md",
  "agents.md",
  // Codex reads it in place of AGENTS.md in the same folder.
  "agents.override.md",
  "gemini.md",
  ".cursorrules",
  ".windsurfrules",
  ".clinerules",
  ".aider.conf.yml",
  "opencode.json",
  "opencode.jsonc",
]);

// .env and .env.*; private keys by name (id_rsa, id_ed25519, …) and by extension; the agent's
// config files the config search loads (`ubiquity.config.<any extension>`, `.ubiquityrc*`).
// lefthook's config in every spelling (lefthook.yml, .lefthook-local.toml, …), editor workspaces
// (their tasks run), and Python's .pth files (their `import` lines run at every start).
const FILE_PATTERNS = [
  /^\.env(\..*)?$/,
  /^id_[a-z0-9_]+$/,
  /\.(pem|key|p12|pfx|jks|keystore)$/,
  /^ubiquity\.config\./,
  /^\.ubiquityrc/,
  /^\.?lefthook(-local)?\.(ya?ml|json|jsonc|toml)$/,
  /\.code-workspace$/,
  /\.pth$/,
  // mise's config in every spelling (mise.toml, .mise.local.toml, mise.dev.toml) and direnv's
  // files an .envrc loads by convention (.envrc.local, .envrc.private): both run on `cd`.
  /^\.?mise(\.[a-z0-9_-]+)*\.toml$/,
  /^\.envrc(\..+)?$/,
];

// Lockfiles: the file a package manager installs from names where each package's code comes from
// (npm's `resolved`, pnpm's `tarball`, uv's and poetry's `source`, Bundler's `remote:`), and an
// install follows it over the manifest: `npm ci` fetched a dependency of `^1.3.0` from the file or
// URL the lock named and ran its install script (red team zn, ZN1). Nobody reads their diffs (code
// hosts fold them), and the user's or CI's next install runs what they name, outside the agent —
// package.json's scripts, one step removed.
const LOCKFILE =
  /^(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.ya?ml|bun\.lockb?|uv\.lock|poetry\.lock|pdm\.lock|pipfile\.lock|pylock(\.[^.]+)?\.toml|gemfile\.lock|gems\.locked|composer\.lock|pubspec\.lock|mix\.lock|package\.resolved)$/;

/** The reason `path` is sensitive, or undefined. */
export function sensitiveReason(path: string): string | undefined {
  const parts = path.toLowerCase().split(sep).filter(Boolean);
  const folder = parts.slice(0, -1).find((p) => FOLDERS.has(p));
  if (folder) return `it is inside a ${folder} folder`;
  const name = parts.at(-1) ?? "";
  if (FOLDERS.has(name)) return `it is a ${name} folder`;
  // A bare repository (`repo.git/`): its config and hooks run code as a .git folder's do.
  const bare = parts.slice(0, -1).find((p) => p.endsWith(".git") && p !== ".git");
  if (bare) return `it is inside ${bare}, a git repository folder`;
  // The first of NESTED_FOLDERS (in its order) that starts at some k and ends before the name.
  // Plain loops: the sandbox's guard asks this of every file in the workspace, and closures per
  // part and per entry were most of what it allocated.
  for (let k = 0; k < parts.length - 1; k++) {
    if (!NESTED_HEADS.has(parts[k]!)) continue;
    for (const seq of NESTED_FOLDERS) {
      if (k + seq.length >= parts.length) continue;
      let j = 0;
      while (j < seq.length && parts[k + j] === seq[j]) j++;
      if (j === seq.length) return `it is inside ${seq.join("/")}, whose files run code later`;
    }
  }
  if (FILES.has(name) || FILE_PATTERNS.some((re) => re.test(name))) return `${name} is a sensitive file`;
  if (LOCKFILE.test(name)) return `${name} is a lockfile, which names where installs fetch each package's code from`;
  const parent = parts.at(-2);
  if (parent === ".config" && name.startsWith("ubiquityrc")) return "it is an agent config file (.config/ubiquityrc*)";
  if (parent === "mise" && name === "config.toml")
    return "it is mise's configuration (mise/config.toml), which runs on cd";
  if (parts.slice(-3, -1).join("/") === ".config/git") return "it is git's configuration";
  return undefined;
}

// System folders whose files run code for every user or at boot (profile scripts, the loader's
// preload list, sudoers, cron, systemd units, programs on PATH): sensitive outside the permitted folders.
const SYSTEM = /^\/(?:etc|usr|bin|sbin|lib|lib32|lib64|libx32|boot|opt|var\/spool|var\/lib\/systemd|root)(?:\/|$)/;

/** Why writing `path` (absolute, outside the permitted folders) changes the system, if it does. */
export function systemReason(path: string): string | undefined {
  return SYSTEM.test(path)
    ? `it is a system file (${path.split("/").slice(0, 3).join("/")}), which runs code for every user or at start-up`
    : undefined;
}

/**
 * The git folder `path` lies in, found by its contents (HEAD, objects/ and refs/): a bare
 * repository without the `.git` suffix, or any other git folder, whose config and hooks run code.
 */
export function gitFolderOf(path: string): string | undefined {
  const parts = path.split(sep);
  for (let k = parts.length - 1; k > 1; k--) {
    const dir = parts.slice(0, k).join(sep);
    if (isGitFolder(dir)) return dir;
  }
  return undefined;
}

/**
 * Is `dir` a git folder by its contents? As git's is_git_directory() decides, and wider where
 * git's own test looks further: a HEAD (a file, or a link, which git reads without following), and
 * objects/ and refs/ either there or in the folder a `commondir` file names — a linked worktree's
 * git folder keeps only HEAD and commondir, and git then runs under that other folder's config (a
 * `commondir` leading to a folder with objects/, refs/ and a config of the attacker's, no HEAD
 * there, ran its uploadpack on `git -C sub fetch`: red team zk, ZK3). Any kind of entry counts
 * (git's test is access(2), which an executable file passes).
 */
export function isGitFolder(dir: string): boolean {
  try {
    const there = (name: string) => lstatSync(join(dir, name), { throwIfNoEntry: false }) !== undefined;
    return there("HEAD") && ((there("objects") && there("refs")) || there("commondir"));
  } catch {
    return false; // unreadable: not known to be one
  }
}

// What makes a folder a git folder to git's discovery (HEAD, objects/, refs/), and what it runs
// code from (config, commondir: the folder whose config applies), with the type each must have.
const GIT_MARKERS: Record<string, "file" | "dir"> = {
  HEAD: "file",
  objects: "dir",
  refs: "dir",
  config: "file",
  commondir: "file",
};

/** Each folder `path` would be a git marker of (`d/HEAD`, `d/refs/heads/x`), with the marker's name. */
export function gitMarkersOf(path: string): { dir: string; marker: string }[] {
  const parts = path.split(sep);
  const out: { dir: string; marker: string }[] = [];
  for (let k = 1; k < parts.length; k++)
    if (Object.hasOwn(GIT_MARKERS, parts[k]!)) out.push({ dir: parts.slice(0, k).join(sep) || sep, marker: parts[k]! });
  return out;
}

/**
 * The permitted folder a write to `path` would help make a git folder: `path` is (or is under)
 * one of HEAD, objects/, refs/, config, commondir of a root that already holds another of them.
 * git takes a folder holding HEAD, objects/ and refs/ for a repository, and in a root that is no
 * repository (no .git) the `git status` an allow rule covers then runs the root's config
 * (core.fsmonitor); gitFolderOf only knows one once all three are there, so a config written
 * first went in unasked. (A folder below a root is another repository, where git is refused.)
 */
export function gitFolderInTheMaking(path: string, roots: readonly string[]): string | undefined {
  for (const { dir, marker } of gitMarkersOf(path)) {
    if (!roots.includes(dir)) continue;
    for (const [other, type] of Object.entries(GIT_MARKERS)) {
      if (other === marker) continue;
      try {
        const stats = statSync(join(dir, other), { throwIfNoEntry: false });
        if (stats && (type === "dir" ? stats.isDirectory() : stats.isFile())) return dir;
      } catch {
        // unreadable: not known to be one
      }
    }
  }
  return undefined;
}

/** Largest .envrc read; a bigger one is read as naming nothing but what is above it (direnv files are a few lines). */
const MAX_ENVRC_BYTES = 64 * 1024;

/**
 * The files an .envrc makes direnv read, and the folders it puts on PATH (whose programs then run
 * whenever the user types their names in the project): `source_env`/`dotenv` (and `_if_exists`)
 * targets, `source` and `.`, `use flake` (flake.nix, flake.lock), `use nix` (shell.nix,
 * default.nix), `PATH_add DIR…`, `path_add VAR DIR…` and an `export PATH=` entry under the folder
 * (`$PWD/bin`, `./bin`, `bin`). Relative to the .envrc's folder, which itself is never named.
 * Shared by the engine (a write there asks) and the sandbox (kept read-only there).
 */
export function pathsNamedByEnvrc(envrc: string): string[] {
  const dir = dirname(envrc);
  // A regular file only, opened without blocking (a FIFO would hold the host).
  const text = readRegularBytesSync(envrc, MAX_ENVRC_BYTES)?.toString("utf8");
  if (text === undefined) return [];
  const out: string[] = [];
  const unquote = (w: string) => w.replace(/^["']|["']$/g, "");
  for (const raw of text.split("\n")) {
    const words = raw.replace(/#.*/, "").trim().split(/\s+/).map(unquote);
    const [cmd, arg] = words;
    if (!cmd) continue;
    if (/^(source_env|source_env_if_exists|source|\.)$/.test(cmd) && arg) out.push(resolve(dir, arg));
    else if (/^(dotenv|dotenv_if_exists)$/.test(cmd)) out.push(resolve(dir, arg ?? ".env"));
    else if (cmd === "use" && arg === "flake")
      out.push(
        resolve(dir, words[2] && !words[2].startsWith("-") ? words[2].replace(/#.*/, "") : "."),
        join(dir, "flake.nix"),
        join(dir, "flake.lock"),
      );
    else if (cmd === "use" && arg === "nix")
      out.push(
        join(dir, "shell.nix"),
        join(dir, "default.nix"),
        ...(words[2] && !words[2].startsWith("-") ? [resolve(dir, words[2])] : []),
      );
    // PATH_add bin tools, path_add PATH bin (MANPATH_add and the like put no programs on PATH).
    else if (cmd === "PATH_add") out.push(...words.slice(1).map((w) => resolve(dir, w)));
    else if (cmd === "path_add" && arg === "PATH") out.push(...words.slice(2).map((w) => resolve(dir, w)));
    // export PATH=$PWD/bin:$PATH (PATH=… without export sets direnv's PATH too).
    const assignment = /^(?:export\s+)?PATH=(\S+)/.exec(raw.replace(/#.*/, "").trim());
    if (assignment)
      for (const entry of unquote(assignment[1]!).split(":")) {
        const rel = entry.replace(/^(\$\{?PWD\}?|\$\(pwd\))(?=\/|$)/, ".");
        if (rel !== "" && !rel.includes("$") && !rel.startsWith("/") && !rel.startsWith("~"))
          out.push(resolve(dir, rel));
      }
  }
  return out.filter((p) => p !== dir);
}

/**
 * The .envrc (in `path`'s folder or one above it, inside a permitted root) that names `path`,
 * or a folder holding it, as a file direnv reads or a folder it puts on PATH.
 */
export function envrcNaming(path: string, roots: readonly string[]): string | undefined {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (!roots.some((root) => dir === root || dir.startsWith(`${root.endsWith(sep) ? root : root + sep}`)))
      return undefined;
    const envrc = join(dir, ".envrc");
    if (!statSync(envrc, { throwIfNoEntry: false })?.isFile()) continue;
    if (pathsNamedByEnvrc(envrc).some((named) => path === named || path.startsWith(`${named}${sep}`))) return envrc;
  }
  return undefined;
}

/** The folders of this process's PATH (absolute entries, as written and resolved), kept while PATH's text stays the same. */
let programFolders: { text: string; folders: string[] } | undefined;

/** The PATHs runs give their commands through their `env` option, besides this process's (`noteCommandPath`). */
const givenPaths = new Set<string>();

/**
 * Note a PATH a run gives its commands (its `env` option's, which Bash, hooks and servers get in
 * place of this process's): its folders count for `pathFolderOf` from now on, in every run of the
 * process (a folder once on a command's PATH is judged as one; red team y's Y2, left open there).
 */
export function noteCommandPath(text: string | undefined): void {
  if (text) givenPaths.add(text);
}

/**
 * The folder on the PATH Bash's commands get (this process's, or a run's `env` option's: relative entries aside) that `path`
 * is, or is a program directly in: a program there runs in place of the one a command names
 * (`git status`, allowed by name, ran the `git` written into the project's `bin/` that a user's
 * `PATH_add bin` or `export PATH=$PWD/bin:$PATH` had put first; red team y, Y2). Whatever the
 * folder is called — a rule, not a list of names (`node_modules/.bin`, a virtualenv's bin).
 */
export function pathFolderOf(path: string): string | undefined {
  const text = [process.env.PATH ?? "", ...givenPaths].join(delimiter);
  if (programFolders?.text !== text) {
    const folders = text
      .split(delimiter)
      .filter((d) => isAbsolute(d))
      .flatMap((d) => {
        const written = resolve(d);
        try {
          return [written, realpathSync(written)];
        } catch {
          return [written]; // not there (yet): a folder made there later is on PATH all the same
        }
      });
    programFolders = { text, folders: [...new Set(folders)] };
  }
  const parent = dirname(path);
  return programFolders.folders.find((f) => f === path || f === parent);
}

/** The virtualenv whose bin/ (or Scripts/) folder `path` is in: a folder with pyvenv.cfg beside it. */
export function venvOf(path: string): string | undefined {
  const parts = path.split(sep);
  const at = parts.findIndex((p, k) => (p === "bin" || p === "Scripts") && k > 0 && k < parts.length - 1);
  if (at === -1) return undefined;
  const root = parts.slice(0, at).join(sep);
  // By its marker file, or by the names virtualenvs are given (made but not yet populated).
  if (/^\.?venv$/i.test(parts[at - 1]!)) return root;
  return statSync(join(root, "pyvenv.cfg"), { throwIfNoEntry: false })?.isFile() ? root : undefined;
}

// A virtualenv's activation scripts, which `python -m venv` writes and no install rewrites.
const ACTIVATE = /^(?:activate(?:\.(?:fish|csh|nu|xsh|bat|ps1))?|activate_this\.py|deactivate\.bat)$/i;

/**
 * Why the sandbox keeps `path` (absolute) read-only though the sandbox leaves installed code
 * writable: a virtualenv's activation script, which the user's shell sources (an editor
 * activates a project's venv in every new terminal). The rest of its bin folder is installed
 * code, like node_modules/.bin (pip writes console scripts there); the engine asks for all of it.
 */
export function venvActivateReason(path: string): string | undefined {
  const bin = dirname(path);
  if (!ACTIVATE.test(basename(path)) || !/^(?:bin|Scripts)$/.test(basename(bin))) return undefined;
  const venv = dirname(bin);
  const marked = statSync(join(venv, "pyvenv.cfg"), { throwIfNoEntry: false })?.isFile() === true;
  return marked || /^\.?venv$/i.test(basename(venv))
    ? `it is an activation script of the virtualenv ${venv}, which a shell sources`
    : undefined;
}

// What the sandbox leaves writable although the engine asks about it: files an install or a build
// writes as a matter of course (package.json by `npm install x`, yarn's .yarn/ and .pnp.*, pip's
// .pth files, deno's config by `deno add`, a virtualenv's pyvenv.cfg by `python -m venv`, every lockfile), credential folders (they hold credentials only in the
// home folder, where the sandbox protects them), keys (certificates a test makes), and installed
// code (node_modules: code the user runs by choice, like the project's own source). `.env` files
// stay protected: direnv's `dotenv` and mise load them into the shell that runs `git`.
const WRITTEN_BY_TOOLS = new Set([
  "package.json",
  ".pnp.cjs",
  ".pnp.loader.mjs",
  "deno.json",
  "deno.jsonc",
  // `python -m venv`, `uv venv`, virtualenv and poetry write it when they make an environment.
  "pyvenv.cfg",
]);
const SANDBOX_WRITABLE_FOLDERS = new Set([
  ".yarn",
  "node_modules",
  ".ssh",
  ".aws",
  ".gnupg",
  ".kube",
  ".docker",
  ".azure",
  ".m2",
]);
const SECRET_NAME = [/^id_[a-z0-9_]+$/, /\.(pem|key|p12|pfx|jks|keystore)$/, /\.pth$/];

// Of what the sandbox leaves writable, what runs nothing later: credential folders (in a project;
// the home's are the sandbox's secrets) and keys. A write there is judged as a leak, not as code.
const NOT_CODE_FOLDERS = new Set([".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".m2"]);

/**
 * Why a write to `rel` (relative to a writable folder) runs code later although the sandbox leaves
 * it writable, or undefined: the engine's sensitive paths that builds and installs write
 * (package.json's scripts, yarn's releases and plugins in .yarn/, .pnp.cjs, a .pth file's import
 * lines, deno's tasks, node_modules/.bin's programs), which the user's own unsandboxed shell runs
 * later. Only the engine's question holds such a write (red team ze, ZE3, the class of ZB5). Git
 * folders are the guard's: it keeps their config and hooks read-only.
 */
export function sandboxLeavesWritable(rel: string): string | undefined {
  const parts = rel.toLowerCase().split(sep).filter(Boolean);
  if (parts.length === 0 || parts.includes(".git") || parts.some((p) => NOT_CODE_FOLDERS.has(p))) return undefined;
  const name = parts.at(-1)!;
  if (SECRET_NAME.slice(0, 2).some((re) => re.test(name))) return undefined;
  const why = sensitiveReason(rel);
  if (why === undefined || sandboxReason(rel) !== undefined) return undefined;
  return `${why}, and the sandbox leaves it writable (builds and installs write there)`;
}

/**
 * Why the sandbox keeps `rel` (a path relative to a writable folder) read-only, or undefined: the
 * engine's sensitive list (one list) less what builds write and what is protected otherwise.
 * Git folders are the caller's: their objects and refs must stay writable, so only their config,
 * hooks and redirections are protected (see the sandbox's guard).
 */
export function sandboxReason(rel: string): string | undefined {
  const parts = rel.toLowerCase().split(sep).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => SANDBOX_WRITABLE_FOLDERS.has(p) || p === ".git")) return undefined;
  const name = parts.at(-1)!;
  if (WRITTEN_BY_TOOLS.has(name) || LOCKFILE.test(name) || SECRET_NAME.some((re) => re.test(name))) return undefined;
  return sensitiveReason(rel);
}
