/**
 * How a run's searches go (native, a backend, or none: the plugin's `tool.list` gate and the call
 * both ask) and the results as the model reads them.
 */
import { nativeSearchProvider } from "./native-search";
import type { WebResolvedOptions } from "./options";
import type { SearchBackend, WebSearchResult } from "./search-results";
import { untrustedHeader } from "./untrusted";

/** How a run searches: natively (its model's provider), through a backend, or not at all. */
export type SearchRoute =
  | { kind: "native"; provider: NonNullable<ReturnType<typeof nativeSearchProvider>> }
  | { kind: "backend" }
  | undefined;

/** The route a run's searches take under its options. */
export function searchRoute(
  options: Pick<WebResolvedOptions, "webSearch">,
  model: unknown,
  backend: SearchBackend | undefined,
): SearchRoute {
  const provider = options.webSearch?.native === false ? undefined : nativeSearchProvider(model as never);
  if (provider) return { kind: "native", provider };
  if (backend || options.webSearch?.backend) return { kind: "backend" };
  return undefined;
}

/** The results as the model reads them. */
export function formatResults(query: string, source: string, results: WebSearchResult[], summary?: string): string {
  const lines = [untrustedHeader(`WebSearch results for ${JSON.stringify(query)} from ${source}`)];
  if (results.length === 0) lines.push("No results.");
  results.forEach((r, i) => {
    lines.push(`${i + 1}. ${r.title || r.url}`, `   ${r.url}`);
    if (r.date) lines.push(`   Date: ${r.date}`);
    if (r.snippet) lines.push(`   ${r.snippet.replace(/\s+/g, " ").trim()}`);
  });
  if (summary) lines.push("", `Summary by the search model (${source}):`, summary);
  return lines.join("\n");
}
