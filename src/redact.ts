/**
 * Secret redaction: API keys never appear in messages, transcripts, logs or `inspect`.
 * Everything that prints options or provider errors goes through here.
 */
// A key *ending* in one of these names a secret (apiKey, x-api-key, accessToken, secretAccessKey,
// Authorization); counts such as maxTokens or cacheReadTokens do not.
const SECRET_KEY = /(key|keyid|token|secret|password|passwd|authorization|credentials?|cookie)$/i;

/** The secret strings a set of options carries (apiKey, secret-looking provider settings). */
export function secretsOf(options: { apiKey?: unknown; providerSettings?: unknown } | undefined): string[] {
  const out: string[] = [];
  if (!options) return out;
  if (typeof options.apiKey === "string" && options.apiKey.length >= 4) out.push(options.apiKey);
  const collect = (value: unknown, secretBranch: boolean) => {
    if (typeof value === "string") {
      if (secretBranch && value.length >= 4) out.push(value);
    } else if (value && typeof value === "object") {
      // Header values are credentials as often as not (`api-key`, `x-goog-api-key`, custom auth
      // headers), whatever their names, so every value under `headers` counts as a secret.
      for (const [k, v] of Object.entries(value)) collect(v, secretBranch || SECRET_KEY.test(k) || k === "headers");
    }
  };
  collect(options.providerSettings, false);
  return out;
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
