/**
 * A provider's request carries the run's key, and fetch follows a redirect with every header but
 * `Authorization`: Anthropic's `x-api-key`, Azure's `api-key`, Google's `x-goog-api-key` and a
 * gateway's own header went to whatever server a `Location` named — and with an apiKeyHelper, a
 * 401 from there had the helper's fresh key sent after the first (red team zq, ZQ1). A provider's
 * API does not move between servers: a redirect within the same origin (scheme, host and port) is
 * followed, one to another origin is not, and the call fails naming both.
 */
import { ModelError } from "../../src/index";

type Fetch = typeof globalThis.fetch;

/** As many as fetch itself follows. */
const MAX_REDIRECTS = 20;

/** The URL a request goes to. */
function urlOf(input: Parameters<Fetch>[0]): URL {
  return new URL(input instanceof Request ? input.url : String(input));
}

/** Wrap `next` so the requests of `provider` follow redirects within their origin only. */
export function sameOriginRedirects(next: Fetch, provider: string): Fetch {
  return async (input, init) => {
    // A Request object carries its own redirect mode and a body that may not be sent twice.
    let request: Parameters<Fetch>[0] = input instanceof Request ? new Request(input, { redirect: "manual" }) : input;
    let options: RequestInit = { ...init, redirect: "manual" };
    for (let hops = 0; ; hops++) {
      const response = await next(request, options);
      const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
      if (location === null) return response;
      const from = urlOf(request);
      const to = new URL(location, from);
      await response.body?.cancel().catch(() => undefined);
      if (to.origin !== from.origin)
        throw new ModelError(
          `${provider}: ${from.origin} redirected the request to ${to.origin}, which is not followed: the request carries the provider's key (point the provider's baseURL at the server that answers)`,
        );
      if (hops >= MAX_REDIRECTS)
        throw new ModelError(`${provider}: more than ${MAX_REDIRECTS} redirects from ${from.origin}`);
      // 303, and 301/302 of a POST, go on as a GET without the body (as fetch does).
      const method = (options.method ?? (request instanceof Request ? request.method : "GET")).toUpperCase();
      const toGet =
        response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST");
      if (request instanceof Request && request.body !== null && !toGet)
        throw new ModelError(`${provider}: ${from.origin} redirected a request whose body cannot be sent again`);
      request = to.href;
      if (toGet) {
        const headers = new Headers(options.headers);
        for (const name of ["content-type", "content-length", "content-encoding", "content-language"])
          headers.delete(name);
        options = { ...options, method: "GET", body: null, headers };
      }
    }
  };
}
