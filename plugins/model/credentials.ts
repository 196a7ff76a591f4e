/**
 * Whose credentials a provider built from a string gets. `apiKey` — and a key, token or headers in
 * `providerSettings` — were given for the run's model; handed to every provider of the run, a
 * Groq key went to Anthropic's API when the fallback (or a subagent, or the compaction model) was
 * an Anthropic model. A provider other than the run's model's gets them only when
 * `providerSettings.baseURL` sends it to the same server (a gateway, a proxy) as the run's model;
 * otherwise it reads its own variables, as it would alone.
 */
import { requestedModel } from "../../src/index";
import type { ModelResolvedOptions as ResolvedOptions } from "./options";
import { expandAlias } from "./aliases";
import { splitSpec } from "./build";

/** The provider whose credentials a model built from a string inherits: a subagent's options carry the model object, not its string. */
const owners = new WeakMap<object, string | undefined>();

/** Settings that carry a credential (a header may be `Authorization`). */
const CREDENTIAL_SETTINGS = ["apiKey", "authToken", "headers"] as const;

/** The provider of a run's model resolved without a model option (a resumed session's stored model). */
const mainProviders = new WeakMap<object, string>();

/** The provider the run's credentials were given for: its model string's, the owner recorded for (or named by) its model object, or its resolved main model's. */
export function credentialOwner(options: ResolvedOptions): string | undefined {
  const main = requestedModel(options);
  if (typeof main === "string") return splitSpec(expandAlias(main, options.modelAliases))?.provider;
  // A model the program constructed names its provider itself (`groq.chat`, `anthropic.messages`).
  if (main && typeof main === "object")
    return owners.has(main) ? owners.get(main) : (main as { provider?: string }).provider?.split(".")[0];
  return mainProviders.get(options);
}

/** Record that `provider` serves the run's model under `options` (resolved with role `main`, e.g. a resumed session's). */
export function noteMainProvider(options: ResolvedOptions, provider: string): void {
  if (requestedModel(options) === undefined && !mainProviders.has(options)) mainProviders.set(options, provider);
}

/** Record that `model` was built under `options`, so a run that has it as its model (a subagent's) keeps the same owner. */
export function noteCredentialOwner(model: object, options: ResolvedOptions): void {
  if (!owners.has(model)) owners.set(model, credentialOwner(options));
}

/** The `apiKey` and `providerSettings` provider `name` is built with under `options`. */
export function credentialsFor(
  name: string,
  options: ResolvedOptions,
): { apiKey: string | undefined; providerSettings: Record<string, unknown> | undefined } {
  const settings = options.providerSettings as Record<string, unknown> | undefined;
  if (settings?.baseURL !== undefined || credentialOwner(options) === name)
    return { apiKey: options.apiKey, providerSettings: settings };
  if (!settings) return { apiKey: undefined, providerSettings: undefined };
  const rest = { ...settings };
  for (const key of CREDENTIAL_SETTINGS) delete rest[key];
  return { apiKey: undefined, providerSettings: rest };
}
