/**
 * Generates plugins/pricing/market-prices.json: what the pricing plugin needs of
 * `@pydantic/genai-prices` (a devDependency) for the providers in MARKET_PROVIDERS and the ones
 * they fall back to — each model's match logic, prices (tiered and conditional ones included)
 * and context window, and the unit table the calculation nets usage with. Descriptions, names,
 * comments and usage extractors are left out. Loading the package itself compiles 831 KB of
 * object literals and holds ~14 MB of RSS for the rest of the process (issue 40); parsing this
 * file costs a fraction of that.
 *
 * `npm run prices` rewrites the file; test/pricing/market-data.test.ts fails when the file differs
 * from what the installed package gives (after a dependency bump, run the command).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { calcPrice, findProvider, type ModelInfo, type Provider } from "@pydantic/genai-prices";
import type { MarketData, MarketModel, MarketProvider, MarketUnit, PriceSet } from "../plugins/pricing/market-calc";
import { MARKET_PROVIDERS } from "../plugins/pricing/market";

/** The generated file (in the source tree; the build copies it to dist/vendor/genai-prices/prices.json). */
export const MARKET_PRICES_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "plugins",
  "pricing",
  "market-prices.json",
);

/** The command that regenerates the file. */
export const MARKET_PRICES_COMMAND = "npm run prices";

const require = createRequire(import.meta.url);
const PACKAGE = "@pydantic/genai-prices";

/** The file's contents: the licence and source of the data first, then the data. */
export interface MarketFile extends MarketData {
  about: string;
  source: string;
  license: string;
}

/** Tiers sorted by start (the package sorts them when it prices). */
function compactPrices(prices: ModelInfo["prices"] extends infer P ? Exclude<P, unknown[]> : never): PriceSet {
  const out: PriceSet = {};
  for (const [key, value] of Object.entries(prices)) {
    if (value === undefined) continue;
    out[key] =
      typeof value === "number"
        ? value
        : {
            base: value.base,
            tiers: [...value.tiers].sort((a, b) => a.start - b.start).map((t) => ({ start: t.start, price: t.price })),
          };
  }
  return out;
}

function compactModel(providerId: string, model: ModelInfo): MarketModel {
  const out: MarketModel = { id: model.id, match: model.match, prices: {} };
  if (model.context_window !== undefined) out.context_window = model.context_window;
  if (!Array.isArray(model.prices)) {
    out.prices = compactPrices(model.prices);
    return out;
  }
  out.prices = model.prices.map((c) => {
    const type = c.constraint?.type;
    if (c.constraint && type !== "start_date" && type !== "time_of_date")
      throw new Error(`${providerId}/${model.id}: a price constraint of unknown type ${JSON.stringify(c.constraint)}`);
    return c.constraint
      ? { constraint: { ...c.constraint }, prices: compactPrices(c.prices) }
      : { prices: compactPrices(c.prices) };
  }) as MarketModel["prices"];
  return out;
}

/** The providers pricing can reach, in the package's order of lookup (MARKET_PROVIDERS', then their fallbacks). */
function reachableProviders(): Provider[] {
  const found: Provider[] = [];
  const queue = [...new Set(Object.values(MARKET_PROVIDERS))];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (found.some((p) => p.id === id)) continue;
    const provider = findProvider({ providerId: id });
    // The lookup by id must find the provider of that id: the runtime looks providers up by id only.
    if (provider?.id !== id) throw new Error(`${PACKAGE} has no provider "${id}" (MARKET_PROVIDERS names it)`);
    found.push(provider);
    queue.push(...(provider.fallback_model_providers ?? []));
  }
  return found;
}

