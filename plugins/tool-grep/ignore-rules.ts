/**
 * Gitignore-style rules, as ripgrep applies them: to `.gitignore`/`.ignore`/`.rgignore` files
 * and to `--glob` overrides. The last matching rule of a list decides.
 */
import { micromatch } from "../_kits/lazy/index";
import { globMatchingCost, ToolFailure } from "../_kits/file-tools/index";

/** One compiled line of an ignore file (or one glob). */
export interface IgnoreRule {
  /** Written with a leading `!`. */
  negated: boolean;
  /** Written with a trailing `/`: matches folders only. */
  dirOnly: boolean;
  /** Tests a path relative to the rule's base folder ("/"-separated). */
  test: (relativePath: string) => boolean;
}

/**
 * Compile one gitignore line. No slash: it matches the name at any depth; a slash anywhere but
 * at the end anchors it to the base folder. `braces` enables `{a,b}` (globs have it, ignore
 * files do not).
 */
export function compileRule(line: string, braces = false): IgnoreRule | undefined {
  let p = line.replace(/\r$/, "");
  if (p === "" || p.startsWith("#")) return undefined;
  p = p.replace(/(?<!\\)\s+$/, "");
  let negated = false;
  if (p.startsWith("!")) {
    negated = true;
    p = p.slice(1);
  } else if (p.startsWith("\\!") || p.startsWith("\\#")) {
    p = p.slice(1);
  }
  let dirOnly = false;
  if (p.endsWith("/")) {
    dirOnly = true;
    p = p.slice(0, -1);
  }
  if (p === "") return undefined;
  const anchored = p.includes("/");
  if (p.startsWith("/")) p = p.slice(1);
  const glob = anchored ? p : `**/${p}`;
  // micromatch's regex backtracks: a line whose cost has no small bound is refused, not matched
  // for minutes with the event loop held (red team p, P3; Glob's own bound, red team o).
  const cost = globMatchingCost(glob);
  if (cost) throw new ToolFailure(`The pattern ${line.trim()} is too costly to match (${cost})`);
  const test = micromatch().matcher(glob, { dot: true, nobrace: !braces, noextglob: true });
  return { negated, dirOnly, test };
}

/** Compile an ignore file's text (`file` names it in a refusal). */
export function parseIgnoreFile(text: string, file = "an ignore file"): IgnoreRule[] {
  try {
    return text.split("\n").flatMap((line) => compileRule(line) ?? []);
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    throw new ToolFailure(
      `${error.message} in ${file}, which Grep applies without ripgrep; search with Bash (rg, grep -r) instead.`,
    );
  }
}

/** The last rule matching `relativePath`: "ignore", "whitelist" (a `!` rule), or undefined. */
export function matchRules(
  rules: readonly IgnoreRule[],
  relativePath: string,
  isDir: boolean,
): "ignore" | "whitelist" | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.dirOnly && !isDir) continue;
    if (rule.test(relativePath)) return rule.negated ? "whitelist" : "ignore";
  }
  return undefined;
}
