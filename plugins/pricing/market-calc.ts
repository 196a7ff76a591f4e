/**
 * The market price calculation over the extracted snapshot (market-prices.json, made by
 * scripts/market-prices.ts from `@pydantic/genai-prices`). It follows that package's `calcPrice`
 * step for step (test/pricing/market-oracle.test.ts holds the two equal for every model): find
 * the provider's model by its match logic (then its fallback providers', then with a
 * `-YYYYMMDD` date written `-YYYY-MM-DD`), pick the prices in force at the timestamp, and charge
 * each priced unit for its leaf count — its usage less the usage of the more specific priced
 * units (cached input is netted out of input only when cached input has a price of its own).
 */

/** How a model id is matched (ids are compared lowercased; a regex sees the lowercased id). */
export type MatchLogic =
  | { and: MatchLogic[] }
  | { or: MatchLogic[] }
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string };

/** A price that depends on the request's total input tokens: the last tier whose start is passed. */
export interface TieredPrice {
  base: number;
  /** Sorted by `start`. */
  tiers: { start: number; price: number }[];
}

/** Prices by price key (`input_mtok`, `cache_read_mtok`, `requests_kcount`, …). */
export type PriceSet = Record<string, number | TieredPrice>;

/** Prices in force from a date on, or during a time of day (UTC offsets allowed). */
export interface ConditionalPrice {
  constraint?:
    | { type: "start_date"; start_date: string }
    | { type: "time_of_date"; start_time: string; end_time: string };
  prices: PriceSet;
}

/** One model of a provider. */
export interface MarketModel {
  id: string;
  match: MatchLogic;
  context_window?: number;
  prices: PriceSet | ConditionalPrice[];
}

/** One provider: its models in match order, and where to look next. */
export interface MarketProvider {
  id: string;
  fallback_model_providers?: string[];
  models: MarketModel[];
}

/** A unit of usage: what it is (dimensions), its price key and how many units a price is for. */
export interface MarketUnit {
  dimensions: Record<string, string>;
  per: number;
  price_key: string;
}

/** The snapshot as the data file holds it. */
export interface MarketData {
  units: Record<string, MarketUnit>;
  providers: MarketProvider[];
}

/** Usage by usage key (`input_tokens`, `cache_read_tokens`, …). */
export type MarketUsage = Record<string, number | undefined>;

/** A priced usage. */
export interface MarketPrice {
  model: MarketModel;
  input_price: number;
  output_price: number;
  total_price: number;
}

interface Unit {
  usageKey: string;
  priceKey: string;
  per: number;
  dimensions: Record<string, string>;
}

/** The unit registry: lookups by usage key, price key and dimensions, and each unit's ancestors. */
class Units {
  readonly byUsage = new Map<string, Unit>();
  readonly byPrice = new Map<string, Unit>();
  private readonly byDimensions = new Map<string, Unit>();
  private readonly ancestors = new Map<string, Set<string>>();

  constructor(raw: Record<string, MarketUnit>) {
    for (const [usageKey, u] of Object.entries(raw)) {
      const unit = { usageKey, priceKey: u.price_key, per: u.per, dimensions: u.dimensions };
      this.byUsage.set(usageKey, unit);
      this.byPrice.set(unit.priceKey, unit);
      this.byDimensions.set(dimensionsKey(unit.dimensions), unit);
    }
    for (const [key, unit] of this.byUsage) {
      const above = [...this.byUsage.values()].filter((o) => o !== unit && within(o, unit)).map((o) => o.usageKey);
      this.ancestors.set(key, new Set(above));
    }
  }

  /** Whether usage reports this key (`requests` is counted, not reported). */
  reported(key: string): Unit | undefined {
    return key === "requests" ? undefined : this.byUsage.get(key);
  }

  ancestorsOf(key: string): Set<string> {
    return this.ancestors.get(key) ?? new Set();
  }

  /** The unit both `a` and `b` describe (the meet of their dimensions), when they are compatible. */
  join(a: Unit, b: Unit): Unit | undefined {
    return compatible(a, b) ? this.byDimensions.get(dimensionsKey({ ...a.dimensions, ...b.dimensions })) : undefined;
  }
}

/**
 * Code-point order where the package uses `localeCompare`: the order only makes keys canonical and
 * leaves ties between unrelated units (whose counts do not depend on each other), and the first
 * `localeCompare` in a process loads ICU's collator (~4 MB of RSS, ~10 ms).
 */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function dimensionsKey(dimensions: Record<string, string>): string {
  return JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => byCodePoint(a, b)));
}

