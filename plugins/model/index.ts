/**
 * `ubiquity:model`: every provider from a string. Registers the built-in providers in the
 * kernel's provider registry (a later registration of the same name wins), resolves model
 * strings through aliases on `model.resolve`, writes generation settings in each provider's
 * dialect on `model.request`, and answers provider failures with `fallbackModel` on `model.error`.
 */
import type { LanguageModel } from "ai";
import {
  ConfigError,
  ERROR_STAGE,
  modelLabel,
  REQUEST_STAGE,
  requestedModel,
  resolveModel,
  testModel,
  type Kernel,
  type ModelProvider,
  type ModelRef,
  type ModelRequest,
  type ResolvedOptions,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { expandAlias } from "./aliases";
import { credentialsFor, noteCredentialOwner, noteMainProvider } from "./credentials";
import { textToolCall, textToolCallWarning } from "./text-tool-call";
import { cutPromptWarning } from "./cut-prompt";
import { getModelApi } from "./api";
import { buildProvider, noProviderError, pickModel, splitSpec, unknownProviderError } from "./build";
import { dialectOptions } from "./dialect";
import { isProviderFailure } from "./failover";
import { addFailureHint } from "./failure-hint";
import { PROVIDERS, type ProviderSpec } from "./providers";
import { checkProviderSettings } from "./settings";
import { noteOptionSecretForms, noteProcessHeaderLists } from "../_kits/process/index";
import { sameOriginRedirects } from "./redirects";
import { streamCheckingFetch } from "./stream-check";
import { WITH_FETCH, type OpenAICompatibleModel } from "./openai-compatible";
import { modelCommands, modelFlags } from "./models-report";
import { modelOptions } from "./options";
import { guardImages } from "./image-guard";
import type { ModelOptions, ModelResolvedOptions } from "./options";

export const NAME = "ubiquity:model";

type Model = Exclude<LanguageModel, string>;
type Instance = Awaited<ReturnType<typeof buildProvider>>;

// One provider instance per run options and provider: main, fallback, compact and subagents of a
// run share it, so they share its settings and its fetch.
const instances = new WeakMap<object, Map<string, Promise<Instance>>>();

function instanceFor(
  kernel: Kernel,
  name: string,
  spec: ProviderSpec,
  options: ModelResolvedOptions,
): Promise<Instance> {
  let byName = instances.get(options);
  if (!byName) instances.set(options, (byName = new Map()));
  let pending = byName.get(name);
  if (!pending) {
    const context = { provider: name, options, logger: options.logger };
    pending = buildProvider(name, spec, {
      ...credentialsFor(name, options),
      wrapFetch: (fetch) => getModelApi(kernel).fetchFor(fetch, context),
    });
    // A failed build (missing package, bad setting) is not cached: the next run may have fixed it.
    pending.catch(() => byName!.delete(name));
    byName.set(name, pending);
  }
  return pending;
}

/** A registry entry for a built-in provider. */
function builtinProvider(kernel: Kernel, name: string, spec: ProviderSpec): ModelProvider {
  return {
    providerIds: spec.providerIds,
    async languageModel(modelId: string, ref: ModelRef) {
      const variant = splitSpec(ref.spec)?.variant;
      if (ref.role === "main") noteMainProvider(ref.options, name);
      const model = pickModel(name, spec, await instanceFor(kernel, name, spec, ref.options), modelId, variant);
      noteCredentialOwner(model, ref.options);
      getModelApi(kernel).markWrapped(model);
      return model;
    },
  };
}

const isCompatible = (model: unknown): model is OpenAICompatibleModel =>
  typeof model === "object" &&
  model !== null &&
  typeof (model as Partial<OpenAICompatibleModel>)[WITH_FETCH] === "function";

// Rebound openaiCompatible() models, per run options (like the provider instances).
const rebound = new WeakMap<object, WeakMap<object, Model>>();

/**
 * An `openaiCompatible()` model sending through the run's fetch wrappers, so it gets the same
 * retries and checks as a model built from a string; any other model is returned as it is.
 */
function throughTransport(kernel: Kernel, model: Model, options: ResolvedOptions): Model {
  if (!isCompatible(model)) return model;
  let byModel = rebound.get(options);
  if (!byModel) rebound.set(options, (byModel = new WeakMap()));
  let bound = byModel.get(model);
  if (!bound) {
    const api = getModelApi(kernel);
    bound = model[WITH_FETCH](
      api.fetchFor(undefined, { provider: model.providerName, options, logger: options.logger }),
    );
    api.markWrapped(bound);
    byModel.set(model, bound);
  }
  return bound;
}

/** Check `providerSettings` against the built-in providers the run's main and fallback strings name. */
function checkRunSettings(kernel: Kernel, options: ModelResolvedOptions) {
  // As the runner's --fallback-model and claude refuse it: a fallback that is the main model falls
  // back to nothing, and the run would fail over to the very model that just failed.
  const main = requestedModel(options);
  const fallback = options.fallbackModel;
  const same =
    typeof main === "string" && typeof fallback === "string"
      ? expandAlias(main, options.modelAliases) === expandAlias(fallback, options.modelAliases)
      : main !== undefined && main === fallback;
  if (same)
    throw new ConfigError(
      `fallbackModel${typeof fallback === "string" ? ` "${fallback}"` : ""} is the main model: name another model, or leave fallbackModel out`,
    );
  if (!options.providerSettings) return;
  // compactModel is checked when compaction builds it (the same build path), not here.
  for (const model of [requestedModel(options), options.fallbackModel]) {
    if (typeof model !== "string") continue;
    const parsed = splitSpec(expandAlias(model, options.modelAliases));
    const entry = parsed && kernel.registries.providers.entries().find((e) => e.name === parsed.provider);
    if (parsed && entry?.owner === NAME) checkProviderSettings(parsed.provider, options.providerSettings);
  }
}

/** What the plugin keeps per run: the fallback model, built on the first provider failure. */
interface RunState {
  fallback?: Promise<Model>;
  /** A call written as text was warned about (once a run). */
  textCallWarned?: boolean;
  /** A prompt its server cut was warned about (once a run). */
  cutWarned?: boolean;
}

/** The thinking budget of a request: the run's `maxThinkingTokens` for its turns (a summary or a plugin's own call keeps the provider's default, as the summarizer always did). */
const thinkingFor = (request: ModelRequest, options: ModelOptions) =>
  (request.purpose ?? "turn") === "turn" ? options.maxThinkingTokens : undefined;

/** The model plugin. */
export const modelPlugin = definePlugin({
  name: NAME,
  options: modelOptions,
  runState: (): RunState => ({}),
  commands: modelCommands,
  flags: modelFlags,
  apply(kernel, context) {
    // Innermost: a redirect to another server is never followed with the request's key (redirects.ts).
    getModelApi(kernel).addFetchWrapper(`${NAME}/redirects`, (next, context) =>
      sameOriginRedirects(next, context.provider),
    );
    // Every retry attempt is checked, and a 200 that is no stream is retried.
    getModelApi(kernel).addFetchWrapper(`${NAME}/stream-check`, (next, context) =>
      streamCheckingFetch(next, context.provider),
    );
    for (const [name, spec] of Object.entries(PROVIDERS) as [string, ProviderSpec][]) {
      kernel.registries.providers.register(name, builtinProvider(kernel, name, spec), NAME);
    }

    // A bad providerSettings key fails at the config line (createKernel throws), not mid-run.
    kernel.hooks.kernel.configResolved.tap(NAME, (options) => {
      checkRunSettings(kernel, options);
      // This process's header lists (OTEL_EXPORTER_OTLP_HEADERS) are masked from the start (a Read of /proc/self/environ).
      noteProcessHeaderLists();
      // Every secret the options and this process's environment hold, in the forms JSON encoders write it (red team zt, ZT1).
      noteOptionSecretForms(options);
    });

    kernel.hooks.model.resolve.tapPromise(NAME, async (ref, k) => {
      const spec = expandAlias(ref.spec, context.optionsOf(ref).modelAliases);
      if (spec === "test") return ref.spec === "test" ? undefined : testModel(); // the offline model (also behind an alias)
      const parsed = splitSpec(spec);
      const known = k.registries.providers.entries().map((e) => e.name);
      if (!parsed) throw noProviderError(ref.spec, known);
      const provider = k.registries.providers.get(parsed.provider);
      if (!provider) throw unknownProviderError(spec, parsed.provider, known);
      return provider.languageModel(parsed.modelId, { ...ref, spec });
    });

    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.TRANSFORM }, (request, run) => {
      const model = throughTransport(kernel, request.model as Model, run.options);
      const providerOptions = dialectOptions(
        request.model,
        thinkingFor(request, context.optionsOf(run)),
        request.providerOptions,
      );
      return providerOptions === request.providerOptions && model === request.model
        ? request
        : { ...request, model, providerOptions };
    });

    // Images only reach models that take them, in a place their wire format carries (image-guard.ts).
    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.TRANSFORM }, (request, run) =>
      guardImages(request, context.optionsOf(run)),
    );

    // After the transport's retries: a provider failure goes to the fallback model, once per call.
    kernel.hooks.model.error.tapPromise({ name: NAME, stage: ERROR_STAGE.FALLBACK }, async (info, run) => {
      const wanted = context.optionsOf(run).fallbackModel;
      if (wanted === undefined || !isProviderFailure(info.error)) return undefined;
      const state: RunState = context.run(run);
      state.fallback ??= resolveModel(run, wanted, "fallback");
      const fallback = throughTransport(kernel, await state.fallback, run.options);
      if (info.request.model === fallback) return undefined;
      const label = modelLabel(fallback, kernel);
      run.logger.debug(`[${NAME}] ${info.request.modelLabel} failed; falling back to ${label}`);
      const providerOptions = dialectOptions(
        fallback,
        thinkingFor(info.request, context.optionsOf(run)),
        info.request.providerOptions,
      );
      return {
        retry: true as const,
        request: { ...info.request, model: fallback, modelLabel: label, providerOptions },
      };
    });

    // A call written as text, by a model served without tool calling (text-tool-call.ts).
    kernel.hooks.model.response.tap(NAME, (response, run) => {
      const { request } = response;
      if ((request.purpose ?? "turn") !== "turn" || request.toolList.length === 0) return;
      const state: RunState = context.run(run);
      if (state.textCallWarned || response.finishReason === "tool-calls") return;
      const tool = textToolCall(
        response.text,
        request.toolList.map((t) => t.name),
      );
      if (!tool) return;
      state.textCallWarned = true;
      context.warn(textToolCallWarning(response.modelLabel, tool));
    });

    // A prompt the server cut to its window without an error (cut-prompt.ts).
    kernel.hooks.model.response.tap(NAME, (response, run) => {
      const state: RunState = context.run(run);
      const warning = state.cutWarned ? undefined : cutPromptWarning(response);
      if (!warning) return;
      state.cutWarned = true;
      context.warn(warning);
    });

    // Reached only when no earlier tap recovered the call: its message names the fix (failure-hint.ts).
    kernel.hooks.model.error.tap({ name: NAME, order: "last" }, (info, run) => {
      const settings = context.optionsOf(run).providerSettings as Record<string, unknown> | undefined;
      addFailureHint(info.error, info.request.modelLabel, typeof settings?.apiKey === "string");
      return undefined;
    });
  },
});

export default modelPlugin;
export {
  registerAlias,
  clearAliases,
  expandAlias,
  parseAliasList,
  MAX_ALIAS_HOPS,
  CLAUDE_MODEL_TIERS,
  fileModel,
  modelAliasesOf,
} from "./aliases";
export { getModelApi, type ModelApi, type FetchWrapper, type FetchContext } from "./api";
export {
  openaiCompatible,
  WITH_FETCH,
  type OpenAICompatibleSettings,
  type OpenAICompatibleModel,
} from "./openai-compatible";
export { streamCheckingFetch, asksForStream, UnexpectedResponseError } from "./stream-check";
export { checkProviderSettings } from "./settings";
export { createModel, type CreateModelOptions } from "./create-model";
export { PROVIDERS, PROVIDER_NAMES, isProviderKey, type ProviderSpec, type ProviderName } from "./providers";
export { isProviderFailure, isConnectionError } from "./failover";
export { dialectOptions, reasoningEffort } from "./dialect";
export { supportsImages, type ModelCapability } from "./capabilities";
export { splitSpec } from "./build";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
