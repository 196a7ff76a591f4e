/**
 * The model plugin's extension point: other plugins wrap the `fetch` handed to every provider
 * built from a model string in a run (main, fallback, compact, subagents). `ubiquity:retry` is
 * the built-in user. One API object per kernel, kept in a WeakMap so no plugin reads another's
 * module state.
 */
import type { Kernel, Logger, ResolvedOptions } from "../../src/index";

export { isConnectionError, isProviderFailure, isRetryableStreamError } from "./failover";
export { supportsImages, runSeesImages, type ModelCapability } from "./capabilities";
export { isProviderKey } from "./providers";
export { modelStringFor } from "./build";
export { expandAlias, modelAliasesOf } from "./aliases";

/** What a fetch wrapper learns about the provider it wraps. */
export interface FetchContext {
  /** The provider name (`groq`, `anthropic`, ...). */
  provider: string;
  /** The run's options (retry budget, wait cap, ...). */
  options: ResolvedOptions;
  /** The run's logger (debug lines for each attempt go here). */
  logger: Logger;
}

/** A function the fetch of a provider passes through; return `next` itself to leave it untouched. */
export type FetchWrapper = (next: typeof globalThis.fetch, context: FetchContext) => typeof globalThis.fetch;

/** The model plugin's API for other plugins. */
export interface ModelApi {
  /** Wrap the fetch of every provider built from a string; wrappers apply in registration order, the first innermost. */
  addFetchWrapper(name: string, wrapper: FetchWrapper): void;
  /** The fetch to hand to a provider built for `context`, or undefined when no wrapper changes it. */
  fetchFor(base: typeof globalThis.fetch | undefined, context: FetchContext): typeof globalThis.fetch | undefined;
  /** Record that `model` sends through the wrapped fetch (built from a string, or a rebound `openaiCompatible()`). */
  markWrapped(model: object): void;
  /** True when `model`'s requests go through the fetch wrappers (so HTTP statuses were already retried there). */
  isWrapped(model: unknown): boolean;
}

const apis = new WeakMap<Kernel, ModelApi>();

function createModelApi(): ModelApi {
  const wrappers: { name: string; wrapper: FetchWrapper }[] = [];
  const wrapped = new WeakSet<object>();
  return {
    markWrapped(model) {
      wrapped.add(model);
    },
    isWrapped(model) {
      return typeof model === "object" && model !== null && wrapped.has(model);
    },
    addFetchWrapper(name, wrapper) {
      wrappers.push({ name, wrapper });
    },
    fetchFor(base, context) {
      const start = base ?? globalThis.fetch;
      let current = start;
      for (const { wrapper } of wrappers) current = wrapper(current, context);
      // An unchanged fetch stays unset, so the provider keeps its own (maxRetries: 0 = untouched).
      return current === start ? base : current;
    },
  };
}

/** The model API of `kernel` (created on first use). */
export function getModelApi(kernel: Kernel): ModelApi {
  let api = apis.get(kernel);
  if (!api) apis.set(kernel, (api = createModelApi()));
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
