/**
 * Redaction of whole values (transcripts, `inspect`, the ACP session): deep copies with secrets
 * masked. Only plugins and hosts copy values this way, so it lives here; the kernel keeps what it
 * needs itself (`secretsOf`, `redactText`, the redacting logger).
 */
import { redactText, SECRET_KEY } from "../../../src/index";

/** A deep copy of `value` with secret-named keys and known secret strings masked. */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  return redactDeep(value, secrets, true);
}

/** A deep copy of `value` with the given secrets masked in every string (keys and shape untouched). */
export function redactStrings<T>(value: T, secrets: readonly string[]): T {
  return secrets.length === 0 ? value : redactDeep(value, secrets, false);
}

/** The walk of both: plain objects and arrays are copied, strings masked; with `byKey`, a secret-named key's value is masked whole. */
function redactDeep<T>(value: T, secrets: readonly string[], byKey: boolean): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (byKey && key !== undefined && SECRET_KEY.test(key) && (typeof v === "string" || typeof v === "number"))
      return "[redacted]";
    if (typeof v === "string") return redactText(v, secrets);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}
