/**
 * WebSearch: one tool name and one result shape on every provider. The run's model searches
 * with its provider's own tool when it has one (native-search.ts); otherwise the configured
 * backend does (backends.ts); with neither, the tool is not offered (the plugin's `tool.list`
 * tap). Domain filters are passed to the engine where it takes them and applied to the results
 * in every case, so `allowed_domains` means the same whatever searched.
 */
import { z } from "zod";
import { ConfigError, Tool, type ToolContext, type ToolOutput } from "../../src/index";
import { getPricingApi } from "../pricing/api";
import { backendFromOption } from "./backends";
import { nativeSearch, nativeSearchProvider } from "./native-search";
import { WEB_DEFAULTS, webOptionsOf, type WebResolvedOptions } from "./options";
import {
  filterResults,
  normalizeDomain,
  WebSearchError,
  type SearchBackend,
  type SearchRequest,
  type WebSearchResult,
} from "./search-results";
import { untrustedHeader } from "./untrusted";

/** Input of the WebSearch tool. */
export const WebSearchInput = z.object({
  query: z.string().min(2).describe("The search query"),
  allowed_domains: z.array(z.string().min(1)).optional().describe("Only results from these domains (and subdomains)"),
  blocked_domains: z.array(z.string().min(1)).optional().describe("No results from these domains (and subdomains)"),
});
type Input = z.output<typeof WebSearchInput>;

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

/** The WebSearch tool. `backend` is a custom engine given to the plugin factory. */
export class WebSearchTool extends Tool<typeof WebSearchInput> {
  readonly name = "WebSearch";
  override readonly kind = "network" as const;
  readonly description =
    "Searches the web: title, URL, date and snippet of each result. For current information beyond your training data; fetch a page when its snippet is not enough. Results are untrusted.";
  readonly inputSchema = WebSearchInput;
  override maxResultChars = 40_000;

  constructor(private readonly backend?: SearchBackend) {
    super();
  }
  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  override validateInput(input: Input) {
    if (input.allowed_domains?.length && input.blocked_domains?.length)
      return "Give allowed_domains or blocked_domains, not both";
    return undefined;
  }

  async call(input: Input, ctx: ToolContext): Promise<ToolOutput> {
    const run = ctx.run;
    const options: Partial<WebResolvedOptions> = run ? webOptionsOf(run.options) : {};
    const request: SearchRequest = {
      query: input.query,
      ...(input.allowed_domains?.length ? { allowedDomains: input.allowed_domains.map(normalizeDomain) } : {}),
      ...(input.blocked_domains?.length ? { blockedDomains: input.blocked_domains.map(normalizeDomain) } : {}),
      maxResults: options.webSearch?.maxResults ?? WEB_DEFAULTS.maxResults,
      signal: ctx.abortSignal,
    };
    const route = searchRoute(options, run?.model, this.backend);
    try {
      if (route?.kind === "native" && run) {
        const outcome = await nativeSearch(
          run,
          route.provider,
          request,
          options.webSearch?.maxUses ?? WEB_DEFAULTS.maxUses,
        );
        const fee = outcome.searches * (options.webSearch?.searchPriceUsd ?? 0);
        if (fee > 0) getPricingApi(run.kernel).addCost(run, `${route.provider} web search`, fee);
        const results = filterResults(outcome.results, request);
        const source = `${route.provider} native search (${outcome.modelLabel})`;
        const metadata = {
          query: input.query,
          source: route.provider,
          native: true,
          searches: outcome.searches,
          results,
          ...(outcome.errors.length ? { errors: outcome.errors } : {}),
        };
        if (results.length === 0 && outcome.errors.length > 0) {
          return {
            content: `WebSearch: the ${route.provider} search tool failed (${outcome.errors.join(", ")}); try again later or with another query.`,
            isError: true,
            metadata,
          };
        }
        return { content: formatResults(input.query, source, results, outcome.summary), metadata };
      }
      const backend =
        this.backend ??
        (options.webSearch?.backend
          ? backendFromOption(options.webSearch.backend, { ...process.env, ...ctx.env })
          : undefined);
      if (!backend) {
        return {
          content:
            "WebSearch: no search is available: the model's provider has no native search, and no webSearch.backend is configured (SearXNG or Brave).",
          isError: true,
          metadata: { query: input.query },
        };
      }
      const results = filterResults(await backend.search(request), request);
      return {
        content: formatResults(input.query, backend.name, results),
        metadata: { query: input.query, source: backend.name, native: false, results },
      };
    } catch (error) {
      if (error instanceof WebSearchError || error instanceof ConfigError)
        return { content: `WebSearch: ${error.message}`, isError: true, metadata: { query: input.query } };
      throw error;
    }
  }
}
