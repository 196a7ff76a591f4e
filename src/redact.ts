/**
 * Secret redaction: API keys never appear in messages, transcripts, logs or `inspect`.
 * Everything that prints options or provider errors goes through here.
 */
import { createRequire } from "node:module";
import type { Logger } from "./config/schema";

// node:util by require, not by import: an ESM import of a builtin reads every export, and
// util's lazy ones load worker_threads, the diff and colour code (~2.5 ms of a cold start).
const { inspect } = createRequire(import.meta.url)("node:util") as typeof import("node:util");

/*
 * Which environment variables are credentials. The subprocess environment (the process kit's
 * `buildSubprocessEnv`, for Bash, command hooks and stdio MCP servers) scrubs with the same
 * predicate that redaction masks with, so the two never disagree. The patterns cover every
 * credential variable of the model plugin's provider table;
 * test/security/credential-variables.test.ts keeps it so.
 */

/**
 * Name segments that mark a credential wherever they stand between underscores:
 * API_KEY/APIKEY (OPENAI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY), TOKEN (GITHUB_TOKEN,
 * AWS_SESSION_TOKEN, AWS_BEARER_TOKEN_BEDROCK, VERCEL_OIDC_TOKEN), AUTHTOKEN (npm's
 * `_authToken` config), SECRET (AWS_SECRET_ACCESS_KEY, AZURE_CLIENT_SECRET), ACCESS_KEY
 * (AWS_ACCESS_KEY_ID), PRIVATE_KEY, PASSWORD/PASSWD/PASSPHRASE (database and key-file
 * passwords), CREDENTIAL(S) (GOOGLE_APPLICATION_CREDENTIALS names a service-account key file).
 * Whole segments only: MAX_TOKENS and TOKENIZERS_PARALLELISM are not credentials.
 */
const SEGMENT =
  /(?:^|_)(?:API_?KEY|TOKEN|AUTHTOKEN|SECRET|ACCESS_KEY|PRIVATE_KEY|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)(?:_|$)/;
/**
 * Name endings: `_KEY` (OPENAI_KEY, STRIPE_KEY: a key under a home-made name) and `_AUTH`
 * (npm's `_auth`, a base64 user:password). SSH_AUTH_SOCK is not matched: git over ssh needs it,
 * and the sandbox, not the environment, decides what a command may reach.
 */
const ENDING = /_(?:KEY|AUTH)$/;
/** Well-known credentials whose names follow no pattern. */
const NAMED = new Set(["PGPASSWORD", "MYSQL_PWD"]);
/** `scheme://user:password@` inside a value (the user part may be empty: `redis://:pw@host`). */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:([^\s/@]+)@/gi;

/** Shorter values are never masked: masking every "true" or "1" in a transcript would hide more than it protects. */
export const MIN_SECRET_LENGTH = 6;

/** True when a variable's name says it holds a credential (case-insensitive). */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return NAMED.has(upper) || SEGMENT.test(upper) || ENDING.test(upper);
}

/** The passwords of every `scheme://user:password@host` in `text` (raw and percent-decoded). */
export function urlPasswords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(URL_PASSWORD)) {
    const raw = match[1]!;
    out.push(raw);
    try {
      const decoded = decodeURIComponent(raw);
      if (decoded !== raw) out.push(decoded);
    } catch {
      // not percent-encoded
    }
  }
  return out;
}

/**
 * The secret strings in an environment, for redaction: the values of credential variables and
 * the passwords in URL values, each at least MIN_SECRET_LENGTH long.
 */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (isCredentialName(name)) out.add(value);
    for (const password of urlPasswords(value)) out.add(password);
  }
  return [...out].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

// A key *ending* in one of these names a secret (apiKey, x-api-key, accessToken, secretAccessKey,
// Authorization); counts such as maxTokens or cacheReadTokens do not.
export const SECRET_KEY = /(key|keyid|token|secret|password|passwd|authorization|credentials?|cookie)$/i;

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
export function secretsOf(
  options: SecretBearingOptions | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const out = new Set<string>(credentialValues(env));
  if (options && typeof options === "object") for (const secret of optionSecrets(options)) out.add(secret);
  return [...out].sort((a, b) => b.length - a.length);
}

// Reading the environment costs ~50 µs: a run's secrets are read once, when first asked.
const perRun = new WeakMap<object, string[]>();

/** `secretsOf(run.options)`, read once per run (or any object standing for one). */
export function secretsOfRun(run: { readonly options?: SecretBearingOptions }): string[] {
  return perRun.get(run) ?? perRun.set(run, secretsOf(run.options)).get(run)!;
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
    // Plain objects and arrays only: a class instance (a model, a logger, a signal) is not options.
    const proto = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return;
    seen.add(value);
    for (const [k, v] of Object.entries(value))
      collect(
        v,
        secretBranch || SECRET_KEY.test(k) || k === "headers" || (typeof v === "string" && isCredentialName(k)),
      );
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

/**
 * A logger that masks secrets in everything it prints: strings directly, and any other value
 * (an Error with its response body, an object) printed the way console would print it, when
 * that print contains a secret. `secrets` is asked at each line, so keys the run learns later count.
 */
export function redactingLogger(logger: Logger, secrets: () => readonly string[]): Logger {
  const wrap =
    (print: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
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
  return {
    debug: wrap(logger.debug.bind(logger)),
    info: wrap(logger.info.bind(logger)),
    warn: wrap(logger.warn.bind(logger)),
    error: wrap(logger.error.bind(logger)),
  };
}
