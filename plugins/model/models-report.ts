/**
 * What `ubiquity models` prints: every built-in provider, the package behind it, whether that
 * package is installed, and the environment variables it reads (marked when set — values are
 * never printed); and the model options' `run` flags.
 */
import type { PluginCommand, RunFlag } from "../../loader/index";
import { installHint, isInstalled } from "./load-provider";
import { PROVIDERS, type ProviderSpec } from "./providers";

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
  const width = (f: (r: ModelProviderRow) => string, title: string) => Math.max(title.length, ...rows.map((r) => f(r).length));
  const w1 = width((r) => r.provider, "provider");
  const w2 = width((r) => r.package, "package");
  const status = (r: ModelProviderRow) => (r.installed ? "installed" : `missing: ${r.install}`);
  const w3 = width(status, "status");
  const kind = (r: ModelProviderRow) => (r.bundled ? "dependency" : "optional peer");
  const w4 = width(kind, "kind");
  const lines = [`${"provider".padEnd(w1)}  ${"package".padEnd(w2)}  ${"kind".padEnd(w4)}  ${"status".padEnd(w3)}  credentials (* = set)`];
  for (const r of rows) {
    const env = r.env.map((e) => `${e.name}${e.set ? "*" : ""}`).join(", ") || "-";
    lines.push(`${r.provider.padEnd(w1)}  ${r.package.padEnd(w2)}  ${kind(r).padEnd(w4)}  ${status(r).padEnd(w3)}  ${env}`);
  }
  lines.push("", 'Model strings are "provider:model", e.g. "anthropic:claude-sonnet-4-5"; openaiCompatible(model, { baseURL }) reaches any other OpenAI-compatible server.');
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

/** `run --model`, `--fallback-model`. */
export const modelFlags: Record<string, RunFlag> = {
  model: { type: "string", value: "<model>", group: "Model", claude: "--model", description: '"provider:model", an alias, or "test" (the offline model)', apply: (o, v) => void (o.model = String(v)) },
  "fallback-model": { type: "string", value: "<model>", group: "Model", claude: "--fallback-model", description: "The model to fall back to when the main one fails", apply: (o, v) => void (o.fallbackModel = String(v)) },
};
