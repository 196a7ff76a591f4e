/**
 * What `ubiquity inspect` shows: the resolved plugin list with origins, each hook's taps in
 * run order, registry winners and losers, and the options — secrets redacted, because this
 * output ends up in bug reports and CI logs.
 */
import type { Kernel } from "../src/kernel";
import type { RegistryEntry } from "../src/registry";
import { secretsOf } from "../src/redact";
import { fieldsOf } from "../src/plugin";
import { redactValue } from "../plugins/_kits/redaction/index";

/** One plugin of the resolved list. */
export interface InspectedPlugin {
  name: string;
  /** `config`, `preset <name>`, or a preset chain (`preset a > b`). */
  origin: string;
  /** Origins of same-name plugins this one replaced in place (their `apply` never ran). */
  replaced: string[];
}

/** One tap, in run order. */
export interface InspectedTap {
  plugin: string;
  /** The tap's own name when it differs from the plugin's. */
  tap?: string;
  stage: number;
  /** `first`/`last`: the tap runs before (after) every staged tap of its hook, whatever its stage. */
  order?: "first" | "last";
  type: string;
}

/** One registry name: who won, and whom it replaced (oldest first). */
export interface InspectedRegistration {
  name: string;
  winner: string;
  losers: string[];
}

/** The whole `inspect` report (also the `--json` output). */
export interface InspectReport {
  configFile: string | null;
  /** A config found but not loaded: its folder is not trusted. */
  skippedConfig?: string;
  plugins: InspectedPlugin[];
  disabled: InspectedPlugin[];
  /** Every hook, in catalogue order; hooks nobody tapped have an empty list. */
  hooks: Record<string, InspectedTap[]>;
  registries: { tools: InspectedRegistration[]; providers: InspectedRegistration[] };
  /** The option keys each plugin of the list declares (its `options` slice), in list order; plugins declaring none are left out. */
  pluginOptions: Record<string, string[]>;
  options: Record<string, unknown>;
}

/** Build the report of a kernel (no hook runs: `kernel.ready` is not called). */
export function inspectKernel(kernel: Kernel, configFile: string | null, skippedConfig?: string): InspectReport {
  const plugin = (p: Kernel["plugins"][number]): InspectedPlugin => ({
    name: p.plugin.name,
    origin: p.origin,
    replaced: p.replaced.map((r) => r.origin),
  });
  const hooks: Record<string, InspectedTap[]> = {};
  for (const [hook, taps] of Object.entries(kernel.taps())) {
    hooks[hook] = taps.map((t) => ({
      plugin: t.plugin,
      ...(t.name !== t.plugin ? { tap: t.name } : {}),
      stage: t.stage,
      ...(t.order ? { order: t.order } : {}),
      type: t.type,
    }));
  }
  const registry = (entries: { name: string; winner: RegistryEntry<unknown>; losers: RegistryEntry<unknown>[] }[]) =>
    entries.map((e) => ({ name: e.name, winner: e.winner.owner, losers: e.losers.map((l) => l.owner) }));
  return {
    configFile,
    ...(skippedConfig ? { skippedConfig } : {}),
    plugins: kernel.plugins.map(plugin),
    disabled: kernel.disabled.map(plugin),
    hooks,
    registries: {
      tools: registry(kernel.registries.tools.provenance()),
      providers: registry(kernel.registries.providers.provenance()),
    },
    pluginOptions: Object.fromEntries(
      kernel.plugins
        .map((p) => [p.plugin.name, Object.keys(fieldsOf(p.plugin.options))] as const)
        .filter(([, keys]) => keys.length > 0),
    ),
    options: printableOptions(kernel.options),
  };
}

/**
 * Options as JSON-safe values with secrets masked: `apiKey`, and inside nested settings any
 * key that looks like a secret. Top-level counters such as `maxTokens` stay visible.
 */
export function printableOptions(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const secrets = secretsOf(options);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === "logger" || value === undefined) continue;
    out[key] = key === "apiKey" ? "[redacted]" : redactValue(printable(value), secrets);
  }
  return out;
}

/** Functions, models, signals and tools have no JSON form; describe them instead. */
function printable(value: unknown): unknown {
  if (typeof value === "function") return `[function ${value.name || "anonymous"}]`;
  if (Array.isArray(value)) return value.map(printable);
  if (value === null || typeof value !== "object") return value;
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto === Object.prototype || proto === null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printable(v)]));
  }
  const model = value as { provider?: unknown; modelId?: unknown; name?: unknown };
  if (typeof model.modelId === "string") return `[model ${String(model.provider ?? "?")}:${model.modelId}]`;
  if (typeof model.name === "string") return `[${value.constructor?.name ?? "object"} ${model.name}]`;
  return `[${value.constructor?.name ?? "object"}]`;
}

/** The report as text for a terminal. */
export function formatInspect(report: InspectReport): string {
  const lines: string[] = [];
  const width = Math.max(8, ...report.plugins.map((p) => p.name.length), ...report.disabled.map((p) => p.name.length));
  const none = report.skippedConfig
    ? `${report.skippedConfig} not loaded: this folder is not trusted (the default preset applies)`
    : "(none found; the default preset applies)";
  lines.push(`config: ${report.configFile ?? none}`, "");

  lines.push("plugins (apply order; a same-name plugin replaces in place):");
  report.plugins.forEach((p, i) => {
    const replaced = p.replaced.length ? `  (replaces the one from ${p.replaced.join(", ")}; its apply never ran)` : "";
    lines.push(`  ${String(i + 1).padStart(2)}. ${p.name.padEnd(width)}  ${p.origin}${replaced}`);
  });
  if (report.plugins.length === 0) lines.push("  (none)");
  if (report.disabled.length) {
    lines.push("", "disabled:");
    for (const p of report.disabled) lines.push(`   - ${p.name.padEnd(width)}  ${p.origin}`);
  }

  lines.push("", "hooks (taps in run order: first, then by stage, then last; plugin order within each):");
  const idle: string[] = [];
  for (const [hook, taps] of Object.entries(report.hooks)) {
    if (taps.length === 0) {
      idle.push(hook);
      continue;
    }
    lines.push(`  ${hook}`);
    for (const t of taps)
      lines.push(
        `    ${(t.order ?? String(t.stage)).padStart(5)}  ${t.plugin}${t.tap ? ` (tap ${t.tap})` : ""}${t.type === "sync" ? "" : ` [${t.type}]`}`,
      );
  }
  if (idle.length) lines.push(`  no taps: ${idle.join(", ")}`);

  lines.push("", "registries (last registration wins):");
  for (const [kind, entries] of Object.entries(report.registries)) {
    lines.push(`  ${kind}`);
    if (entries.length === 0) lines.push("    (none)");
    for (const e of entries) {
      const losers = e.losers.length ? `  (overrides ${e.losers.join(", ")})` : "";
      lines.push(`    ${e.name}: ${e.winner}${losers}`);
    }
  }

  lines.push("", "options declared by plugins (each plugin's config keys):");
  const declared = Object.entries(report.pluginOptions);
  if (declared.length === 0) lines.push("  (none)");
  for (const [plugin, keys] of declared) lines.push(`  ${plugin}: ${keys.join(", ")}`);

  lines.push("", "options:");
  const entries = Object.entries(report.options);
  if (entries.length === 0) lines.push("  (none)");
  for (const [key, value] of entries) lines.push(`  ${key}: ${JSON.stringify(value)}`);
  return `${lines.join("\n")}\n`;
}
