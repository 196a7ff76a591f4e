/**
 * WebSearch: one tool name and one result shape on every provider. The run's model searches
 * with its provider's own tool when it has one (native-search.ts); otherwise the configured
 * backend does (backends.ts); with neither, the tool is not offered (the plugin's `tool.list`
 * tap). Domain filters are passed to the engine where it takes them and applied to the results
 * in every case, so `allowed_domains` means the same whatever searched. What a call does loads
 * on the first call (web-search-call.ts).
 */
import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import { lazyImport } from "../_kits/lazy/index";
import type { SearchBackend } from "./search-results";

const impl = lazyImport(() => import("./web-search-call"));

/** Input of the WebSearch tool. */
export const WebSearchInput = z.object({
  query: z.string().min(2).describe("The search query"),
  allowed_domains: z.array(z.string().min(1)).optional().describe("Only results from these domains (and subdomains)"),
  blocked_domains: z.array(z.string().min(1)).optional().describe("No results from these domains (and subdomains)"),
});
/** A WebSearch call's parsed input. */
export type WebSearchCallInput = z.output<typeof WebSearchInput>;
type Input = WebSearchCallInput;

export { formatResults, searchRoute, type SearchRoute } from "./search-route";

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
    return (await impl()).searchCall(input, ctx, this.backend);
  }
}
