/**
 * The permissions plugin's extension point, per kernel: other plugins (settings files, a
 * policy server) add rules here. Added rules are unioned with the options' rules — a rule from
 * elsewhere is a restriction the caller did not write, so the caller's lists must not drop it —
 * and they never limit which tools are offered (only `allowedTools` itself does).
 */
import type { Kernel } from "../../src/index";
import { parseRules, type Rule } from "./rules";
import type { RuleLists } from "./policy";

export { parseRule, parseRules, type Rule, type RuleList } from "./rules";

/** What other plugins can do with the permission engine of a kernel. */
export interface PermissionsApi {
  /** Add rules from another source; a malformed rule throws a ConfigError naming it and `source`. */
  addRules(lists: RuleLists, source: string): void;
  /** Every rule added through `addRules`, in order. */
  readonly addedRules: readonly Rule[];
  /** Bumped on every `addRules`, so compiled policies know when to recompile. */
  readonly version: number;
}

const apis = new WeakMap<Kernel, PermissionsApi>();

/** The permissions API of `kernel` (created on first use, so plugin order does not matter). */
export function getPermissionsApi(kernel: Kernel): PermissionsApi {
  let api = apis.get(kernel);
  if (!api) {
    const added: Rule[] = [];
    let version = 0;
    api = {
      addRules(lists, source) {
        const parsed = [
          ...parseRules(lists.allow, "allow", source),
          ...parseRules(lists.deny, "deny", source),
          ...parseRules(lists.ask, "ask", source),
        ];
        added.push(...parsed);
        version++;
      },
      get addedRules() {
        return added;
      },
      get version() {
        return version;
      },
    };
    apis.set(kernel, api);
  }
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
