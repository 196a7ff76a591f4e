/**
 * Claude Code's `apiKeyHelper`: a command that prints the provider's API key (a vault, a keychain,
 * an SSO broker), so the key never sits in the environment, where every program the user starts
 * could read it. Run once per process (the runner builds two kernels for a run; each would run it
 * otherwise), through the shell as Claude Code runs it, with this process's environment (it is
 * the user's or the administrator's own program). What it prints is a secret: never in an error.
 * It runs in the home folder, never the run's: a program started in a cloned project reads the
 * project's files as its own settings — `npx`/`npm exec` its `.npmrc`, whose `node-options` loaded
 * the project's script into the helper, with the user's whole environment, outside any sandbox
 * (red team zm, ZM4); version managers and `direnv exec` read theirs likewise.
 */
import { execSync } from "node:child_process";
import { ConfigError } from "../../src/index";

const keys = new Map<string, string>();

/** The key `helper` prints (trimmed), run in `home`; a ConfigError naming `path` when it fails or prints nothing. */
export function keyFromHelper(helper: string, path: string, home: string): string {
  const known = keys.get(helper);
  if (known !== undefined) return known;
  let printed: string;
  try {
    // A bound, not a timing: a helper that waits for a login prompt nobody answers must not hang the run.
    printed = execSync(helper, { cwd: home, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 60_000 });
  } catch (error) {
    const e = error as { status?: number | null; signal?: string | null };
    const why = e.signal ? `was stopped by ${e.signal}` : `exited with status ${e.status ?? "unknown"}`;
    throw new ConfigError(
      `the apiKeyHelper ${JSON.stringify(helper)} ${why}, so the run has no key; run it yourself to see why (what it prints is never shown here)`,
      path,
    );
  }
  const key = printed.trim();
  if (!key)
    throw new ConfigError(
      `the apiKeyHelper ${JSON.stringify(helper)} printed no key; it must print the key on stdout`,
      path,
    );
  keys.set(helper, key);
  return key;
}
