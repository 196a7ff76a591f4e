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
import { sep } from "node:path";

// `.ubiquity` holds settings, the project memory file, agents and skills (also `*.local`).
// Also folders whose files run code later: dev containers, cargo's config (build.rustc-wrapper,
// target.runner), hook managers' scripts, yarn's plugins and releases, other agents' settings.
const FOLDERS = new Set([
  ".git", ".ssh", ".aws", ".gnupg", ".vscode", ".idea", ".ubiquity", ".claude", ".kube", ".docker", ".husky", ".azure",
  ".devcontainer", ".cargo", ".githooks", ".lefthook", ".yarn", ".codex", ".bashrc.d", ".mvn",
]);

// Folders that run code later only under a given parent (home-relative in practice): shells' and
// systemd's start-up folders, ~/.local/bin on PATH, gradle's init scripts, editors' config.
const NESTED_FOLDERS: readonly (readonly [string, string])[] = [
  [".config", "fish"], [".config", "systemd"], [".config", "environment.d"], [".config", "autostart"], [".config", "git"],
  [".config", "mise"], [".config", "nvim"], [".config", "direnv"], [".local", "bin"], [".gradle", "init.d"], [".vim", "plugin"],
];

const FILES = new Set([
  ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".netrc", ".gitconfig", ".gitmodules", ".git-credentials", ".pgpass", ".mcp.json", ".envrc",
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
  ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc", "config.fish",
  // The memory files the memory plugin reads: standing instructions in every system prompt.
  "ubiquity.md", "ubiquity.local.md",
  // package.json at any depth: its "ubiquity" key is a config file the search loads, and its
  // scripts (and lifecycle scripts such as postinstall) run whenever Bash runs npm, npx, yarn,
  // pnpm or bun — so an edit can turn an approved `npm test` into any code. Telling a scripts
  // edit from a version bump would need a JSON diff of every Write, Edit and shell write; the
  // engine cannot see inside `sed -i`, so it asks for every write.
  "package.json",
  // Run code on a package manager's or a git hook manager's next start.
  ".pnpmfile.cjs", ".pnpmfile.mjs", "bunfig.toml", ".bunfig.toml", ".pre-commit-config.yaml",
  // Tool versions that can name a program (mise tasks and hooks, rustup's `path`).
  "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", "rust-toolchain", "rust-toolchain.toml", ".devcontainer.json",
  // Run on an interpreter's, editor's or debugger's next start.
  "sitecustomize.py", "usercustomize.py", ".pythonrc", ".pythonrc.py", ".irbrc", ".pryrc", ".rprofile", ".vimrc", ".gvimrc", ".exrc", "_vimrc",
  ".nvimrc", ".gdbinit", ".lldbinit", ".tmux.conf", ".screenrc", ".psqlrc", ".wgetrc", ".curlrc", ".xinitrc", ".xprofile", ".xsession", ".xsessionrc",
  // Other agents' standing instructions and settings.
  "claude.md", "claude.local.md", "agents.md",
]);

// .env and .env.*; private keys by name (id_rsa, id_ed25519, …) and by extension; the agent's
// config files the config search loads (`ubiquity.config.<any extension>`, `.ubiquityrc*`).
// lefthook's config in every spelling (lefthook.yml, .lefthook-local.toml, …), editor workspaces
// (their tasks run), and Python's .pth files (their `import` lines run at every start).
const FILE_PATTERNS = [
  /^\.env(\..*)?$/, /^id_[a-z0-9_]+$/, /\.(pem|key|p12|pfx|jks|keystore)$/, /^ubiquity\.config\./, /^\.ubiquityrc/,
  /^\.?lefthook(-local)?\.(ya?ml|json|jsonc|toml)$/, /\.code-workspace$/, /\.pth$/,
];

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
  for (let k = 0; k < parts.length - 1; k++) {
    const pair = NESTED_FOLDERS.find(([a, b]) => parts[k] === a && parts[k + 1] === b);
    if (pair) return `it is inside ${pair.join("/")}, whose files run code later`;
  }
  if (FILES.has(name) || FILE_PATTERNS.some((re) => re.test(name))) return `${name} is a sensitive file`;
  const parent = parts.at(-2);
  if (parent === ".config" && name.startsWith("ubiquityrc")) return "it is an agent config file (.config/ubiquityrc*)";
  if (parts.slice(-3, -1).join("/") === ".config/git") return "it is git's configuration";
  return undefined;
}
