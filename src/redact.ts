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
// The scheme is bounded (a scheme is a short word): unbounded, a long run of letters and digits
// (a base64 blob) was tried from each of its positions to its end, quadratic in its length.
const URL_PASSWORD = /[a-z][a-z0-9+.-]{0,31}:\/\/[^\s/:@]*:([^\s/@]+)@/gi;

/** Shorter values are never masked: masking every "true" or "1" in a transcript would hide more than it protects. */
export const MIN_SECRET_LENGTH = 6;

/** True when a variable's name says it holds a credential (case-insensitive). */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return NAMED.has(upper) || SEGMENT.test(upper) || ENDING.test(upper);
}

/** The passwords of every `scheme://user:password@host` in `text` (raw and percent-decoded). */
export function urlPasswords(text: string): string[] {
  return [...text.matchAll(URL_PASSWORD)].flatMap((match) => withDecoded(match[1]!, match[1]!));
}

/** `raw`, and `encoded` percent-decoded when that differs from `raw` (a value that is not percent-encoded is `raw` alone). */
function withDecoded(raw: string, encoded: string): string[] {
  try {
    const decoded = decodeURIComponent(encoded);
    return decoded === raw ? [raw] : [raw, decoded];
  } catch {
    return [raw];
  }
}

/** Every `scheme://…` URL in a text, up to a space or a quote. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>`]+/gi;

/**
 * The values of the query parameters of every `scheme://…?name=value` in `text` (raw and
 * percent-decoded). A URL's query carries a key as often as a header does (`?api_key=`, `?key=`,
 * `?token=`, `?sig=`), whatever the parameter is called, and a server's error echoes its request
 * line: each value counts as a secret, as each header value of an option does.
 */
export function urlQueryValues(text: string): string[] {
  return [...text.matchAll(URL_IN_TEXT)].flatMap(([url]) => {
    const query = url.includes("?") ? url.slice(url.indexOf("?") + 1).split("#")[0]! : "";
    return query.split(/[&;]/).flatMap((pair) => {
      const raw = /=(.+)/.exec(pair)?.[1];
      return raw ? withDecoded(raw, raw.replace(/\+/g, " ")) : [];
    });
  });
}

/**
 * The secret strings in an environment, for redaction: the values of credential variables and
 * the passwords and query values in URL values, each at least MIN_SECRET_LENGTH long.
 */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (isCredentialName(name)) out.add(value);
    collectSecrets(value, false, out);
  }
  return [...out].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/** The object or array a string holds as JSON (`{…}` or `[…]`), else undefined. */
