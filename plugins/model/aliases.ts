/**
 * Model aliases: code names a role (`fast`, `big`) instead of a provider. Three sources, most
 * specific first: the run's `modelAliases`, then `registerAlias()`, then
 * `UBIQUITY_MODEL_ALIASES="fast=groq:llama-3.3-70b-versatile,big=openai:gpt-5"`.
 */

import { readOption } from "../_kits/authoring/index";
import { modelOptions } from "./options";

const registered = new Map<string, string>();

/** The most hops an alias chain may take; deeper chains stop where they are. */
export const MAX_ALIAS_HOPS = 10;

/** Map `name` to a model string (or another alias) for every run in this process. */
export function registerAlias(name: string, target: string): void {
  if (typeof name !== "string" || !name.trim())
    throw new TypeError("registerAlias(name, target): name must be a non-empty string");
  if (typeof target !== "string" || !target.trim())
    throw new TypeError(`registerAlias("${name}", target): target must be a non-empty model string`);
  registered.set(name.trim(), target.trim());
}

/** Remove every `registerAlias()` entry (for tests). */
export function clearAliases(): void {
  registered.clear();
}

/** Parse `UBIQUITY_MODEL_ALIASES`; entries without a name, an `=` or a target are ignored. */
export function parseAliasList(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of (value ?? "").split(",")) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const name = entry.slice(0, eq).trim();
    const target = entry.slice(eq + 1).trim();
    if (name && target) out.set(name, target);
  }
  return out;
}

/**
 * Expand `spec` through the aliases, transitively: up to MAX_ALIAS_HOPS, and a cycle stops at
 * the first name seen twice (the chain resolves to where it stood, which then fails to resolve
 * with an error naming it, rather than spinning).
 */
export function expandAlias(
  spec: string,
  runAliases: Readonly<Record<string, string>> | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const fromEnv = parseAliasList(env.UBIQUITY_MODEL_ALIASES);
  const lookup = (name: string): string | undefined =>
    (runAliases && Object.hasOwn(runAliases, name) ? runAliases[name] : undefined) ??
    registered.get(name) ??
    fromEnv.get(name);
  const seen = new Set<string>([spec]);
  let current = spec;
  for (let hop = 0; hop < MAX_ALIAS_HOPS; hop++) {
    const next = lookup(current);
    if (next === undefined || seen.has(next)) break;
    seen.add(next);
    current = next;
  }
  return current;
}

/** Claude Code's model tiers, as its agent, hook and command files name them (`model: sonnet`). */
export const CLAUDE_MODEL_TIERS: ReadonlySet<string> = new Set(["sonnet", "opus", "haiku"]);

/**
 * A model name only Claude Code knows: a tier (`sonnet`), a tier with Claude Code's context
 * suffix (`sonnet[1m]`), `opusplan`, or a Claude model id without a provider
 * (`claude-sonnet-4-5-20250929`, which Claude Code's own files write; ours write
 * `anthropic:claude-…`).
 */
export function isClaudeCodeModelName(model: string): boolean {
  const name = model.replace(/\[1m\]$/i, "");
  return CLAUDE_MODEL_TIERS.has(name) || name === "opusplan" || /^claude-[a-z0-9.-]+$/i.test(name);
}

/**
 * The model a Claude Code file's `model` field asks for, or undefined for the run's own:
 * `inherit`, and a Claude Code model name (a tier like `sonnet`, or a Claude model id without a
 * provider like `claude-sonnet-4-6`) that no alias maps — `modelAliases`, `registerAlias()` or
 * `UBIQUITY_MODEL_ALIASES` (`sonnet=anthropic:claude-sonnet-4-5`) — so a file written for Claude
 * Code runs on any model.
 */
export function fileModel(
  model: string | undefined,
  modelAliases: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (model === undefined || model === "inherit") return undefined;
  if (isClaudeCodeModelName(model) && expandAlias(model, modelAliases) === model) return undefined;
  return model;
}

/** A run's `modelAliases` (this plugin's option), for the plugins that read model names from files. */
export function modelAliasesOf(options: object): Readonly<Record<string, string>> | undefined {
  return readOption(modelOptions, options, "modelAliases");
}
