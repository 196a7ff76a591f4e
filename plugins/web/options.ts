/** The options the web plugin reads (`webFetch`, `webSearch`). */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

const positive = () => z.number().int().positive();

/** A self-hosted SearXNG instance (its JSON API must be enabled: `search.formats: [json]`). */
const SearxngBackend = z.strictObject({
  type: z.literal("searxng"),
  url: z.string().url().describe("The instance's base URL, e.g. http://localhost:8888"),
});
/** The Brave Search API (a key from https://brave.com/search/api/). */
const BraveBackend = z.strictObject({
  type: z.literal("brave"),
  apiKeyEnv: z.string().optional().describe("The environment variable holding the key [BRAVE_SEARCH_API_KEY]"),
  url: z.string().url().optional().describe("The API endpoint [https://api.search.brave.com/res/v1/web/search]"),
});

/** The web plugin's slice of the config schema. */
export const webOptions = lazyOptions(["webFetch", "webSearch"], () => ({
  webFetch: z
    .strictObject({
      model: z
        .string()
        .optional()
        .describe("The model that answers a WebFetch `prompt` about a page [the run's model]"),
      maxBytes: positive()
        .optional()
        .describe("Largest response body read, in bytes; a bigger one is cut there and says so [5242880]"),
      timeoutMs: positive().optional().describe("Longest a fetch may take, redirects included [30000]"),
      maxRedirects: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe("Same-host redirects followed; a redirect to another host is reported, never followed [5]"),
      pageChars: positive()
        .optional()
        .describe("Characters of content one WebFetch result returns; `offset` pages on [50000]"),
      cacheTtlMs: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe("How long a fetched page is reused (0: no cache) [900000]"),
      allowPrivateAddresses: z
        .boolean()
        .optional()
        .describe(
          "Let WebFetch reach loopback, link-local and private addresses (a local dev server); refused by default [false]",
        ),
    })
    .optional()
    .describe("WebFetch: limits, the model for `prompt`, and which addresses it may reach"),
  webSearch: z
    .strictObject({
      native: z
        .boolean()
        .optional()
        .describe(
          "Use the model's provider-hosted search when it has one (Anthropic, OpenAI Responses, Google) [true]",
        ),
      backend: z
        .discriminatedUnion("type", [SearxngBackend, BraveBackend])
        .optional()
        .describe(
          "The search engine used when the model has no native search: SearXNG or the Brave Search API [none: WebSearch is not offered]",
        ),
      maxResults: positive().optional().describe("Results returned per search [10]"),
      maxUses: positive().optional().describe("Searches a native search call may make for one WebSearch call [3]"),
      searchPriceUsd: z
        .number()
        .nonnegative()
        .optional()
        .describe(
          "What the provider bills per native search, added to totalCostUsd (Anthropic and OpenAI: 0.01; Google: 0.035 per grounded request) [0: not added]",
        ),
    })
    .optional()
    .describe("WebSearch: the provider's native search, else a configured backend"),
}));
export type WebOptions = z.input<typeof webOptions>;
/** The run options as the web plugin reads them. */
export type WebResolvedOptions = ResolvedOptions & Readonly<WebOptions>;
/**
 * The web options of `options`, read through the slice's schema: the tools run in any kernel
 * (`new WebFetchTool()` in a test), so they read without the plugin's context.
 */
export function webOptionsOf(options: ResolvedOptions): WebResolvedOptions {
  const read = webOptions.safeParse({ webFetch: options.webFetch, webSearch: options.webSearch });
  return read.success ? { ...options, ...read.data } : options;
}
/** `webFetch` as given. */
export type WebFetchOptions = NonNullable<WebOptions["webFetch"]>;
/** `webSearch` as given. */
export type WebSearchOptions = NonNullable<WebOptions["webSearch"]>;
/** `webSearch.backend` as given. */
export type SearchBackendOption = NonNullable<WebSearchOptions["backend"]>;

/** The defaults the descriptions above state. */
export const WEB_DEFAULTS = Object.freeze({
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
  pageChars: 50_000,
  cacheTtlMs: 15 * 60_000,
  maxResults: 10,
  maxUses: 3,
});