/** Every price set must be one the package prices without error (the runtime does not repeat its checks). */
function checkPricesValid(provider: Provider, model: ModelInfo): void {
  const moments = Array.isArray(model.prices) ? model.prices.map((c) => momentOf(c.constraint)) : [new Date()];
  for (const timestamp of moments) {
    try {
      // A provider of this one model, matched by a name it cannot miss.
      const alone = {
        ...provider,
        fallback_model_providers: undefined,
        models: [{ ...model, match: { equals: "x" } }],
      };
      if (!calcPrice({ input_tokens: 0, output_tokens: 0 }, "x", { provider: alone, timestamp }))
        throw new Error("unpriced");
    } catch (error) {
      throw new Error(`${provider.id}/${model.id}: ${PACKAGE} refuses its prices (${String(error)})`);
    }
  }
}

function momentOf(constraint: { type?: string; start_date?: string; start_time?: string } | undefined): Date {
  if (constraint?.start_date) return new Date(constraint.start_date);
  if (constraint?.start_time) return new Date(`2026-01-01T${constraint.start_time}`);
  return new Date(0);
}

/** What the installed package gives, as the file holds it. */
export function marketPrices(): MarketFile {
  // The package exports only its module (dist/index.cjs for require): its folder is above that.
  const root = dirname(dirname(require.resolve(PACKAGE)));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  const license = readFileSync(join(root, "LICENSE"), "utf8");
  const dist = readFileSync(join(root, "dist", "index.js"), "utf8");
  const providers: MarketProvider[] = reachableProviders().map((provider) => {
    const out: MarketProvider = { id: provider.id, models: [] };
    if (provider.fallback_model_providers) out.fallback_model_providers = [...provider.fallback_model_providers];
    for (const model of provider.models) {
      checkPricesValid(provider, model);
      out.models.push(compactModel(provider.id, model));
    }
    return out;
  });
  return {
    about: `Generated by scripts/market-prices.ts (${MARKET_PRICES_COMMAND}) from ${PACKAGE}; do not edit.`,
    source: `${PACKAGE}@${pkg.version} (https://github.com/pydantic/genai-prices), MIT License`,
    license,
    units: unitsOf(dist),
    providers,
  };
}

/**
 * The unit table. The package does not export it, so it is read out of its module: the
 * `J = {...}` literal of usage keys, each with dimensions, `per` and `price_key`.
 */
function unitsOf(dist: string): Record<string, MarketUnit> {
  const start = dist.indexOf("], J = {");
  const end = dist.indexOf("\n};\n", start);
  if (start < 0 || end < 0) throw new Error(`cannot find the unit table in ${PACKAGE}'s module: update unitsOf()`);
  const literal = dist.slice(start + "], J = ".length, end + 2);
  const units = new Function(`return (${literal});`)() as Record<string, MarketUnit>;
  for (const [key, unit] of Object.entries(units))
    if (typeof unit.per !== "number" || typeof unit.dimensions !== "object")
      throw new Error(`unit ${key} of ${PACKAGE} has an unexpected shape: update unitsOf()`);
  return Object.fromEntries(
    Object.entries(units).map(([key, u]) => [
      key,
      { dimensions: u.dimensions, per: u.per, price_key: u.price_key ?? key },
    ]),
  );
}

/** The file's text: a model per line, so a price change shows as a one-line diff. */
export function marketPricesText(file: MarketFile = marketPrices()): string {
  const { providers, ...head } = file;
  const lines = Object.entries(head).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`);
  const blocks = providers.map((p) => {
    const { models, ...rest } = p;
    const open = JSON.stringify({ ...rest, models: [] }).slice(0, -2);
    return `${open}\n${models.map((m) => JSON.stringify(m)).join(",\n")}\n]}`;
  });
  return `{\n${lines.join("\n")}\n"providers":[\n${blocks.join(",\n")}\n]}\n`;
}

if (process.argv[1]?.endsWith("market-prices.ts")) {
  const text = marketPricesText();
  writeFileSync(MARKET_PRICES_FILE, text);
  console.log(`wrote ${MARKET_PRICES_FILE} (${(text.length / 1024).toFixed(0)} KB)`);
}
