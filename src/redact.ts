/**
 * Secret redaction: API keys never appear in messages, transcripts, logs or `inspect`.
 * Everything that prints options or provider errors goes through here.
 */
import { inspect } from "node:util";
import type { Logger } from "./config/schema";
import { credentialValues, urlPasswords } from "./subprocess-env";

// A key *ending* in one of these names a secret (apiKey, x-api-key, accessToken, secretAccessKey,
// Authorization); counts such as maxTokens or cacheReadTokens do not.
const SECRET_KEY = /(key|keyid|token|secret|password|passwd|authorization|credentials?|cookie)$/i;

/** The options secretsOf reads. */
export interface SecretBearingOptions {
  apiKey?: unknown;
  providerSettings?: unknown;
  env?: unknown;
  mcpServers?: unknown;
}

/**
 * The secret strings a run knows: `apiKey`, secret-looking provider settings, credentials in
 * `env` and in MCP server configs (their `env`, `headers`, URL passwords), and the credential
 * variables of the environment (`process.env` unless given). Longest first, so a secret that
 * contains another is masked whole.
 */
export function secretsOf(options: SecretBearingOptions | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const out = new Set<string>(credentialValues(env));
  if (options) {
    if (typeof options.apiKey === "string" && options.apiKey.length >= 4) out.add(options.apiKey);
    const collect = (value: unknown, secretBranch: boolean) => {
      if (typeof value === "string") {
        if (secretBranch && value.length >= 4) out.add(value);
        for (const password of urlPasswords(value)) if (password.length >= 4) out.add(password);
      } else if (value && typeof value === "object") {
        // Header values are credentials as often as not (`api-key`, `x-goog-api-key`, custom auth
        // headers), whatever their names, so every value under `headers` counts as a secret.
        for (const [k, v] of Object.entries(value)) collect(v, secretBranch || SECRET_KEY.test(k) || k === "headers");
      }
    };
    collect(options.providerSettings, false);
    const variables = (vars: unknown) => {
      if (vars && typeof vars === "object") for (const value of credentialValues(vars as Record<string, string>)) out.add(value);
    };
    variables(options.env);
    if (options.mcpServers && typeof options.mcpServers === "object") {
      for (const server of Object.values(options.mcpServers as Record<string, { env?: unknown; headers?: unknown; url?: unknown }>)) {
        if (!server || typeof server !== "object") continue;
        variables(server.env);
        collect(server.headers, true);
        collect(server.url, false);
      }
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** Replace every occurrence of the given secrets in `text`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join("[redacted]");
  return out;
}

/** A deep copy of `value` with secret-named keys and known secret strings masked. */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (key !== undefined && SECRET_KEY.test(key) && (typeof v === "string" || typeof v === "number")) return "[redacted]";
    if (typeof v === "string") return redactText(v, secrets);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}

/** A deep copy of `value` with the given secrets masked in every string (keys and shape untouched). */
export function redactStrings<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * A logger that masks secrets in everything it prints: strings directly, and any other value
 * (an Error with its response body, an object) printed the way console would print it, when
 * that print contains a secret. `secrets` is asked at each line, so keys the run learns later count.
 */
export function redactingLogger(logger: Logger, secrets: () => readonly string[]): Logger {
  const wrap = (print: (...args: unknown[]) => void) => (...args: unknown[]) => {
    const known = secrets();
    if (known.length === 0) return print(...args);
    print(
      ...args.map((arg) => {
        if (typeof arg === "string") return redactText(arg, known);
        if (arg === null || (typeof arg !== "object" && typeof arg !== "function")) return arg;
        const shown = inspect(arg, { depth: 6 });
        return known.some((s) => shown.includes(s)) ? redactText(shown, known) : arg;
      }),
    );
  };
  return { debug: wrap(logger.debug.bind(logger)), info: wrap(logger.info.bind(logger)), warn: wrap(logger.warn.bind(logger)), error: wrap(logger.error.bind(logger)) };
}
