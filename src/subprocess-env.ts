/**
 * Which environment variables are credentials, and the environment a subprocess starts with.
 * Bash, command hooks and stdio MCP servers all build their child's environment here, so the
 * three never disagree about what is scrubbed; redaction uses the same predicate for the values
 * it masks. Pure functions: the caller passes the parent environment (a sandbox wrapper can take
 * the result as it is).
 *
 * This lives in the kernel, not the model plugin that owns the provider table, because the
 * kernel's redaction needs it and the kernel never imports plugins. The patterns cover every
 * credential variable of that table; test/security/credential-variables.test.ts keeps it so.
 */

/** How a subprocess's environment is built: without credentials (the default) or as the parent's. */
export type SubprocessEnvMode = "scrubbed" | "inherit";

/**
 * Name segments that mark a credential wherever they stand between underscores:
 * API_KEY/APIKEY (OPENAI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY), TOKEN (GITHUB_TOKEN,
 * AWS_SESSION_TOKEN, AWS_BEARER_TOKEN_BEDROCK, VERCEL_OIDC_TOKEN), AUTHTOKEN (npm's
 * `_authToken` config), SECRET (AWS_SECRET_ACCESS_KEY, AZURE_CLIENT_SECRET), ACCESS_KEY
 * (AWS_ACCESS_KEY_ID), PRIVATE_KEY, PASSWORD/PASSWD/PASSPHRASE (database and key-file
 * passwords), CREDENTIAL(S) (GOOGLE_APPLICATION_CREDENTIALS names a service-account key file).
 * Whole segments only: MAX_TOKENS and TOKENIZERS_PARALLELISM are not credentials.
 */
const SEGMENT = /(?:^|_)(?:API_?KEY|TOKEN|AUTHTOKEN|SECRET|ACCESS_KEY|PRIVATE_KEY|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)(?:_|$)/;
/**
 * Name endings: `_KEY` (OPENAI_KEY, STRIPE_KEY: a key under a home-made name) and `_AUTH`
 * (npm's `_auth`, a base64 user:password). SSH_AUTH_SOCK is not matched: git over ssh needs it,
 * and the sandbox, not the environment, decides what a command may reach.
 */
const ENDING = /_(?:KEY|AUTH)$/;
/** Well-known credentials whose names follow no pattern. */
const NAMED = new Set(["PGPASSWORD", "MYSQL_PWD"]);
/** Variables that configure ubiquity itself (UBIQUITY_MODEL, UBIQUITY_TRUST): a nested run must not inherit them. */
const OWN = /^UBIQUITY_/;
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
 * True when a variable is a credential: by its name, or because its value is a URL carrying a
 * password (DATABASE_URL=postgres://app:pw@db, HTTPS_PROXY=http://me:pw@proxy).
 */
export function isCredentialVariable(name: string, value?: string): boolean {
  return isCredentialName(name) || (value !== undefined && urlPasswords(value).length > 0);
}

/** True when a subprocess does not get this variable from its parent (unless `env` names it). */
export function isScrubbedVariable(name: string, value?: string): boolean {
  return OWN.test(name.toUpperCase()) || isCredentialVariable(name, value);
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

/** The run options that shape a subprocess's environment. */
export interface SubprocessEnvOptions {
  /** Variables every subprocess gets; they win over the parent's and are never scrubbed. */
  env?: Readonly<Record<string, string>>;
  /** ["scrubbed"] */
  subprocessEnv?: SubprocessEnvMode;
}

/**
 * The environment a subprocess starts with: the parent's variables (process.env, or the MCP
 * SDK's short safe list) minus credentials and UBIQUITY_* unless `subprocessEnv` is "inherit",
 * then `options.env`, then `add` (a server's own `env`, a hook's project-dir variables).
 */
export function buildSubprocessEnv(
  options: SubprocessEnvOptions,
  { parent = process.env, add = [] }: { parent?: Readonly<Record<string, string | undefined>>; add?: readonly (Readonly<Record<string, string>> | undefined)[] } = {},
): Record<string, string> {
  const inherit = options.subprocessEnv === "inherit";
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (!inherit && isScrubbedVariable(name, value)) continue;
    out[name] = value;
  }
  for (const layer of [options.env, ...add]) if (layer) Object.assign(out, layer);
  return out;
}
