/**
 * HTTP hooks (Claude Code's `type: "http"`): the hook input is POSTed as JSON to the hook's URL.
 * A 2xx answer whose body is a JSON object is read exactly as a command hook's stdout (decision,
 * `hookSpecificOutput`, `continue`, …); an empty 2xx body is no opinion; anything else (no
 * connection, a timeout, another status, a body that is not JSON) is a logged, non-blocking error,
 * as in Claude Code. To block, the endpoint answers 2xx with a blocking decision.
 *
 * What is sent is governed: only URLs `allowedHttpHookUrls` admits are called (unset: every URL;
 * `[]`: none), and a header's `$VAR`/`${VAR}` is filled only for variables the hook's own
 * `allowedEnvVars` lists (narrowed by `httpHookAllowedEnvVars`) — never with a model provider's
 * key. Redirects are not followed: the endpoint that was allowed is the one that answers.
 */
import { isScrubbedVariable, noteUrlSecrets } from "../_kits/process/index";
import type { Logger } from "../../src/index";
import { isProviderKey } from "../model/index";
import { heldFetch } from "../web/api";
import { commandPayload, parseCommandOutput } from "./command";
import type { HookInput, HookOutput, HttpHook } from "./types";

const DEFAULT_TIMEOUT_S = 30;
/**
 * The hook's address is the user's choice: held to the kind of address its name first resolved to
 * (a public endpoint rebound to the loopback got the hook's input, and answered for it; red team
 * zf, ZF2).
 */
const held = heldFetch();
/** The most of an answer that is read: a hook's decision is small. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The URL patterns and header variables every HTTP hook of a run is held to (undefined: no restriction). */
export interface HttpHookPolicy {
  allowedUrls?: readonly string[];
  allowedEnvVars?: readonly string[];
  /** The user's own lists (options, the user's settings file): what a project's hook is held to as well. */
  userUrls?: readonly string[];
  userEnvVars?: readonly string[];
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/**
 * Does a Claude Code URL pattern (`*` any run of characters) admit `url`? The whole URL must match.
 * Red-team fix: the URL is matched as fetch will read it (WHATWG-normalized: `/hooks/%2e%2e/x` is
 * `/x`), a URL with a user or password is never admitted, and a `*` in the pattern's scheme and
 * host part never crosses into the path (`http://*.example.com/*` does not admit
 * `http://evil.test/.example.com/`, nor `http://localhost:*` `http://localhost:1@evil.test`).
 */
export function urlAllowed(url: string, patterns: readonly string[] | undefined): boolean {
  if (patterns === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  const href = parsed.href;
  // `http://host` is written without the `/` that the normalized form adds: both spellings are judged.
  const forms =
    parsed.pathname === "/" && !parsed.search && !parsed.hash && !url.endsWith("/")
      ? [href, href.slice(0, -1)]
      : [href];
  return patterns.some((pattern) => {
    const scheme = pattern.indexOf("://");
    const slash = scheme < 0 ? -1 : pattern.indexOf("/", scheme + 3);
    const authority = (slash < 0 ? pattern : pattern.slice(0, slash)).toLowerCase(); // the normalized host is lower case
    // A pattern with no path that ends in `*` (`http://localhost:*`) admits any path on what its host part admits.
    const rest =
      slash < 0
        ? pattern.endsWith("*")
          ? "(?:[/?#].*)?"
          : ""
        : pattern.slice(slash).split("*").map(escapeRegExp).join(".*");
    const re = new RegExp(`^${authority.split("*").map(escapeRegExp).join("[^/?#@\\\\]*")}${rest}$`);
    return forms.some((form) => re.test(form));
  });
}

function hasUserinfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

/** The URL as it may be logged: without a user or password. */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(an invalid URL)";
  }
}

/**
 * A header value with `$VAR` and `${VAR}` filled from `env` for the variables `allowed` names;
 * every other reference becomes the empty string (Claude Code's rule), and so does a provider key.
 */
export function interpolateHeader(
  value: string,
  allowed: ReadonlySet<string>,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return value.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_m, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!;
      if (!allowed.has(name) || isProviderKey(name)) return "";
      return env[name] ?? "";
    },
  );
}

