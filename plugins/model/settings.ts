/**
 * Provider settings: `providerSettings` goes to the factory verbatim, `apiKey` rides along, and a
 * key the named provider does not accept is a TypeError — a credential silently dropped comes
 * back later as an authentication error that names nothing.
 */
import { didYouMean, ModelError, noteSecret } from "../../src/index";
import { providerSpec, type ProviderSpec } from "./providers";

/** Throw a TypeError naming the first `providerSettings` key that `provider` does not accept. */
export function checkProviderSettings(
  provider: string,
  settings: Readonly<Record<string, unknown>> | undefined,
  spec?: ProviderSpec,
): void {
  const known = spec ?? providerSpec(provider);
  if (!known || !settings) return;
  for (const key of Object.keys(settings)) {
    if (!known.settings.includes(key)) {
      throw new TypeError(
        `providerSettings.${key} is not a setting of provider "${provider}" (${known.package})${didYouMean(key, known.settings)}; it accepts ${known.settings.join(", ")}. ` +
          `Remove ${key}, or pass a constructed LanguageModel for a run whose models span providers`,
      );
    }
  }
}

/** What a provider factory is called with. */
export interface FactorySettings {
  [key: string]: unknown;
  fetch?: typeof globalThis.fetch;
}

/**
 * The settings for one provider factory: `providerSettings` (checked), then `apiKey` where the
 * settings name none, then the defaults an openai-compatible entry needs (name, base URL, key).
 */
export function factorySettings(
  provider: string,
  spec: ProviderSpec,
  options: { apiKey?: string; providerSettings?: Record<string, unknown> },
  env: NodeJS.ProcessEnv = process.env,
): FactorySettings {
  checkProviderSettings(provider, options.providerSettings, spec);
  const out: FactorySettings = { ...(options.providerSettings ?? {}) };
  if (options.apiKey !== undefined && out.apiKey === undefined) out.apiKey = options.apiKey;
  // Claude Code sends ANTHROPIC_AUTH_TOKEN as a bearer token (what an LLM gateway takes); the AI
  // SDK reads no such variable, so a switcher's gateway set-up ended "API key is missing".
  const bearer = spec.bearerEnv && env[spec.bearerEnv]?.trim();
  const keyed =
    out.apiKey !== undefined ||
    out.authToken !== undefined ||
    spec.env.some((name) => name.endsWith("_API_KEY") && env[name]?.trim());
  if (bearer && !keyed) out.authToken = bearer;
  // Claude Code adds ANTHROPIC_CUSTOM_HEADERS to every request (a gateway's routing or auth
  // header); the AI SDK reads no such variable, so the requests went out without them in silence.
  const headers = spec.headersEnv ? headerLines(spec.headersEnv, env[spec.headersEnv]) : undefined;
  if (headers) out.headers = { ...headers, ...(out.headers as Record<string, string> | undefined) };
  if (spec.compatible) {
    out.name = provider;
    out.baseURL ??= (spec.compatible.baseURLEnv && env[spec.compatible.baseURLEnv]?.trim()) || spec.compatible.baseURL;
    if (!out.baseURL) {
      throw new ModelError(
        `provider "${provider}" needs the server's URL: set ${spec.compatible.baseURLEnv ?? "providerSettings.baseURL"} (e.g. http://localhost:8000/v1), ` +
          `pass --base-url with ubiquity run, or set providerSettings.baseURL`,
      );
    }
    if (out.apiKey === undefined && spec.compatible.apiKeyEnv) out.apiKey = env[spec.compatible.apiKeyEnv];
    // openai-compatible only streams usage when asked to; cost and the result's usage need it.
    out.includeUsage ??= true;
  }
  return out;
}

/**
 * The headers of a `Name: Value`-per-line variable (Claude Code's format). A line that is not one
 * stops the run naming the variable and the line's number, never its text (a header may carry a
 * key): a header left out in silence is a gateway's refusal that names nothing.
 */
function headerLines(variable: string, value: string | undefined): Record<string, string> | undefined {
  if (!value?.trim()) return undefined;
  const out: Record<string, string> = {};
  for (const [i, raw] of value.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new ModelError(
        `${variable} line ${i + 1} is not a header: write one "Name: Value" per line, or unset ${variable}`,
      );
    out[name] = line.slice(colon + 1).trim();
    // A gateway's header often carries its key: masked wherever a run writes, as an MCP server's headers are.
    noteSecret(out[name]);
  }
  return out;
}
