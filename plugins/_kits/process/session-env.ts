/**
 * Claude Code's `CLAUDE_ENV_FILE`: a SessionStart hook may write `export NAME=value` lines to the
 * file that variable names; the script they make up runs ahead of every later Bash command of the
 * session (its subagents' too), in the same shell, so `export PATH="$HOME/bin:$PATH"` expands as
 * the hook meant. Only commands get it: the host process and MCP servers never do.
 */
import { noteEnvSecrets } from "./env";
import { readRegularFileSync } from "./regular-file-sync";

/** The most of a session's script that is kept: environment lines, not programs. */
export const MAX_SESSION_SCRIPT_BYTES = 64 * 1024;

interface RunLike {
  readonly parent?: RunLike;
}

const scripts = new WeakMap<object, string>();

/** Set the session script of a (top-level) run. */
export function setSessionScript(run: RunLike, script: string): void {
  noteEnvSecrets(scriptAssignments(script));
  if (script.trim()) scripts.set(run, script);
  else scripts.delete(run);
}

/** `NAME=value` and `export NAME=value`, the value bare, in single quotes or in double quotes. */
const ASSIGNMENT =
  /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|"((?:[^"\\$`]|\\["\\$`])*)"|([^\s'"$`;&|<>()#\\]*))\s*(?:;\s*)?(?:#.*)?$/;

/**
 * The literal values a session script assigns, by name: a SessionStart hook that loads a
 * credential for the session (`echo "export DEPLOY_TOKEN=…" >> "$CLAUDE_ENV_FILE"`) handed every
 * Bash command a secret no option held,
 * and the model's `printenv DEPLOY_TOKEN` printed it unmasked (red team zt, ZT4). Registered as
 * the run's `env` is (noteEnvSecrets: by its name or its shape). A value computed when the script
 * runs (`$(gh auth token)`, `$VAR`) is not known here.
 */
export function scriptAssignments(script: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of script.split("\n")) {
    const m = ASSIGNMENT.exec(line);
    if (!m) continue;
    out[m[1]!] = m[2] ?? (m[3] !== undefined ? m[3].replace(/\\(["\\$`])/g, "$1") : m[4]!);
  }
  return out;
}

/** The session script a Bash command of `run` starts with (its top-level run's), if any. */
export function sessionScriptOf(run: RunLike | undefined): string | undefined {
  for (let r = run; r; r = r.parent) {
    const script = scripts.get(r);
    if (script !== undefined) return script;
  }
  return undefined;
}

/**
 * The text of the env files a hook wrote, in order: a regular file each (a link or a folder is
 * skipped: `problem` hears why), at most MAX_SESSION_SCRIPT_BYTES in all.
 */
export function readEnvFiles(paths: readonly string[], problem: (message: string) => void): string {
  const parts: string[] = [];
  let size = 0;
  for (const path of paths) {
    // Opened without following a link and without blocking on a FIFO; judged on what was opened.
    const read = readRegularFileSync(path, MAX_SESSION_SCRIPT_BYTES - size);
    if ("skipped" in read) {
      const why = read.skipped;
      if (why === "too large")
        problem(`${path} would take the session's environment script past ${MAX_SESSION_SCRIPT_BYTES} bytes; ignored`);
      else if (why === "not a regular file") problem(`${path} is not a regular file; ignored`);
      else if (why !== "ENOENT")
        problem(`${path} could not be opened (${why === "ELOOP" ? "it is a link" : why}); ignored`);
      continue;
    }
    size += read.bytes;
    if (read.text.trim()) parts.push(read.text.endsWith("\n") ? read.text : `${read.text}\n`);
  }
  return parts.join("");
}
