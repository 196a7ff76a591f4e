/**
 * WebFetch: read a web page on the client. The URL's host is the call's rule content
 * (`WebFetch(domain:example.com)`); the fetch itself keeps every limit (fetch-page.ts), applies
 * the sandbox's network allow-list and refuses non-public addresses unless the run opts in. A
 * page is returned as Markdown or text, paged with `offset`; with `prompt`, a model call reads
 * the page and only its answer is returned (charged to the run like any model call). Pages are
 * cached for `webFetch.cacheTtlMs` (15 minutes). The definition (name, description, input
 * schema, rule content, input check) is here; what a call does loads on the first call
 * (web-fetch-call.ts).
 */
import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import { lazyImport } from "../_kits/lazy/index";
import type { CachedPage } from "./web-fetch-call";
import { hostOf, parseWebUrl } from "./web-url";

const impl = lazyImport(() => import("./web-fetch-call"));

/** Input of the WebFetch tool. */
export const WebFetchInput = z.object({
  url: z.string().min(1).describe("An http(s) URL"),
  prompt: z.string().min(1).optional().describe("What to find out from the page"),
  offset: z.number().int().nonnegative().optional().describe("Character offset to go on from"),
});
/** A WebFetch call's parsed input. */
export type WebFetchCallInput = z.output<typeof WebFetchInput>;
type Input = WebFetchCallInput;

/** The WebFetch tool (one per kernel: its cache is the kernel's). */
export class WebFetchTool extends Tool<typeof WebFetchInput> {
  readonly name = "WebFetch";
  override readonly kind = "network" as const;
  // That the page is untrusted is said by the result's own frame and by the system prompt's
  // guidance on tool output, so not a third time here.
  readonly description =
    "Fetches a web page as Markdown or text (HTML converted, PDF text extracted); with prompt, a small model reads it and returns only its answer. A redirect to another host is reported, not followed; private and local addresses are refused. Pages are cached 15 minutes.";
  readonly inputSchema = WebFetchInput;
  override maxResultChars = 120_000;
  readonly #cache = new Map<string, CachedPage>();

  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  /** `domain:<host>`: an unparseable URL has none, so no allow rule can cover it. */
  override permissionRuleContent(input: Input): string[] | undefined {
    try {
      return [`domain:${hostOf(parseWebUrl(input.url))}`];
    } catch {
      return [];
    }
  }
  override validateInput(input: Input) {
    try {
      parseWebUrl(input.url);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  async call(input: Input, ctx: ToolContext): Promise<ToolOutput> {
    return (await impl()).fetchCall(input, ctx, this.#cache);
  }
}
