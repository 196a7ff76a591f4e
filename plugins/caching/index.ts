/**
 * `ubiquity:caching`: `cachePrompt: true | "5m" | "1h" | false` [true]. Providers cache the prefix
 * of a request themselves; the only lever a client has is marking it where a provider asks for
 * a marker. Anthropic gets breakpoints on the tool block, the system prompt and the newest
 * message (advancing every request; "1h" sets the longer TTL); Bedrock gets a cache point at the
 * end of the user prompt. Every other provider caches implicitly, so the option is inert there
 * and their requests go out untouched. Runs at REQUEST_STAGE.CACHE, on the final shape of the
 * prompt (after compaction and dialect rewrites).
 */
import { REQUEST_STAGE } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { anthropicBreakpoints, bedrockCachePoint, cacheFamily } from "./breakpoints";
import { cachingOptions } from "./options";

export const NAME = "ubiquity:caching";

/** The caching plugin. */
export const cachingPlugin = definePlugin({
  name: NAME,
  options: cachingOptions,
  apply(kernel, context) {
    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.CACHE }, (request, run) => {
      const setting = context.optionsOf(run).cachePrompt ?? true;
      // Only the conversation's prefix is sent again; a one-off call (a summary) would pay for a cache write it never reads.
      if (setting === false || (request.purpose ?? "turn") !== "turn") return request;
      const provider = String((request.model as { provider?: unknown }).provider ?? "");
      switch (cacheFamily(provider)) {
        case "anthropic":
          return anthropicBreakpoints(request, setting === "1h" ? "1h" : "5m");
        case "bedrock":
          return bedrockCachePoint(request);
        default:
          return request;
      }
    });
  },
});

export default cachingPlugin;
export {
  anthropicBreakpoints,
  bedrockCachePoint,
  cacheFamily,
  anthropicCacheControl,
  type CacheFamily,
} from "./breakpoints";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
