/**
 * `ubiquity:retry`: HTTP retries at the transport. A fetch wrapper handed, through the model
 * plugin's API, to every provider built from a string in a run (main, fallback, compact,
 * subagents) and to every `openaiCompatible()` model. The AI SDK's own retries stay off (the loop
 * passes `maxRetries: 0`), so the two never stack. On `model.error`, before the fallback, whole
 * calls are retried for what the transport cannot see: time limits, streams that broke off, and
 * statuses of constructed models that do not send through the run's fetch.
 * `maxRetries: 0` turns both off.
 */
import { ERROR_STAGE } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { callRetry, type CallRetryState } from "./call-retry";
import { getModelApi } from "../model/api";
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_WAIT_MS } from "./policy";
import { retryingFetch } from "./retry-fetch";
import { retryOptions } from "./options";

export const NAME = "ubiquity:retry";

/** The retry plugin. */
export const retryPlugin = definePlugin({
  name: NAME,
  options: retryOptions,
  dependsOn: ["ubiquity:model"],
  runState: (): CallRetryState => ({}),
  apply(kernel, context) {
    getModelApi(kernel).addFetchWrapper(NAME, (next, fetch) => {
      const options = context.optionsOf(fetch);
      const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
      if (maxRetries === 0) return next;
      const maxWaitMs = options.retryMaxWaitMs ?? DEFAULT_MAX_WAIT_MS;
      return retryingFetch(next, { maxRetries, maxWaitMs, logger: fetch.logger, provider: fetch.provider });
    });
    kernel.hooks.model.error.tapPromise(
      { name: NAME, stage: ERROR_STAGE.RETRY },
      callRetry(
        kernel,
        NAME,
        (run) => context.run(run),
        (run) => context.optionsOf(run),
      ),
    );
  },
});

export default retryPlugin;
export { retryingFetch, type RetryConfig } from "./retry-fetch";
export { callRetryWait } from "./call-retry";
export {
  RETRY_STATUSES,
  retryAfterMs,
  backoffMs,
  BASE_DELAY_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_WAIT_MS,
} from "./policy";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