/** Every dimension of `a` is `b`'s: `a` is `b` or an ancestor of it. */
function within(a: Unit, b: Unit): boolean {
  return Object.entries(a.dimensions).every(([k, v]) => b.dimensions[k] === v);
}

function compatible(a: Unit, b: Unit): boolean {
  return Object.entries(a.dimensions).every(([k, v]) => b.dimensions[k] === undefined || b.dimensions[k] === v);
}

const unitsOf = new WeakMap<MarketData, Units>();

/** Whether `logic` matches `id` (already lowercased). */
export function matches(logic: MatchLogic, id: string): boolean {
  if ("or" in logic) return logic.or.some((l) => matches(l, id));
  if ("and" in logic) return logic.and.every((l) => matches(l, id));
  if ("equals" in logic) return id === logic.equals.toLowerCase();
  if ("starts_with" in logic) return id.startsWith(logic.starts_with.toLowerCase());
  if ("ends_with" in logic) return id.endsWith(logic.ends_with.toLowerCase());
  if ("contains" in logic) return id.includes(logic.contains.toLowerCase());
  if ("regex" in logic) return new RegExp(logic.regex).test(id);
  return false;
}

function modelOf(provider: MarketProvider, id: string, all?: MarketProvider[]): MarketModel | undefined {
  const own = provider.models.find((m) => matches(m.match, id));
  if (own || !all) return own;
  for (const fallback of provider.fallback_model_providers ?? []) {
    const other = all.find((p) => p.id === fallback);
    const found = other && modelOf(other, id);
    if (found) return found;
  }
  return undefined;
}

const DATED = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

/** `-20250514` written `-2025-05-14` when it is a real date (price tables name dated models both ways). */
function withDashedDates(id: string): string {
  return id.replace(DATED, (whole, dash: string, y: string, m: string, d: string) => {
    const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
    const real =
      date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
    return real ? `${dash}${y}-${m}-${d}` : whole;
  });
}

/** The model `modelId` names at `providerId` (or a provider it falls back to). */
export function findMarketModel(data: MarketData, providerId: string, modelId: string): MarketModel | undefined {
  const provider = data.providers.find((p) => p.id === providerId.toLowerCase().trim());
  if (!provider) return undefined;
  const id = modelId.toLowerCase().trim();
  const found = modelOf(provider, id, data.providers);
  if (found) return found;
  const dashed = withDashedDates(id);
  return dashed === id ? undefined : modelOf(provider, dashed, data.providers);
}

/** Seconds since UTC midnight of a `HH:MM:SS[.fff](Z|±HH:MM)` time. */
function secondsOfDay(time: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) throw new Error(`Invalid time-of-day constraint: ${time}`);
  const [, h, min, s, fraction = "", zone, sign, oh = "00", om = "00"] = m;
  if (Number(h) > 23 || Number(min) > 59 || Number(s) > 59 || oh > "23" || om > "59")
    throw new Error(`Invalid time-of-day constraint: ${time}`);
  const local = Number(h) * 3600 + Number(min) * 60 + Number(s) + +`0.${fraction}`;
  const offset = (Number(oh) * 60 + Number(om)) * 60;
  return (local - (zone === "Z" ? 0 : sign === "+" ? offset : -offset) + 86400) % 86400;
}

/** The prices in force at `at`: the last conditional price whose constraint holds, else the first. */
export function pricesAt(model: MarketModel, at: Date): PriceSet {
  if (!Array.isArray(model.prices)) return model.prices;
  if (Number.isNaN(at.getTime())) throw new RangeError("Invalid time value");
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const { constraint, prices } = model.prices[i]!;
    if (constraint === undefined) return prices;
    if (constraint.type === "start_date") {
      if (at >= new Date(constraint.start_date)) return prices;
      continue;
    }
    const now = at.getUTCHours() * 3600 + at.getUTCMinutes() * 60 + at.getUTCSeconds() + at.getUTCMilliseconds() / 1e3;
    const start = secondsOfDay(constraint.start_time);
    const end = secondsOfDay(constraint.end_time);
    if (end < start ? now >= start || now < end : now >= start && now < end) return prices;
  }
  return model.prices[0]!.prices;
}

function usageNumber(key: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw new Error(`Invalid usage value for ${key}: expected a finite non-negative number`);
  return value;
}

