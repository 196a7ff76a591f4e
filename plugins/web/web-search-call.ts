/**
 * What a WebSearch call does, loaded on the tool's first call (the definition is web-search.ts):
 * the native search or the backend's, the domain filters and the result the model reads.
 */
import { ConfigError, type ToolContext, type ToolOutput } from "../../src/index";
import { getPricingApi } from "../pricing/api";
import { backendFromOption } from "./backends";
import { nativeSearch } from "./native-search";
import { WEB_DEFAULTS, webOptionsOf, type WebResolvedOptions } from "./options";
import {
  filterResults,
  normalizeDomain,
  WebSearchError,
  type SearchBackend,
  type SearchRequest,
} from "./search-results";
import { formatResults, searchRoute } from "./search-route";
import type { WebSearchCallInput as Input } from "./web-search";

/** What a WebSearch call does; `backend` is the engine given to the plugin factory, if any. */
export async function searchCall(
  input: Input,
  ctx: ToolContext,
  ownBackend: SearchBackend | undefined,
): Promise<ToolOutput> {
  const run = ctx.run;
  const options: Partial<WebResolvedOptions> = run ? webOptionsOf(run.options) : {};
  const request: SearchRequest = {
    query: input.query,
    ...(input.allowed_domains?.length ? { allowedDomains: input.allowed_domains.map(normalizeDomain) } : {}),
    ...(input.blocked_domains?.length ? { blockedDomains: input.blocked_domains.map(normalizeDomain) } : {}),
    maxResults: options.webSearch?.maxResults ?? WEB_DEFAULTS.maxResults,
    signal: ctx.abortSignal,
  };
  const route = searchRoute(options, run?.model, ownBackend);
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
      ownBackend ??
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