/** What an HTTP hook needs from the run. */
export interface HttpHookContext {
  signal: AbortSignal;
  logger: Logger;
  policy: HttpHookPolicy;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Run one HTTP hook and read its answer. Never throws. */
export async function runHttpHook(
  hook: HttpHook,
  input: HookInput,
  context: HttpHookContext,
): Promise<(HookOutput & { ask?: boolean }) | undefined> {
  // A webhook's key is in its path as often as in a header (Slack's `/services/T…/B…/<secret>`): masked wherever it shows.
  noteUrlSecrets(hook.url);
  const label = `${input.hookEventName} HTTP hook ${printableUrl(hook.url)}`;
  // Red-team fix: a URL carrying a user or password is refused (fetch would refuse it too, naming
  // the whole URL, password included, in its error: a log must never hold it).
  if (hasUserinfo(hook.url)) {
    context.logger.warn(
      `${label} was not called: its URL carries a user or password; send credentials in a header from an allowed variable instead`,
    );
    return undefined;
  }
  // A project's hook is held to the user's own list too: a project's file may narrow, never widen it.
  if (
    !urlAllowed(hook.url, context.policy.allowedUrls) ||
    (hook.origin === "project" && !urlAllowed(hook.url, context.policy.userUrls))
  ) {
    context.logger.warn(
      `${label} was not called: allowedHttpHookUrls does not admit its URL (add a pattern for it, e.g. "${printableUrl(hook.url).replace(/[^/]*$/, "*")}")`,
    );
    return undefined;
  }
  const env = context.env ?? process.env;
  const wanted = new Set(hook.allowedEnvVars ?? []);
  const allowed = new Set(
    [...wanted].filter(
      (name) =>
        (context.policy.allowedEnvVars === undefined || context.policy.allowedEnvVars.includes(name)) &&
        // A project's hook gets only what every process the project starts gets from ours (the
        // subprocess allow-list: locale, terminal, proxies without a password, …), unless the
        // user's own httpHookAllowedEnvVars names the variable. A name that only looks harmless
        // (DATABASE_URL with a password in it, GH_PAT, SLACK_WEBHOOK_URL) is not filled.
        (hook.origin !== "project" ||
          !isScrubbedVariable(name, env[name]) ||
          (context.policy.userEnvVars?.includes(name) ?? false)),
    ),
  );
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const [name, value] of Object.entries(hook.headers ?? {}))
    headers[name] = interpolateHeader(value, allowed, env);
  // Red-team fix: a value fetch would refuse (a line break, a character over 0xFF) is refused here,
  // naming the header only: fetch's own error quotes the value, which may be a secret.
  const bad = Object.entries(headers).find(([, v]) => /[\r\n\0]|[^\x00-\xff]/.test(v));
  if (bad) {
    context.logger.warn(
      `${label} was not called: its header ${JSON.stringify(bad[0])} has a value that is not a valid header value (a line break or a character over 0xFF)`,
    );
    return undefined;
  }
  const filled = Object.values(headers).filter((v) => v.length >= 6);
  const scrub = (text: string) => filled.reduce((t, v) => t.split(v).join("[redacted]"), text);
  // Red-team fix: a timer takes at most 2^31-1 ms (24.8 days); more fires at once, a guard turned into a no-op.
  const timeoutMs = Math.min((hook.timeout ?? DEFAULT_TIMEOUT_S) * 1000, 2_147_483_647);
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
  let response: Response;
  try {
    response = await held(new URL(hook.url), {
      method: "POST",
      headers,
      body: JSON.stringify(commandPayload(input)),
      redirect: "manual",
      signal,
    });
  } catch (error) {
    const why =
      signal.aborted && !context.signal.aborted
        ? `timed out after ${timeoutMs / 1000}s`
        : `could not be reached (${(error as Error).cause ? String((error as Error & { cause: unknown }).cause) : (error as Error).message})`;
    context.logger.warn(`${label} ${scrub(why)}; it was ignored`);
    return undefined;
  }
  const body = await readBody(response, signal).catch(() => undefined);
  if (response.status < 200 || response.status > 299) {
    context.logger.warn(
      `${label} answered ${response.status}${response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : ""}; it was ignored`,
    );
    return undefined;
  }
  const text = body?.trim() ?? "";
  if (!text) return undefined;
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not a JSON object");
    return parseCommandOutput(json as Record<string, unknown>);
  } catch (error) {
    context.logger.warn(
      `${label} answered a body that is not a JSON object (${(error as Error).message}); it was ignored`,
    );
    return undefined;
  }
}

/** The body as text, up to MAX_BODY_BYTES (a longer one is not a decision: undefined). */
async function readBody(response: Response, signal: AbortSignal): Promise<string | undefined> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (signal.aborted) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