/** The usage of `key`: reported, or 0 when nothing more specific that was reported says otherwise. */
function usageOf(units: Units, usage: MarketUsage, key: string): number {
  const unit = units.reported(key);
  if (!unit) throw new Error(`Unsupported usage key for standard pricing: ${key}`);
  const value = usageNumber(key, usage[key]);
  if (value !== undefined) return value;
  const positive: Unit[] = [];
  for (const [k, v] of Object.entries(usage)) {
    const u = units.reported(k);
    if (!u || (usageNumber(k, v) ?? 0) <= 0) continue;
    if (k !== key && units.ancestorsOf(u.usageKey).has(key))
      throw new Error(`Missing usage value for ${key} with positive reported descendant ${k}`);
    positive.push(u);
  }
  for (let i = 0; i < positive.length; i++)
    for (let j = i + 1; j < positive.length; j++) {
      const [a, b] = [positive[i]!, positive[j]!];
      const related = units.ancestorsOf(b.usageKey).has(a.usageKey) || units.ancestorsOf(a.usageKey).has(b.usageKey);
      if (compatible(a, b) && !related && units.join(a, b) === unit)
        throw new Error(
          `Missing usage value for ${key} with positive reported overlap ${a.usageKey} and ${b.usageKey}`,
        );
    }
  return 0;
}

/** Each priced unit's own count: its usage less the counts of the more specific priced units. */
function leafCounts(units: Units, keys: Set<string>, usage: MarketUsage): Record<string, number> {
  const priced = [...keys]
    .map((k) => units.byUsage.get(k))
    .filter((u): u is Unit => u !== undefined)
    .sort(
      (a, b) =>
        Object.keys(b.dimensions).length - Object.keys(a.dimensions).length || byCodePoint(a.usageKey, b.usageKey),
    );
  const leaves: Record<string, number> = {};
  for (const unit of priced) {
    const total = usageOf(units, usage, unit.usageKey);
    let inner = 0;
    for (const other of priced) if (other !== unit && within(unit, other)) inner += leaves[other.usageKey]!;
    let leaf = total - inner;
    const slack = Number.EPSILON * Math.max(1, Math.abs(total), Math.abs(inner)) * (priced.length + 1);
    if (leaf < 0 && Math.abs(leaf) <= slack) leaf = 0;
    if (leaf < 0)
      throw new Error(
        `Invalid usage data: more-specific usage totals ${inner}, which exceeds ${unit.usageKey} (${total})`,
      );
    leaves[unit.usageKey] = leaf;
  }
  return leaves;
}

function costOfUnit(price: number | TieredPrice, count: number, inputTokens: number, per: number): number {
  if (typeof price === "number") return (price * count) / per;
  if (count <= 0) return 0;
  let rate = price.base;
  for (const tier of price.tiers) if (inputTokens > tier.start) rate = tier.price;
  return (((rate * count) / 1e6) * 1e6) / per;
}

/** Price `usage` at `prices` (price keys this version does not know are skipped, as the package does). */
export function priceUsage(data: MarketData, usage: MarketUsage, prices: PriceSet) {
  let units = unitsOf.get(data);
  if (!units) unitsOf.set(data, (units = new Units(data.units)));
  const charged: { price: number | TieredPrice; unit: Unit }[] = [];
  for (const [key, price] of Object.entries(prices)) {
    const unit = price === undefined ? undefined : units.byPrice.get(key);
    if (unit) charged.push({ price, unit });
  }
  const inputTokens = charged.some((c) => typeof c.price === "object") ? usageOf(units, usage, "input_tokens") : 0;
  const keys = new Set(charged.filter((c) => c.unit.usageKey !== "requests").map((c) => c.unit.usageKey));
  const counts = leafCounts(units, keys, usage);
  if (charged.some((c) => c.unit.usageKey === "requests")) counts.requests = 1;
  let input = 0;
  let output = 0;
  let other = 0;
  for (const { price, unit } of charged) {
    const cost = costOfUnit(price, counts[unit.usageKey] ?? 0, inputTokens, unit.per);
    if (unit.dimensions.direction === "input") input += cost;
    else if (unit.dimensions.direction === "output") output += cost;
    else other += cost;
  }
  return { input_price: input, output_price: output, total_price: input + output + other };
}

/** Price `usage` of `modelId` at `providerId` at `timestamp`; null when the snapshot does not know the model. */
export function calcMarketPrice(
  data: MarketData,
  usage: MarketUsage,
  modelId: string,
  providerId: string,
  timestamp: Date = new Date(),
): MarketPrice | null {
  const model = findMarketModel(data, providerId, modelId);
  if (!model) return null;
  return { model, ...priceUsage(data, usage, pricesAt(model, timestamp)) };
}
