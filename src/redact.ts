/**
 * Secret redaction: API keys never appear in messages, transcripts, logs or `inspect`.
 * Everything that prints options or provider errors goes through here.
 */
import { inspect } from "node:util";
import type { Logger } from "./config/schema";
import { credentialValues, isCredentialName, urlPasswords } from "./subprocess-env";

// A key *ending* in one of these names a secret (apiKey, x-api-key, accessToken, secretAccessKey,
// Authorization); counts such as maxTokens or cacheReadTokens do not.
const SECRET_KEY = /(key|keyid|token|secret|password|passwd|authorization|credentials?|cookie)$/i;

/** Options as secretsOf reads them: any object (every option is looked at). */
export type SecretBearingOptions = object;

const cache = new WeakMap<object, string[]>();

/**
 * The secret strings a run knows, found by shape rather than by option name, so a plugin's own
 * options are covered too: every string under a secret-looking key (`apiKey`, `authorization`,
 * `x-api-key`, `OPENAI_API_KEY`, …) or under `headers` (header values are credentials as often as
 * not, whatever their names), every credential-named variable of any record (an `env`), every
 * password in a URL — and the credential variables of the environment (`process.env` unless
 * given). Longest first, so a secret that contains another is masked whole.
 */
export function secretsOf(options: SecretBearingOptions | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const out = new Set<string>(credentialValues(env));
  if (options && typeof options === "object") for (const secret of optionSecrets(options)) out.add(secret);
  return [...out].sort((a, b) => b.length - a.length);
}

/** The secrets inside an options object; cached per object (resolved options are frozen). */
function optionSecrets(options: object): string[] {
  const known = Object.isFrozen(options) ? cache.get(options) : undefined;
  if (known) return known;
  const out = new Set<string>();
  const seen = new Set<object>();
  const collect = (value: unknown, secretBranch: boolean) => {
    if (typeof value === "string") {
      if (secretBranch && value.length >= 4) out.add(value);
      for (const password of urlPasswords(value)) if (password.length >= 4) out.add(password);
      return;
    }
    if (!value || typeof value !== "object" || seen.has(value)) return;
    if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return;
    seen.add(value);
    for (const [k, v] of Object.entries(value)) collect(v, secretBranch || SECRET_KEY.test(k) || k === "headers" || (typeof v === "string" && isCredentialName(k)));
  };
  collect(options, false);
  const list = [...out];
  if (Object.isFrozen(options)) cache.set(options, list);
  return list;
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
