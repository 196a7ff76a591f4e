/**
 * The market price snapshot (plugins/pricing/market-prices.json) and the calculation over it
 * (plugins/pricing/market-calc.ts) give what `@pydantic/genai-prices` gives: for every model of
 * every provider pricing reaches, named every way its match logic names it, at several usages
 * (zero, small, past the tier thresholds, with cache reads and writes) and moments (each
 * conditional price's start date and time of day), the model found, its context window and the
 * prices equal the package's `calcPrice`. And the file is what the installed package gives today.
 */
import { readFileSync } from "node:fs";
import { calcPrice, findProvider, type Usage } from "@pydantic/genai-prices";
import { describe, expect, it } from "vitest";
import {
  calcMarketPrice,
  type MarketData,
  type MarketModel,
  type MatchLogic,
  type TieredPrice,
} from "../../plugins/pricing/market-calc";
import { loadMarket, marketDataPath, marketQuote, MARKET_PROVIDERS } from "../../plugins/pricing/market";
import { MARKET_PRICES_COMMAND, MARKET_PRICES_FILE, marketPrices, marketPricesText } from "../../scripts/market-prices";

const data = JSON.parse(readFileSync(MARKET_PRICES_FILE, "utf8")) as MarketData;

const USAGES: Usage[] = [
  { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  { input_tokens: 1_234, output_tokens: 567, cache_read_tokens: undefined, cache_write_tokens: undefined },
  { input_tokens: 12_000, output_tokens: 800, cache_read_tokens: 9_000, cache_write_tokens: 1_500 },
  // Past every tier threshold in the data (128k, 200k, 256k, 272k input tokens).
  { input_tokens: 400_000, output_tokens: 30_000, cache_read_tokens: 150_000, cache_write_tokens: 60_000 },
  { input_tokens: 210_000, output_tokens: 1, cache_read_tokens: 200_000, cache_write_tokens: 0 },
];

/** Every tier threshold in the data, and one token past it (a tier applies past its start, not at it). */
const TIER_STARTS = [
  ...new Set(
    JSON.stringify(data)
      .match(/"start":\d+/g)!
      .map((s) => Number(s.slice(8))),
  ),
];
const AT_TIERS: Usage[] = TIER_STARTS.flatMap((start) => [
  { input_tokens: start, output_tokens: 1_000, cache_read_tokens: 1_000, cache_write_tokens: 0 },
  { input_tokens: start + 1, output_tokens: 1_000, cache_read_tokens: 0, cache_write_tokens: 1_000 },
]);

/** Model ids the match logic names: each literal as is, and with text around it where the logic allows. */
function namesOf(logic: MatchLogic): string[] {
  if ("or" in logic) return logic.or.flatMap(namesOf);
  if ("and" in logic) {
    const parts = logic.and.flatMap(namesOf);
    return [parts.join(""), ...parts];
  }
  if ("equals" in logic) return [logic.equals, logic.equals.toUpperCase()];
  if ("starts_with" in logic) return [logic.starts_with, `${logic.starts_with}-20250101`];
  if ("ends_with" in logic) return [`x-${logic.ends_with}`];
  if ("contains" in logic) return [`x-${logic.contains}-y`];
  return [];
}

/** Moments that select each of a model's prices: its start dates and times of day, and around them. */
function momentsOf(model: MarketModel): Date[] {
  const moments = [new Date("2026-12-05T12:00:00Z")];
  if (!Array.isArray(model.prices)) return moments;
  for (const { constraint } of model.prices) {
    if (constraint?.type === "start_date") {
      const start = new Date(constraint.start_date).getTime();
      moments.push(new Date(start - 1), new Date(start));
    } else if (constraint?.type === "time_of_date") {
      for (const time of [constraint.start_time, constraint.end_time]) {
        const at = new Date(`2026-03-10T${time}`).getTime();
        moments.push(new Date(at - 1000), new Date(at), new Date(at + 60_000));
      }
    }
  }
  return moments;
}

function tiered(model: MarketModel): boolean {
  return JSON.stringify(model.prices).includes('"tiers"');
}

type Outcome = { error: string } | { model?: string; window?: number; input?: number; output?: number; total?: number };

function outcome(price: () => ReturnType<typeof calcMarketPrice> | ReturnType<typeof calcPrice>): Outcome {
  try {
    const r = price();
    return r
      ? {
          model: r.model.id,
          window: r.model.context_window,
          input: r.input_price,
          output: r.output_price,
          total: r.total_price,
        }
      : {};
  } catch (error) {
    return { error: error instanceof Error ? "throws" : String(error) };
  }
}

/** Every case where `snapshot` and the package differ (at most `limit` of them). */
function differences(snapshot: MarketData, limit = 20): string[] {
  const out: string[] = [];
  let cases = 0;
  for (const providerId of new Set(Object.values(MARKET_PROVIDERS))) {
    const provider = data.providers.find((p) => p.id === providerId)!;
    const reachable = [
      provider,
      ...(provider.fallback_model_providers ?? []).map((id) => data.providers.find((p) => p.id === id)!),
    ];
    for (const model of reachable.flatMap((p) => p.models)) {
      const names = new Set([model.id, ...namesOf(model.match)]);
      for (const name of names)
        for (const timestamp of momentsOf(model))
          for (const usage of tiered(model) ? [...USAGES, ...AT_TIERS] : USAGES) {
            cases++;
            const ours = outcome(() => calcMarketPrice(snapshot, usage, name, providerId, timestamp));
            const theirs = outcome(() => calcPrice(usage, name, { providerId, timestamp }));
            if (JSON.stringify(ours) !== JSON.stringify(theirs) && out.length < limit)
              out.push(
                `${providerId} ${name} ${timestamp.toISOString()} ${JSON.stringify(usage)}: ${JSON.stringify(ours)} != ${JSON.stringify(theirs)}`,
              );
          }
    }
  }
  expect(cases).toBeGreaterThan(10_000);
  return out;
}

describe("market prices from the snapshot", () => {
  it("equal @pydantic/genai-prices' calcPrice for every model, name, usage and moment", () => {
    expect(differences(data)).toEqual([]);
  }, 120_000);

  it("the comparison sees a changed price, a changed tier and a changed start date", () => {
    const changed = structuredClone(data);
    const anthropic = changed.providers.find((p) => p.id === "anthropic")!;
    const plain = anthropic.models.find((m) => !Array.isArray(m.prices))!;
    (plain.prices as Record<string, number>).output_mtok! *= 1.0000001;
    const dated = changed.providers.flatMap((p) => p.models).find((m) => Array.isArray(m.prices))!;
    const conditional = (dated.prices as { constraint?: { type: string; start_date?: string } }[]).find(
      (c) => c.constraint?.type === "start_date",
    )!;
    conditional.constraint!.start_date = "2020-01-01";
    const tiered = changed.providers
      .flatMap((p) => p.models)
      .find((m) => !Array.isArray(m.prices) && Object.values(m.prices).some((v) => typeof v === "object"))!;
    const tiers = Object.values(tiered.prices as Record<string, number | TieredPrice>).find(
      (v): v is TieredPrice => typeof v === "object",
    )!;
    tiers.tiers.at(-1)!.price *= 1.0000001;
    const found = differences(changed, 1000);
    const hits = (id: string) => found.some((d) => d.split(" ")[1] && d.includes(` ${id}`));
    expect(found.some((d) => d.startsWith(`anthropic ${plain.id} `))).toBe(true);
    expect(hits(dated.id)).toBe(true);
    expect(found.some((d) => d.includes('"input_tokens":400000') && hits(tiered.id))).toBe(true);
  }, 120_000);

  it("invalid usage throws as the package's does (cached input over input)", () => {
    const usage = { input_tokens: 10, output_tokens: 1, cache_read_tokens: 50 };
    expect(() => calcPrice(usage, "claude-sonnet-4-5", { providerId: "anthropic" })).toThrow();
    expect(() => calcMarketPrice(data, usage, "claude-sonnet-4-5", "anthropic")).toThrow(/exceeds input_tokens/);
  });

  it("the part of the file the runtime keeps for a provider prices its models as the whole file does", async () => {
    const usage = USAGES[3]!;
    for (const providerId of new Set(Object.values(MARKET_PROVIDERS))) {
      const part = await loadMarket(providerId);
      expect(part.providers.length).toBeLessThan(data.providers.length);
      const provider = data.providers.find((p) => p.id === providerId)!;
      const models = data.providers
        .filter((p) => p === provider || provider.fallback_model_providers?.includes(p.id))
        .flatMap((p) => p.models);
      for (const name of models.flatMap((m) => namesOf(m.match)))
        expect(calcMarketPrice(part, usage, name, providerId)).toEqual(calcMarketPrice(data, usage, name, providerId));
    }
  });

  it("marketQuote prices a run's label from the file the runtime finds", async () => {
    expect(marketDataPath()).toBe(MARKET_PRICES_FILE);
    const usage = { inputTokens: 20_000, outputTokens: 700, cacheReadTokens: 15_000, cacheWriteTokens: 2_000 };
    const expected = calcPrice(
      { input_tokens: 20_000, output_tokens: 700, cache_read_tokens: 15_000, cache_write_tokens: 2_000 },
      "claude-sonnet-4-5",
      { providerId: "anthropic" },
    )!;
    expect(await marketQuote("anthropic:claude-sonnet-4-5", usage)).toEqual({
      costUsd: expected.total_price,
      contextWindow: expected.model.context_window,
    });
    expect(await marketQuote("gateway:openai/gpt-5", usage)).toEqual({
      costUsd: calcPrice(
        { input_tokens: 20_000, output_tokens: 700, cache_read_tokens: 15_000, cache_write_tokens: 2_000 },
        "gpt-5",
        { providerId: "openai" },
      )!.total_price,
      contextWindow: findProvider({ providerId: "openai" })!.models.find((m) => m.id === "gpt-5")?.context_window,
    });
  });
});

describe("the snapshot file", () => {
  it(`is what the installed @pydantic/genai-prices gives (else run \`${MARKET_PRICES_COMMAND}\`)`, () => {
    const upToDate = readFileSync(MARKET_PRICES_FILE, "utf8") === marketPricesText();
    expect(
      upToDate,
      `plugins/pricing/market-prices.json is stale: run \`${MARKET_PRICES_COMMAND}\` and commit it`,
    ).toBe(true);
  });

  it("holds the package's licence and version, and no descriptions or extractors", () => {
    const file = marketPrices();
    expect(file.license).toMatch(/^The MIT License \(MIT\)\n\nCopyright \(c\) Pydantic Services Inc\./);
    expect(file.source).toMatch(/^@pydantic\/genai-prices@\d+\.\d+\.\d+ /);
    const text = readFileSync(MARKET_PRICES_FILE, "utf8");
    expect(text).not.toMatch(/"(description|extractors|price_comments|pricing_urls)"/);
    // A changed price is a changed file.
    const changed = structuredClone(file);
    (changed.providers[0]!.models[0]!.prices as Record<string, number>).input_mtok = 123;
    expect(marketPricesText(changed)).not.toBe(text);
  });
});
