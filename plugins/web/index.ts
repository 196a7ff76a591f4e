/**
 * `ubiquity:web`: WebFetch and WebSearch, the same two tools on every provider. WebFetch reads a
 * page on the client under the run's limits and address rules; WebSearch uses the model's
 * provider-hosted search where the AI SDK exposes one, else a configured backend, else it is
 * not offered. A native search's request gets its provider tool in `model.request`.
 */
import { z } from "zod";
import { REQUEST_STAGE, type Tool } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { noteUrlSecrets } from "../_kits/process/index";
import { offerNativeTool } from "./native-search";
import { webOptions } from "./options";
import type { SearchBackend } from "./search-results";
import { WebFetchTool } from "./web-fetch";
import { searchRoute, WebSearchTool } from "./web-search";

export { WebFetchTool, WebFetchInput } from "./web-fetch";
export { WebSearchTool, WebSearchInput, formatResults } from "./web-search";
export * from "./api";

/** The plugin's name. */
export const NAME = "ubiquity:web";

/** Options of the plugin factory. */
export const WebPluginOptions = z.strictObject({
  backend: z
    .custom<SearchBackend>(
      (v) =>
        typeof v === "object" &&
        v !== null &&
        typeof (v as SearchBackend).name === "string" &&
        typeof (v as SearchBackend).search === "function",
      {
        message: "backend must be an object with a name and a search(request) function",
      },
    )
    .optional()
    .describe("A search engine of your own, used when the model has no native search (over webSearch.backend)"),
});
export type WebPluginOptions = z.input<typeof WebPluginOptions>;

/** The web plugin. */
export const webPlugin = definePlugin({
  name: NAME,
  factoryOptions: WebPluginOptions,
  options: webOptions,
  apply(kernel, context) {
    const opts = context.factoryOptions;
    kernel.hooks.kernel.configResolved.tap(NAME, (options) => {
      // The backend's key in its URL is a secret from now, not from the first search (red team zh, ZH6).
      const url = context.optionsOf(options).webSearch?.backend?.url;
      if (url) noteUrlSecrets(url);
      if (options.tools) return;
      const position = (owner: string) => kernel.plugins.findIndex((p) => p.plugin.name === owner);
      for (const tool of [new WebFetchTool(), new WebSearchTool(opts.backend)] as Tool[]) {
        // A plugin later in the list that registered the same name during apply keeps it.
        const claimed = kernel.registries.tools.entries().find((e) => e.name === tool.name);
        if (claimed && position(claimed.owner) > position(NAME)) continue;
        kernel.registries.tools.register(tool.name, tool, NAME);
      }
    });

    // WebSearch is offered only where a search can run: native for this model, or a backend.
    kernel.hooks.tool.list.tap(NAME, (tools, run) => {
      const search = tools.find((t) => t.name === "WebSearch");
      if (!search || !(search instanceof WebSearchTool)) return tools;
      return searchRoute(context.optionsOf(run), run.model, opts.backend) ? tools : tools.filter((t) => t !== search);
    });

    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, (request) =>
      offerNativeTool(request),
    );
  },
});

export default webPlugin;
