/** The one shape of a search result, whatever engine produced it, and the domain filters. */
import { UbiquityError } from "../../src/index";

/** A search failed (a backend, or the provider's own search); the message names it and the fix. */
export class WebSearchError extends UbiquityError {
  override name = "WebSearchError";
}

/** One search result. `source` names the engine: `anthropic`, `openai`, `google` (native), `searxng`, `brave`, or a custom backend's name. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
  /** The page's date as the engine reported it (ISO 8601 where it gave one), when it did. */
  date?: string;
  source: string;
}

/** What a search asks for besides the query. */
export interface SearchRequest {
  query: string;
  allowedDomains?: string[];
  blockedDomains?: string[];
  maxResults: number;
  signal?: AbortSignal;
}

/** A search engine WebSearch can use when the model has no native search. */
export interface SearchBackend {
  /** The name results carry as their `source`. */
  readonly name: string;
  search(request: SearchRequest): Promise<WebSearchResult[]>;
}

/** A domain as a filter reads it: lower case, no scheme, path or leading `*.`/`.`. */
export function normalizeDomain(domain: string): string {
  return domain
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, "")
    .replace(/[/?#].*$/, "")
    .replace(/^\*?\./, "");
}

/** True when `url`'s host is `domain` or one of its subdomains. */
export function inDomain(url: string, domain: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  const d = normalizeDomain(domain);
  return host === d || host.endsWith(`.${d}`);
}

/** The results the filters let through (an unparseable URL never passes an allow list), deduplicated by URL, at most `max`. */
export function filterResults(
  results: WebSearchResult[],
  request: Pick<SearchRequest, "allowedDomains" | "blockedDomains" | "maxResults">,
): WebSearchResult[] {
  const seen = new Set<string>();
  const out: WebSearchResult[] = [];
  for (const r of results) {
    if (!r.url || seen.has(r.url)) continue;
    if (request.allowedDomains?.length && !request.allowedDomains.some((d) => inDomain(r.url, d))) continue;
    if (request.blockedDomains?.some((d) => inDomain(r.url, d))) continue;
    seen.add(r.url);
    out.push(r);
    if (out.length >= request.maxResults) break;
  }
  return out;
}
