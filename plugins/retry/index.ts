/**
 * `ubiquity:retry`: HTTP retries at the transport. A fetch wrapper handed, through the model
 * plugin's API, to every provider built from a string in a run (main, fallback, compact,
 * subagents). The AI SDK's own retries stay off (the loop passes `maxRetries: 0`), so the two
 * never stack. `maxRetries: 0` leaves the provider's fetch untouched.
 */
import { definePlugin } from "../../src/index";
import { getModelApi } from "../model/api";
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_WAIT_MS } from "./policy";
import { retryingFetch } from "./retry-fetch";

export const NAME = "ubiquity:retry";

/** The retry plugin. */
export const retryPlugin = definePlugin(() => ({
  name: NAME,
  dependsOn: ["ubiquity:model"],
  apply(kernel) {
    getModelApi(kernel).addFetchWrapper(NAME, (next, context) => {
      const maxRetries = context.options.maxRetries ?? DEFAULT_MAX_RETRIES;
      if (maxRetries === 0) return next;
      const maxWaitMs = context.options.retryMaxWaitMs ?? DEFAULT_MAX_WAIT_MS;
      return retryingFetch(next, { maxRetries, maxWaitMs, logger: context.logger, provider: context.provider });
    });
  },
}));

export default retryPlugin;
export { retryingFetch, type RetryConfig } from "./retry-fetch";
export { RETRY_STATUSES, retryAfterMs, backoffMs, BASE_DELAY_MS, DEFAULT_MAX_RETRIES, DEFAULT_MAX_WAIT_MS } from "./policy";
