import { micromatch } from "../_kits/lazy/index";

const REGEX_ONLY = /\.\*|\.\+|\\|[()^$[\]]/;

/**
 * Does `matcher` select `toolName`? Absent, empty or `*` matches everything (and is the only
 * matcher for events without a tool). Otherwise `A|B`, each exact or a glob (`mcp__github__*`);
 * a part written as a regular expression (`Notebook.*`, as Claude Code settings allow) is tried
 * as an anchored regex.
 */
export function matches(matcher: string | undefined, toolName: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (toolName === undefined) return false;
  for (const raw of matcher.split("|")) {
    const part = raw.trim();
    if (!part) continue;
    if (part === toolName) return true;
    if (micromatch().isMatch(toolName, part)) return true;
    if (REGEX_ONLY.test(part)) {
      try {
        if (new RegExp(`^(?:${part})$`).test(toolName)) return true;
      } catch {
        // not a valid regex either: it simply does not match
      }
    }
  }
  return false;
}
