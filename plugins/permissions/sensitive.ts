/**
 * Sensitive paths: writing them can leak secrets or make something run later (git hooks and
 * config, shell start-up files, editor tasks, agent configuration, package manager config).
 * A write or edit to one always asks, even in bypassPermissions mode. Judged on both forms of
 * the path (as written and fully resolved), by path component and case-insensitively, so a
 * symlink, `..`, `//`, `/proc/self/cwd` or `.GIT` cannot route around it — also for files that
 * do not exist yet.
 */
import { sep } from "node:path";

const FOLDERS = new Set([".git", ".ssh", ".aws", ".gnupg", ".vscode", ".idea", ".ubiquity", ".claude", ".kube", ".docker", ".husky", ".azure"]);

const FILES = new Set([
  ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".netrc", ".gitconfig", ".gitmodules", ".git-credentials", ".pgpass", ".mcp.json", ".envrc",
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
  ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc", "config.fish",
]);

// .env and .env.*; private keys by name (id_rsa, id_ed25519, …) and by extension.
const FILE_PATTERNS = [/^\.env(\..*)?$/, /^id_[a-z0-9_]+$/, /\.(pem|key|p12|pfx|jks|keystore)$/];

/** The reason `path` is sensitive, or undefined. */
export function sensitiveReason(path: string): string | undefined {
  const parts = path.toLowerCase().split(sep).filter(Boolean);
  const folder = parts.slice(0, -1).find((p) => FOLDERS.has(p));
  if (folder) return `it is inside a ${folder} folder`;
  const name = parts.at(-1) ?? "";
  if (FOLDERS.has(name)) return `it is a ${name} folder`;
  if (FILES.has(name) || FILE_PATTERNS.some((re) => re.test(name))) return `${name} is a sensitive file`;
  if (parts.slice(-3, -1).join("/") === ".config/git") return "it is git's configuration";
  return undefined;
}
