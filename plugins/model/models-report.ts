/**
 * What `ubiquity models` prints: every built-in provider, the package behind it, whether that
 * package is installed, and the environment variables it reads (marked when set — values are
 * never printed); and the model options' `run` flags.
 */
import type { PluginCommand, RunFlag } from "../../loader/index";
import { installHint, isInstalled } from "./load-provider";
import { PROVIDERS, type ProviderSpec } from "./providers";
import { UsageError } from "../../loader/index";
import { openaiCompatible } from "./openai-compatible";

/** One provider as `ubiquity models` lists it. */
export interface ModelProviderRow {
  provider: string;
  package: string;
  installed: boolean;
  /** Installed with ubiquity (a dependency) rather than an optional peer. */
  bundled: boolean;
  /** `npm i <package>@<major>` for an optional peer. */
  install: string;
  env: { name: string; set: boolean }[];
}

/** The built-in providers with install and credential status. */
export function listModelProviders(env: NodeJS.ProcessEnv = process.env): ModelProviderRow[] {
  return (Object.entries(PROVIDERS) as [string, ProviderSpec][]).map(([provider, spec]) => ({
    provider,
    package: spec.package,
    installed: isInstalled(spec.package),
    bundled: spec.bundled === true,
    install: installHint(spec),
    env: spec.env.map((name) => ({ name, set: Boolean(env[name]?.trim()) })),
  }));
}

/** The rows as a terminal table. */
export function formatModelProviders(rows: ModelProviderRow[]): string {
  const width = (f: (r: ModelProviderRow) => string, title: string) =>
    Math.max(title.length, ...rows.map((r) => f(r).length));
  const w1 = width((r) => r.provider, "provider");
  const w2 = width((r) => r.package, "package");
  const status = (r: ModelProviderRow) => (r.installed ? "installed" : `missing: ${r.install}`);
  const w3 = width(status, "status");
  const kind = (r: ModelProviderRow) => (r.bundled ? "dependency" : "optional peer");
  const w4 = width(kind, "kind");
  const lines = [
    `${"provider".padEnd(w1)}  ${"package".padEnd(w2)}  ${"kind".padEnd(w4)}  ${"status".padEnd(w3)}  credentials (* = set)`,
  ];
  for (const r of rows) {
    const env = r.env.map((e) => `${e.name}${e.set ? "*" : ""}`).join(", ") || "-";
    lines.push(
      `${r.provider.padEnd(w1)}  ${r.package.padEnd(w2)}  ${kind(r).padEnd(w4)}  ${status(r).padEnd(w3)}  ${env}`,
    );
  }
  lines.push(
    "",
    'Model strings are "provider:model", e.g. "anthropic:claude-sonnet-4-5"; openaiCompatible(model, { baseURL }) reaches any other OpenAI-compatible server.',
  );
  return `${lines.join("\n")}\n`;
}

/** `ubiquity models`. */
export const modelCommands: Record<string, PluginCommand> = {
  models: {
    summary: "List the model providers: package, whether it is installed, credential variables",
    flags: { json: { type: "boolean", description: "Print the list as JSON" } },
    async run({ values }, io) {
      const rows = listModelProviders();
      io.stdout(values.json ? `${JSON.stringify(rows, null, 2)}\n` : formatModelProviders(rows));
      return 0;
    },
  },
};

const COMPATIBLE_PREFIX = "openai-compatible:";

/**
 * `--base-url <url> --model <name>`: the model `name` of an OpenAI-compatible server (vLLM, LM
 * Studio, Ollama, llama.cpp) — all of `name` is the server's model id (`qwen2.5-coder:7b` keeps its
 * colon), with an optional `openai-compatible:` in front. The key comes from OPENAI_COMPATIBLE_API_KEY.
 */
function compatibleModel(o: Record<string, unknown>, url: string, values: Record<string, unknown> | undefined): void {
  const named = typeof values?.model === "string" ? values.model : undefined;
  if (!named)
    throw new UsageError(
      `--base-url needs --model: the model's name on that server (e.g. --base-url ${url} --model qwen2.5-coder:7b)`,
    );
  const id = named.startsWith(COMPATIBLE_PREFIX) ? named.slice(COMPATIBLE_PREFIX.length) : named;
  const apiKey = process.env.OPENAI_COMPATIBLE_API_KEY?.trim() || undefined;
  try {
    o.model = openaiCompatible(id, { baseURL: url, ...(apiKey ? { apiKey } : {}) });
  } catch (error) {
    throw new UsageError(
      `--base-url ${JSON.stringify(url)}: ${(error as Error).message.replace(/^openaiCompatible\(model, settings\): settings\.baseURL/, "it")}`,
    );
  }
}

/** `run --model`, `--base-url`, `--fallback-model`. */
export const modelFlags: Record<string, RunFlag> = {
  model: {
    type: "string",
    value: "<model>",
    group: "Model",
    claude: "--model",
    description: '"provider:model", an alias, or "test" (the offline model)',
    apply: (o, v) => void (o.model = String(v)),
  },
  "base-url": {
    type: "string",
    value: "<url>",
    group: "Model",
    description:
      "An OpenAI-compatible server's API root (vLLM, LM Studio, Ollama: http://localhost:8000/v1); --model names the model on it; key from OPENAI_COMPATIBLE_API_KEY",
    apply: (o, v, values) => compatibleModel(o, String(v), values),
  },
  "fallback-model": {
    type: "string",
    value: "<model>",
    group: "Model",
    claude: "--fallback-model",
    description: "The model to fall back to when the main one fails",
    apply: (o, v, values) => {
      // As claude refuses it: a fallback that is the main model falls back to nothing.
      const main = typeof values?.model === "string" ? values.model : o.model;
      if (String(v) === main)
        throw new UsageError(
          `--fallback-model ${String(v)} is the main model (--model or the config's model): name another, or leave the flag out`,
        );
      o.fallbackModel = String(v);
    },
  },
};
