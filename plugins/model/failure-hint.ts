/**
 * A failed model call whose message names the fix: a refused key names the provider's key
 * variables, a server nobody answers at says so. Written into the error once no tap recovered
 * the call, so the run's result (and the runner's error line) carries it.
 */
import { contextOverflow } from "../_kits/compaction/index";
import { PROVIDERS } from "./providers";

type CallError = Error & { statusCode?: number; url?: string; cause?: { code?: string; cause?: { code?: string } } };

/**
 * A 400 saying the model (or its server) takes no tool definitions, as Ollama ("… does not support
 * tools"), vLLM ("auto" tool choice requires --enable-auto-tool-choice …), llama.cpp ("tools param
 * requires --jinja flag") and OpenRouter ("No endpoints found that support tool use") word it.
 */
const NO_TOOLS =
  /does not support tools|support tool use|tool choice requires|tools? param(?:eter)? requires|tool(?:s| calls?| calling| use) (?:is |are )?not supported/i;
const NO_TOOLS_FIX =
  "the model or its server takes no tools, and every request of the agent offers them: serve a model with tool calling " +
  "(Ollama: a model tagged tools; vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; llama.cpp: --jinja), " +
  'or run it without tools (availableTools: [], or --tools "" with ubiquity run)';

/** A request longer than the model's window, refused even after compaction (or with none to do). */
function overflowFix(window: number | undefined): string {
  const size = window ? ` (${window} tokens)` : "";
  const set = window ? `maxContextTokens: ${window} (or UBIQUITY_MAX_CONTEXT_TOKENS=${window})` : "maxContextTokens";
  return (
    `the request is longer than the model's context window${size} and compaction could not shorten it enough: ` +
    "start the server with a longer context (vLLM --max-model-len, llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH, LM Studio's context length), " +
    `set ${set} so the history is compacted in time, or offer fewer tools (--tools, availableTools)`
  );
}

/** Network failures that mean nothing answered at the address (a server not started, a wrong port). */
const UNREACHED = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ECONNRESET"]);
/** The address's name did not resolve (no network, a wrong host). */
const UNRESOLVED = new Set(["ENOTFOUND", "EAI_AGAIN"]);

/**
 * The fix for `error`, a failed call of the model labelled `label` (`provider:model`), if one is
 * known. `configuredKey`: the run's `providerSettings` give the key, so the provider's own
 * variable was not read (a Codex `model_provider`'s key comes so, from its `env_key`).
 */
export function failureHint(error: unknown, label: string, configuredKey = false): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as CallError;
  const provider = label.split(/[:.]/)[0] ?? "";
  const spec = (PROVIDERS as Record<string, { env: readonly string[] } | undefined>)[provider];
  const keys = spec?.env.filter((name) => /KEY|TOKEN|CREDENTIALS/.test(name)) ?? [];
  const where = configuredKey
    ? "the key the configuration gives it (providerSettings.apiKey; for a Codex model_provider, the variable its env_key names)"
    : `${keys.length ? keys.join(", ") : "the provider's key variable"} or the apiKey option`;
  if (e.statusCode === 401) return `the provider refused the credentials: check ${where}`;
  if (e.statusCode === 403) return `the provider refused access: check ${where}, and that the key may use this model`;
  if (e.statusCode === 404) return unversionedBase(e.url, spec?.env);
  if (e.statusCode === 400 && NO_TOOLS.test(e.message)) return NO_TOOLS_FIX;
  const overflow = contextOverflow(e);
  if (overflow) return overflowFix(overflow.window);
  const code = e.cause?.code ?? e.cause?.cause?.code;
  if (e.statusCode !== undefined || !code || !(UNREACHED.has(code) || UNRESOLVED.has(code))) return undefined;
  let origin = "the provider's address";
  try {
    if (e.url) origin = new URL(e.url).origin;
  } catch {
    // Not a URL: say it generally.
  }
  if (UNRESOLVED.has(code)) return `${origin} could not be looked up: check the network and the base URL`;
  const start = provider === "ollama" ? " (ollama serve)" : "";
  return `nothing answered at ${origin}: check that the server is running${start} and the base URL is right`;
}

/** The endpoints the AI SDK's providers append to their base URL. */
const ENDPOINTS = /\/(messages|responses|chat\/completions|completions|embeddings)$/;

/**
 * A 404 from an endpoint under a base URL without its API version: the AI SDK appends the endpoint
 * to the base URL as given, where Claude Code adds `/v1` to ANTHROPIC_BASE_URL itself, so a
 * gateway's `http://host:4000` (Claude Code's, LiteLLM's) was asked for `/messages` and answered
 * "Not Found".
 */
function unversionedBase(url: string | undefined, env: readonly string[] = []): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url ?? "");
  } catch {
    return undefined;
  }
  const endpoint = ENDPOINTS.exec(parsed.pathname);
  if (!endpoint) return undefined;
  const base = `${parsed.origin}${parsed.pathname.slice(0, endpoint.index)}`;
  if (/\/v\d[\w.-]*$/.test(base)) return undefined;
  const variable = env.find((name) => name.endsWith("_BASE_URL"));
  const flag = variable === "OPENAI_COMPATIBLE_BASE_URL" ? ", --base-url" : "";
  const set = variable
    ? `${variable}=${base}/v1 (or providerSettings.baseURL${flag})`
    : `providerSettings.baseURL to ${base}/v1`;
  const claude =
    variable === "ANTHROPIC_BASE_URL"
      ? " (Claude Code adds /v1 to ANTHROPIC_BASE_URL itself; the AI SDK does not)"
      : "";
  return `the request went to ${parsed.origin}${parsed.pathname}: the base URL must end in the API version${claude}; set ${set}`;
}

/** Add the fix to a failed call's message, once. */
export function addFailureHint(error: unknown, label: string, configuredKey = false): void {
  const hint = failureHint(error, label, configuredKey);
  if (hint && error instanceof Error && !error.message.includes(hint)) error.message = `${error.message} (${hint})`;
}
