/**
 * What WebFetch checks of a URL before any network: the error it reports, the URL's parse (http(s)
 * only, no credentials) and its host as the rules see it. Kept apart from fetch-page.ts so that the
 * tool's definition (its rule content and input check) needs none of the fetch code at start.
 */
import { UbiquityError } from "../../src/index";

/** A fetch WebFetch refuses or cannot complete; the message says why and what to do. */
export class WebFetchError extends UbiquityError {
  override name = "WebFetchError";
}

/** `url` parsed, with the checks that need no network: http(s) only, no credentials. */
export function parseWebUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebFetchError(`${JSON.stringify(url)} is not a valid URL; give an absolute http:// or https:// URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new WebFetchError(`${parsed.protocol} URLs are not fetched; WebFetch reads http:// and https:// URLs only`);
  if (parsed.username || parsed.password)
    throw new WebFetchError("URLs with a user name or password are not fetched; remove the credentials from the URL");
  if (!parsed.hostname) throw new WebFetchError(`${JSON.stringify(url)} names no host`);
  return parsed;
}

/** The host as the address check and the rules see it: brackets off an IPv6 literal, lower case. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
}
