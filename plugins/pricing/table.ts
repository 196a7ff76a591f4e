/**
 * Price tables: patterns matched as substrings of `provider:model` labels ignoring case, longest pattern first,
 * so `gpt-5-mini` is priced apart from `gpt-5` without the general entry shadowing the specific
 * one. `registerPricing()` and `registerContextWindow()` declare entries for every run in the process.
 */
import type { ModelPricing } from "./options";

const registeredPrices = new Map<string, ModelPricing>();
const registeredWindows = new Map<string, number>();

/** The entry of `table` whose pattern is the longest substring of `label`, ignoring case. */
export function matchPattern<T>(
  label: string,
  table: Readonly<Record<string, T>> | ReadonlyMap<string, T> | undefined,
): { pattern: string; value: T } | undefined {
  if (!table) return undefined;
  const entries = table instanceof Map ? [...table.entries()] : Object.entries(table as Record<string, T>);
  // Case-insensitive, as in the original: `Claude-Opus` prices `claude-opus-4`.
  const name = label.toLowerCase();
  let best: { pattern: string; value: T } | undefined;
  for (const [pattern, value] of entries) {
    if (pattern && name.includes(pattern.toLowerCase()) && (!best || pattern.length > best.pattern.length))
      best = { pattern, value };
  }
  return best;
}

// Patterns ignore case, so a later registration of `Claude-Opus` replaces `claude-opus`.
function forgetOtherCase(registry: Map<string, unknown>, pattern: string): void {
  for (const key of registry.keys()) if (key.toLowerCase() === pattern.toLowerCase()) registry.delete(key);
}

function checkPricing(pattern: string, pricing: ModelPricing): ModelPricing {
  for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    const v = pricing?.[key];
    if ((key === "input" || key === "output" || v !== undefined) && (typeof v !== "number" || !(v >= 0))) {
      throw new TypeError(
        `registerPricing("${pattern}"): ${key} must be a non-negative number of USD per million tokens`,
      );
    }
  }
  return { ...pricing };
}

/** Price models whose label contains `pattern`, in every run (a run's `modelPricing` entry wins whole). */
export function registerPricing(pattern: string, pricing: ModelPricing): void;
/** Register several patterns at once. */
export function registerPricing(table: Record<string, ModelPricing>): void;
export function registerPricing(a: string | Record<string, ModelPricing>, b?: ModelPricing): void {
  const table = typeof a === "string" ? { [a]: b as ModelPricing } : a;
  if (typeof table !== "object" || table === null)
    throw new TypeError("registerPricing(pattern, pricing) or registerPricing({ pattern: pricing })");
  for (const [pattern, pricing] of Object.entries(table)) {
    if (!pattern) throw new TypeError("registerPricing: the pattern must be a non-empty substring of model names");
    const checked = checkPricing(pattern, pricing);
    forgetOtherCase(registeredPrices, pattern);
    registeredPrices.set(pattern, checked);
  }
}

/** Declare the context window of models whose label contains `pattern` (for compaction). */
export function registerContextWindow(pattern: string, tokens: number): void {
  if (!pattern)
    throw new TypeError(
      "registerContextWindow(pattern, tokens): the pattern must be a non-empty substring of model names",
    );
  if (!Number.isInteger(tokens) || tokens <= 0)
    throw new TypeError(`registerContextWindow("${pattern}", tokens): tokens must be a positive integer`);
  forgetOtherCase(registeredWindows, pattern);
  registeredWindows.set(pattern, tokens);
}

/** The process-wide price registry (read-only view). */
export function registeredPricing(): ReadonlyMap<string, ModelPricing> {
  return registeredPrices;
}

/** The process-wide context-window registry (read-only view). */
export function registeredContextWindows(): ReadonlyMap<string, number> {
  return registeredWindows;
}

/** Forget every registered price and window (for tests). */
export function clearRegisteredPricing(): void {
  registeredPrices.clear();
  registeredWindows.clear();
}
