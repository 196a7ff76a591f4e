/**
 * A secret as a JSON encoder writes it. Redaction masks the forms it is given, and a value holding
 * `"`, `\`, a control character or a letter outside ASCII is printed escaped by every program that
 * dumps its environment or config as JSON: the model's `python3 -c 'print(json.dumps(…))'` of a
 * run's `DB_PASSWORD` (`Zt7"pa\ss-wörd`) came back as `Zt7\"pa\\ss-w\u00f6rd`, `node -e
 * 'console.log(JSON.stringify(process.env))'` as `Zt7\"pa\\ss-wörd`, and a streamed tool call's
 * input (stream-json's partial messages, telemetry's tool arguments) carries it escaped too — all
 * unmasked while `printenv` showed `[redacted]` (red team zt, ZT1). So each secret this kit
 * registers is registered in the forms the common encoders write as well: the minimal escapes
 * (JavaScript, Rust, Java), every character outside ASCII as `\uXXXX` (Python's and PHP's defaults,
 * hex in either case), `<`, `>`, `&` as `\u003c`… (Go's), `/` as `\/` (PHP's), and .NET's default
 * (also `'`, `+` and the backtick, upper-case hex). And percent-encoded, as a URL carries it (a
 * DSN a program builds from the password and prints: `postgres://app:p%40ss%21@db`; red team zt,
 * ZT5): every byte but the unreserved ones (encodeURIComponent), `/` kept (Python's `quote`), and
 * a space as `+` (a form's encoding). An encoder that spells characters otherwise (a `\u` escape
 * for a plain letter) is a transformed copy, as base64 is: not covered.
 */
import { credentialForms, noteSecret, secretsOf, type SecretBearingOptions } from "../../../src/index";

/** `\uXXXX` of each UTF-16 unit of `text` (a character outside the BMP is two, as encoders write it). */
const units = (text: string, upper: boolean) =>
  [...text]
    .flatMap((ch) => (ch.length === 2 ? [ch[0]!, ch[1]!] : [ch]))
    .map((u) => {
      const hex = u.charCodeAt(0).toString(16).padStart(4, "0");
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join("");

/** The forms `value` takes inside a JSON string, other than itself. */
export function jsonForms(value: string): string[] {
  const minimal = JSON.stringify(value).slice(1, -1);
  const escaped = (text: string, pattern: RegExp, upper: boolean) => text.replace(pattern, (m) => units(m, upper));
  const forms = new Set([minimal, minimal.replaceAll("/", "\\/"), escaped(minimal, HTML, false)]);
  for (const upper of [false, true]) {
    const ascii = escaped(minimal, NON_ASCII, upper);
    forms
      .add(ascii)
      .add(ascii.replaceAll("/", "\\/"))
      .add(escaped(ascii, HTML, upper));
    // .NET's default encoder: the backslash as `\\`, quotes, HTML's characters, `+`, the backtick
    // and everything outside printable ASCII as `\u`.
    forms.add(value.replace(/\\/g, "\\\\").replace(DOTNET, (m) => units(m, upper)));
  }
  forms.delete(value);
  return [...forms];
}

const NON_ASCII = /[^\x00-\x7f]+/g;
const HTML = /[<>&\u2028\u2029]/g;
const DOTNET = /[^\x20-\x7e]|["'&+<>`]/g;

/** The forms `value` takes percent-encoded in a URL, other than itself. */
export function urlForms(value: string): string[] {
  let all: string;
  try {
    all = encodeURIComponent(value);
  } catch {
    return []; // a lone surrogate: no URL carries it
  }
  // JavaScript leaves `!'()*` as they are; Python's quote() escapes them and keeps `/`, quote_plus() not.
  const strict = all.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const forms = new Set(
    [all, strict, strict.replace(/%2F/g, "/")].flatMap((form) => [form, form.replace(/%20/g, "+")]),
  );
  forms.delete(value);
  return [...forms];
}

/** Every other form of `value` a program prints it in (jsonForms, urlForms). */
export function secretForms(value: string): string[] {
  return [...new Set([...jsonForms(value), ...urlForms(value)])];
}

/** Register `value` as a secret (`noteSecret`), with the other forms of each of its credential forms. */
export function noteSecretForms(value: string | undefined): void {
  noteSecret(value);
  if (typeof value !== "string") return;
  for (const form of credentialForms(value)) for (const other of secretForms(form)) noteSecret(other);
}

/** Register the other forms of every secret a run's options and this process's environment hold (secretsOf). */
export function noteOptionSecretForms(options: SecretBearingOptions): void {
  for (const secret of secretsOf(options)) for (const other of secretForms(secret)) noteSecret(other);
}
