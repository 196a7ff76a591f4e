/**
 * The search backends WebSearch falls back to: SearXNG (self-hosted, its JSON API) and the Brave
 * Search API (keyed). Each maps its own response to the one result shape. The endpoint is one
 * the user configured, so these requests are not subject to WebFetch's address checks (a
 * SearXNG instance usually runs on localhost), but a name that first resolved to a public address
 * is held to public ones (a public instance is a third party: DNS rebinding, red team zf, ZF2).
 */
import { ConfigError } from "../../src/index";
import { noteUrlSecrets } from "../_kits/process/index";
import { heldFetch } from "./held-fetch";
import type { SearchBackendOption } from "./options";
import { WebSearchError, type SearchBackend, type SearchRequest, type WebSearchResult } from "./search-results";

/** A single `site:` term narrows the engine's own search when exactly one domain is allowed. */
function withSite(request: SearchRequest): string {
  return request.allowedDomains?.length === 1 ? `${request.query} site:${request.allowedDomains[0]}` : request.query;
}

/** A backend's address is the user's choice: held to the kind of address its name first resolved to (held-fetch.ts). */
const held = heldFetch();

async function getJson(
  url: URL,
  headers: Record<string, string>,
  backend: string,
  signal?: AbortSignal,
): Promise<unknown> {
  let response: Response;
  try {
    response = await held(url, {
      headers: { accept: "application/json", ...headers },
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new WebSearchError(
      `the ${backend} search backend at ${url.origin} could not be reached: ${(error as Error).message}; check webSearch.backend`,
    );
  }
  const text = await boundedText(response, url, backend);
  if (!response.ok)
    throw new WebSearchError(`the ${backend} search backend answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new WebSearchError(
      `the ${backend} search backend did not answer JSON${backend === "searxng" ? " (enable it in the instance's settings.yml: search.formats: [html, json])" : ""}`,
    );
  }
}

/** The most of a backend's answer read: a page of results is tens of kilobytes. */
export const MAX_BACKEND_BYTES = 4 * 1024 * 1024;

/**
 * The body as text, read up to MAX_BACKEND_BYTES. `response.text()` read all of it into this
 * process's memory whatever its size, for as long as the server sent (red team x, X4): a public
 * SearXNG instance is a third party, and one answer could fill the host's memory.
 */
async function boundedText(response: Response, url: URL, backend: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BACKEND_BYTES) {
        await reader.cancel().catch(() => {});
        throw new WebSearchError(
          `the ${backend} search backend at ${url.origin} answered more than ${MAX_BACKEND_BYTES} bytes; it was not read further`,
        );
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof WebSearchError) throw error;
    throw new WebSearchError(
      `the ${backend} search backend at ${url.origin} broke off its answer: ${(error as Error).message}`,
    );
  }
  return Buffer.concat(chunks).toString("utf8");
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** A SearXNG instance at `base`. */
export function searxngBackend(base: string): SearchBackend {
  return {
    name: "searxng",
    async search(request) {
      const url = new URL("search", base.endsWith("/") ? base : `${base}/`);
      url.searchParams.set("q", withSite(request));
      url.searchParams.set("format", "json");
      const body = (await getJson(url, {}, "searxng", request.signal)) as { results?: unknown };
      const results = Array.isArray(body.results) ? (body.results as Record<string, unknown>[]) : [];
      return results.map(
        (r): WebSearchResult => ({
          title: str(r.title),
          url: str(r.url),
          snippet: str(r.content),
          ...(str(r.publishedDate) ? { date: str(r.publishedDate) } : {}),
          source: "searxng",
        }),
      );
    },
  };
}

/** The Brave Search API with `apiKey`. */
export function braveBackend(
  apiKey: string,
  endpoint = "https://api.search.brave.com/res/v1/web/search",
): SearchBackend {
  return {
    name: "brave",
    async search(request) {
      const url = new URL(endpoint);
      url.searchParams.set("q", withSite(request));
      url.searchParams.set("count", String(Math.min(20, request.maxResults)));
      const body = (await getJson(url, { "x-subscription-token": apiKey }, "brave", request.signal)) as {
        web?: { results?: unknown };
      };
      const results = Array.isArray(body.web?.results) ? (body.web!.results as Record<string, unknown>[]) : [];
      return results.map((r): WebSearchResult => {
        const date = str(r.page_age) || str(r.age);
        return {
          title: str(r.title),
          url: str(r.url),
          snippet: str(r.description).replace(/<\/?strong>/g, ""),
          ...(date ? { date } : {}),
          source: "brave",
        };
      });
    },
  };
}

/** The backend `webSearch.backend` configures; `env` supplies keys. */
export function backendFromOption(
  option: SearchBackendOption,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SearchBackend {
  // The configured address's key, in its path or query, is masked wherever an error quotes it.
  if (option.url) noteUrlSecrets(option.url);
  if (option.type === "searxng") return searxngBackend(option.url);
  const variable = option.apiKeyEnv ?? "BRAVE_SEARCH_API_KEY";
  const key = env[variable]?.trim();
  if (!key)
    throw new ConfigError(
      `webSearch.backend is brave, but ${variable} is not set; set it to a Brave Search API key (or name another variable with apiKeyEnv)`,
    );
  return braveBackend(key, option.url);
}
