/**
 * Claude Code's `apiKeyHelper`: a command that prints the provider's API key (a vault, a keychain,
 * an SSO broker), so the key never sits in the environment, where every program the user starts
 * could read it. Run once per process at start (the runner builds two kernels for a run; each would
 * run it otherwise), through the shell as Claude Code runs it, with this process's environment (it
 * is the user's or the administrator's own program). What it prints is a secret: never in an error.
 * It runs in the home folder, never the run's: a program started in a cloned project reads the
 * project's files as its own settings — `npx`/`npm exec` its `.npmrc`, whose `node-options` loaded
 * the project's script into the helper, with the user's whole environment, outside any sandbox
 * (red team zm, ZM4); version managers and `direnv exec` read theirs likewise.
 *
 * Short-lived keys (an SSO broker's hour-long token) are kept fresh as Claude Code keeps them: a
 * request carrying the key runs the helper again first once the key is older than
 * `CLAUDE_CODE_API_KEY_HELPER_TTL_MS` (5 minutes by default), and a 401 answer to a request that
 * carried it runs the helper again and sends the request once more with the new key. The provider
 * was built with the first key, so the new one replaces it in the request's headers (whichever
 * header the provider puts it in).
 */
import { exec, execSync } from "node:child_process";
import { ConfigError, noteSecret } from "../../src/index";
import type { FetchWrapper } from "../model/api";

/** How long a helper's key is used before the helper runs again (Claude Code's default). */
const DEFAULT_TTL_MS = 5 * 60_000;

/** A bound, not a timing: a helper that waits for a login prompt nobody answers must not hang the run. */
const HELPER_TIMEOUT_MS = 60_000;

/** A helper's current key, when it was printed, and the run of the helper under way. */
interface HeldKey {
  key: string;
  /** The keys it printed before: a provider built with one still sends it (red team zq, ZQ4). */
  earlier: string[];
  at: number;
  refreshing?: Promise<string>;
}

const keys = new Map<string, HeldKey>();

/** The key `helper` prints (trimmed), run in `home`; a ConfigError naming `path` when it fails or prints nothing. */
export function keyFromHelper(helper: string, path: string, home: string): string {
  const known = keys.get(helper);
  if (known !== undefined) return known.key;
  let printed: string;
  try {
    printed = execSync(helper, {
      cwd: home,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: HELPER_TIMEOUT_MS,
    });
  } catch (error) {
    throw new ConfigError(
      `the apiKeyHelper ${JSON.stringify(helper)} ${failure(error)}, so the run has no key; run it yourself to see why (what it prints is never shown here)`,
      path,
    );
  }
  const key = printed.trim();
  if (!key)
    throw new ConfigError(
      `the apiKeyHelper ${JSON.stringify(helper)} printed no key; it must print the key on stdout`,
      path,
    );
  keys.set(helper, { key, at: Date.now(), earlier: [] });
  return key;
}

/** How a helper's run failed, without what it printed. */
function failure(error: unknown): string {
  const e = error as { status?: number | null; code?: number | string | null; signal?: string | null };
  if (e.signal) return `was stopped by ${e.signal}`;
  return `exited with status ${e.status ?? e.code ?? "unknown"}`;
}

/** The helper's key now: run it again (once, whoever asks meanwhile); on failure the key held stays, with a warning. */
function refresh(helper: string, home: string, warn: (line: string) => void): Promise<string> {
  const held = keys.get(helper)!;
  held.refreshing ??= new Promise<string>((resolve) => {
    exec(helper, { cwd: home, encoding: "utf8", timeout: HELPER_TIMEOUT_MS }, (error, stdout) => {
      const key = error ? "" : stdout.trim();
      if (key) {
        noteSecret(key);
        if (key !== held.key) keys.set(helper, { key, at: Date.now(), earlier: [...held.earlier, held.key] });
        else held.at = Date.now();
      } else {
        warn(
          `the apiKeyHelper ${JSON.stringify(helper)} ${error ? failure(error) : "printed no key"} when run again for a fresh key; the key it printed before is used`,
        );
        held.at = Date.now();
      }
      held.refreshing = undefined;
      resolve(keys.get(helper)!.key);
    });
  });
  return held.refreshing;
}

/** `CLAUDE_CODE_API_KEY_HELPER_TTL_MS`, when it is a number of milliseconds; else 5 minutes. */
function ttl(): number {
  const given = Number(process.env.CLAUDE_CODE_API_KEY_HELPER_TTL_MS);
  return process.env.CLAUDE_CODE_API_KEY_HELPER_TTL_MS && Number.isFinite(given) && given >= 0 ? given : DEFAULT_TTL_MS;
}

/** A request's headers with every occurrence of `from` replaced by `to`. */
function withKey(init: RequestInit, from: string, to: string): RequestInit {
  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init.headers)) headers[name] = value.split(from).join(to);
  return { ...init, headers };
}

/**
 * The fetch wrapper that keeps the run's helper key fresh (see the module's comment); `helper`
 * says which helper gave the run its key (undefined: none, and requests pass untouched). Only a
 * request whose headers carry the helper's key is touched, so another provider's never is.
 */
export function freshHelperKeys(helper: () => { command: string; home: string } | undefined): FetchWrapper {
  return (next, context) => async (input, init) => {
    const using = helper();
    const held = using && keys.get(using.command);
    // A Request object's body may be a stream that cannot be sent twice: passed as it is.
    if (!using || !held || !init || input instanceof Request) return next(input, init);
    // The key the provider was built with stays in its requests after a renewal: any the helper printed is replaced.
    const values = [...new Headers(init.headers).values()];
    const sent = [held.key, ...held.earlier].find((k) => values.some((value) => value.includes(k)));
    if (sent === undefined) return next(input, init);
    const warn = (line: string) => context.logger.warn(`[ubiquity:settings] ${line}`);
    const key = Date.now() - held.at >= ttl() ? await refresh(using.command, using.home, warn) : held.key;
    const response = await next(input, key === sent ? init : withKey(init, sent, key));
    if (response.status !== 401) return response;
    const fresh = await refresh(using.command, using.home, warn);
    if (fresh === key) return response;
    await response.body?.cancel();
    return next(input, withKey(init, sent, fresh));
  };
}