function jsonIn(text: string): object | undefined {
  const t = text.trim();
  if (!((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]")))) return undefined;
  try {
    const value = JSON.parse(t) as unknown;
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

// A key *ending* in one of these names a secret (apiKey, x-api-key, accessToken, secretAccessKey,
// Authorization); counts such as maxTokens or cacheReadTokens do not.
export const SECRET_KEY = /(key|keyid|token|secret|password|passwd|authorization|credentials?|cookie)$/i;

/*
 * Secrets learned while running: a header a plugin sends that no option holds (an MCP server's
 * `headersHelper` output), an OAuth token read from a store, a helper's key. They are masked
 * wherever an option's or the environment's are, in every run of this process from the moment
 * they are learned: a value that went out as a credential is one whatever run shows it later.
 */
const learned = new Set<string>();
let learnedList: readonly string[] = [];

/**
 * Register `value` as a secret learned at run time: every later redaction (messages, transcripts,
 * logs, tool results, telemetry) masks it. An authorization header's credential after its scheme
 * (`Bearer abc…`) is registered too. Values shorter than MIN_SECRET_LENGTH are ignored.
 */
export function noteSecret(value: string | undefined): void {
  if (typeof value !== "string") return;
  let added = false;
  for (const part of credentialForms(value))
    if (part.length >= MIN_SECRET_LENGTH && !learned.has(part)) {
      learned.add(part);
      added = true;
    }
  if (added) learnedList = [...learned];
}

/**
 * The forms a credential value is shown in: itself, and for an authorization value
 * (`Bearer abc`, `Token abc`, `Basic dXNlcjpwdw==`) the credential after its scheme, which a
 * server's error echoes alone ("token abc is revoked"), and a Basic value's `user:password` and
 * password.
 */
export function credentialForms(value: string): string[] {
  const whole = value.trim();
  const scheme = /^([A-Za-z][A-Za-z0-9_-]*)\s+(\S+)$/.exec(whole);
  if (!scheme) return [whole];
  const out = [whole, scheme[2]!];
  if (scheme[1]!.toLowerCase() === "basic" && /^[A-Za-z0-9+/]+={0,2}$/.test(scheme[2]!)) {
    const pair = Buffer.from(scheme[2]!, "base64").toString("utf8");
    const colon = pair.indexOf(":");
    if (colon > 0) out.push(pair, pair.slice(colon + 1));
  }
  return out;
}

/** The secrets learned at run time so far (see `noteSecret`). */
export function learnedSecrets(): readonly string[] {
  return learnedList;
}

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
  for (const secret of learnedList) out.add(secret);
  return [...out].sort((a, b) => b.length - a.length);
}

// Reading the environment costs ~50 µs: a run's secrets are read once, when first asked, and
// again only when a secret was learned since (`noteSecret`).
const perRun = new WeakMap<object, { learned: readonly string[]; secrets: string[] }>();

/** `secretsOf(run.options)`, read once per run (or any object standing for one), plus what was learned since. */
export function secretsOfRun(run: { readonly options?: SecretBearingOptions }): string[] {
  const known = perRun.get(run);
  if (known && known.learned === learnedList) return known.secrets;
  const secrets = secretsOf(run.options);
  perRun.set(run, { learned: learnedList, secrets });
  return secrets;
}

/**
 * `value` with every given secret masked in its strings: plain objects and arrays are copied
 * where a string inside them changed, and returned as they are otherwise (keys untouched; class
 * instances, such as an image's bytes, are left as they are).
 */
export function maskSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return secrets.some((s) => v.includes(s)) ? redactText(v, secrets) : v;
    if (Array.isArray(v)) {
      const out = v.map(walk);
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (v && typeof v === "object") {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return v;
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const y = walk(x);
        if (y !== x) changed = true;
        out[k] = y;
      }
      return changed ? out : v;
    }
    return v;
  };
  return walk(value) as T;
}

/** The secrets inside an options object; cached per object (resolved options are frozen). */
function optionSecrets(options: object): string[] {
  const known = Object.isFrozen(options) ? cache.get(options) : undefined;
  if (known) return known;
  const list = [...collectSecrets(options, false, new Set())];
  if (Object.isFrozen(options)) cache.set(options, list);
  return list;
}

/**
 * Add the secrets in `value` to `out`: under a secret branch, a string's credential forms; in any
 * string, the passwords and query values of its URLs and what a JSON document in it holds; in
 * plain objects and arrays, what their entries hold, an entry under a secret-named key (or
 * `headers`) being a secret branch.
 */
function collectSecrets(
  value: unknown,
  secretBranch: boolean,
  out: Set<string>,
  seen = new Set<object>(),
): Set<string> {
  if (typeof value === "string") {
    if (secretBranch) for (const form of credentialForms(value)) if (form.length >= 4) out.add(form);
    for (const password of urlPasswords(value)) if (password.length >= 4) out.add(password);
    for (const query of urlQueryValues(value)) if (query.length >= MIN_SECRET_LENGTH) out.add(query);
    // A JSON document in a string (an MCP server's OPENAPI_MCP_HEADERS, a credentials blob) is
    // read as options are: its secret-named keys' values are secrets.
    const json = jsonIn(value);
    if (json !== undefined) collectSecrets(json, secretBranch, out, seen);
    return out;
  }
  if (!value || typeof value !== "object" || seen.has(value)) return out;
  // Plain objects and arrays only: a class instance (a model, a logger, a signal) is not options.
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return out;
  seen.add(value);
  for (const [k, v] of Object.entries(value)) {
    const named = SECRET_KEY.test(k) || k === "headers" || (typeof v === "string" && isCredentialName(k));
    collectSecrets(v, secretBranch || named, out, seen);
  }
  return out;
}

/**
 * Masking for text that arrives in pieces (a model's streamed deltas): a secret split across two
 * pieces is masked too. `push` returns what may be shown now, holding back the longest tail that
 * could begin a secret until the next piece tells; `flush` returns what is held at the end.
 */
export function streamMasker(secrets: () => readonly string[]): { push(text: string): string; flush(): string } {
  let pending = "";
  return {
    push(text) {
      const known = secrets();
      const masked = redactText(pending + text, known);
      let hold = 0;
      for (const secret of known)
        for (let k = Math.min(secret.length - 1, masked.length); k > hold; k--)
          if (masked.endsWith(secret.slice(0, k))) {
            hold = k;
            break;
          }
      pending = masked.slice(masked.length - hold);
      return masked.slice(0, masked.length - hold);
    },
    flush() {
      const out = redactText(pending, secrets());
      pending = "";
      return out;
    },
  };
}

/** Replace every occurrence of the given secrets in `text`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && out.includes(s)) out = out.split(s).join("[redacted]");
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
