/**
 * Codex's model choice in a config.toml: `profile` (the legacy `[profiles.<name>]` table laid over
 * the top-level keys, as `codex --profile <name>` did before Codex 0.134 read `<name>.config.toml`
 * instead — ./codex reads that file first — or a top-level `profile = "<name>"` does) and
 * `model` on its `model_provider` — OpenAI (Codex's default), the built-in `ollama`/`oss` and
 * `lmstudio`, or a `[model_providers.<id>]` of the file, reached at its `base_url` with the key of
 * its `env_key`. A custom provider never gets OpenAI's key unless it says `requires_openai_auth`.
 */
import { ConfigError } from "../../src/index";
import { isRecord } from "../_kits/json/index";

/** The model a Codex file names, with the provider settings that reach it (a custom provider's URL and key). */
export interface CodexModel {
  model: string;
  providerSettings?: Record<string, unknown>;
  /** The variable whose value is sent as the key (`env_key`), for `ubiquity trust` to name. */
  keyVariable?: string;
}

/** Keys of a `[model_providers.<id>]` entry that are read; `name` is a label. */
const PROVIDER_KEYS = new Set([
  "name",
  "base_url",
  "env_key",
  "env_key_instructions",
  "wire_api",
  "http_headers",
  "env_http_headers",
  "requires_openai_auth",
  "query_params",
]);

/** LM Studio's default server, as Codex's built-in `lmstudio` provider reaches it. */
const LMSTUDIO_URL = "http://localhost:1234/v1";

/**
 * The top-level keys with the selected profile's laid over them (`profile` names it; `selected`
 * is `--profile`'s name when given). A profile named by the file's `profile` key that is not in the
 * file is reported, and the top-level keys apply alone; one `--profile` names is a `ConfigError`.
 */
export function withProfile(
  data: Record<string, unknown>,
  report: (message: string) => void,
  selected?: string,
  path?: string,
): Record<string, unknown> {
  const name = selected ?? data.profile;
  if (name === undefined) return data;
  if (typeof name !== "string" || !name) {
    report(`profile ${JSON.stringify(name)} is not a profile's name; it was ignored`);
    return data;
  }
  const profile = isRecord(data.profiles) ? data.profiles[name] : undefined;
  // Asked for by name (--profile), as codex --profile refuses it: the top-level model is not what was meant.
  if (!isRecord(profile) && selected !== undefined)
    throw new ConfigError(
      `--profile ${name}: there is no ${name}.config.toml next to this file (Codex's profile file), and it has no [profiles.${name}] table${isRecord(data.profiles) ? ` (its profiles: ${Object.keys(data.profiles).join(", ") || "none"})` : ""}`,
      path,
    );
  if (!isRecord(profile)) {
    report(`profile "${name}" is not a [profiles.${name}] table of this file; the top-level settings apply`);
    return data;
  }
  return { ...data, ...profile };
}

/** `model` on its `model_provider`; what cannot be mapped is reported and `undefined`. */
export function codexModelOf(
  data: Record<string, unknown>,
  env: Record<string, string | undefined>,
  report: (message: string) => void,
): CodexModel | undefined {
  if (data.model === undefined) return undefined;
  if (typeof data.model !== "string" || !data.model) {
    report(`model ${JSON.stringify(data.model)} is not a model name; it was ignored`);
    return undefined;
  }
  const model = data.model;
  const provider = data.model_provider ?? "openai";
  const custom = isRecord(data.model_providers) ? data.model_providers[provider as string] : undefined;
  if (provider === "openai" && custom === undefined) return { model: model.includes(":") ? model : `openai:${model}` };
  if ((provider === "ollama" || provider === "oss") && custom === undefined) return { model: `ollama:${model}` };
  if (provider === "lmstudio" && custom === undefined)
    return { model: `openai-compatible:${model}`, providerSettings: { baseURL: LMSTUDIO_URL } };
  if (!isRecord(custom)) {
    report(
      `model_provider ${JSON.stringify(provider)} is neither a built-in provider (openai, ollama, lmstudio) nor a [model_providers.${String(provider)}] table of this file: model ${JSON.stringify(model)} was ignored; define the provider with its base_url, or pass --model provider:model (or --base-url <url> --model <name>)`,
    );
    return undefined;
  }
  return customModel(String(provider), custom, model, env, report);
}

/** A `[model_providers.<id>]` entry: `wire_api = "chat"` is Chat Completions, else the Responses API. */
function customModel(
  id: string,
  entry: Record<string, unknown>,
  model: string,
  env: Record<string, string | undefined>,
  report: (message: string) => void,
): CodexModel | undefined {
  const at = `model_providers.${id}`;
  const ignored = Object.keys(entry).filter((k) => !PROVIDER_KEYS.has(k));
  if (ignored.length) report(`${at}: keys ubiquity does not read were ignored: ${ignored.join(", ")}`);
  if (typeof entry.base_url !== "string" || !/^https?:\/\//.test(entry.base_url)) {
    report(`${at} has no http(s) base_url: model ${JSON.stringify(model)} was ignored; set base_url`);
    return undefined;
  }
  const wire = entry.wire_api ?? "responses";
  if (wire !== "responses" && wire !== "chat") {
    report(
      `${at}.wire_api ${JSON.stringify(wire)} is neither "responses" nor "chat": model ${JSON.stringify(model)} was ignored`,
    );
    return undefined;
  }
  const settings: Record<string, unknown> = { baseURL: entry.base_url.replace(/\/+$/, "") };
  const headers = headersOf(entry, env);
  if (headers) settings.headers = headers;
  if (typeof entry.env_key === "string") {
    const key = env[entry.env_key];
    if (key) settings.apiKey = key;
    else
      report(
        `${at}: ${entry.env_key} (its env_key) is not set, so requests go without a key; set it in the environment${typeof entry.env_key_instructions === "string" && entry.env_key_instructions.trim() ? ` (its env_key_instructions: ${JSON.stringify(entry.env_key_instructions.trim())})` : ""}`,
      );
  }
  // Codex sends OpenAI's key only to a provider that asks for it: never hand it to another server by default.
  if (settings.apiKey === undefined && entry.requires_openai_auth !== true) settings.apiKey = "";
  if (entry.query_params !== undefined) {
    if (wire === "chat" && isRecord(entry.query_params)) settings.queryParams = entry.query_params;
    else report(`${at}.query_params is not applied on the Responses API; put them in base_url`);
  }
  return {
    model: wire === "chat" ? `openai-compatible:${model}` : `openai:${model}`,
    providerSettings: settings,
    ...(typeof entry.env_key === "string" && { keyVariable: entry.env_key }),
  };
}

/** `http_headers` and `env_http_headers` (a header per variable, skipped when unset). */
function headersOf(
  entry: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (isRecord(entry.http_headers))
    for (const [k, v] of Object.entries(entry.http_headers)) if (typeof v === "string") out[k] = v;
  if (isRecord(entry.env_http_headers))
    for (const [header, variable] of Object.entries(entry.env_http_headers)) {
      const value = typeof variable === "string" ? env[variable] : undefined;
      if (value) out[header] = value;
    }
  return Object.keys(out).length ? out : undefined;
}
