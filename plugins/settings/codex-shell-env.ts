/**
 * Codex's `[shell_environment_policy]`: how Codex builds the environment of the commands it runs
 * (codex-rs `ShellEnvironmentPolicy`: start from `inherit`, drop the default `*KEY*`, `*SECRET*`,
 * `*TOKEN*` names and `exclude`, insert `set`, then keep only `include_only` when it is given).
 * ubiquity's commands start from its own allow-list (locale, terminal, PATH, HOME, temp, TLS and
 * proxy settings), never the whole environment, so of the policy only `set` adds anything: its
 * variables become the `env` the run's commands get, as a Claude Code settings file's `env` does
 * (kossnocorp/dotfiles sets `AGENT` and `GIT_CONFIG_GLOBAL` so, and its commands ran without them).
 */
import { isRecord, isStrings } from "../_kits/json/index";

/** The keys that choose what is taken from the environment: ubiquity's allow-list decides that. */
const FILTERS = ["inherit", "ignore_default_excludes", "exclude", "filters", "experimental_use_profile"];

// Codex matches variable names with a glob, case-insensitively (EnvironmentVariablePattern).
const globOf = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "i",
  );

/** The variables a policy table sets (`set`, kept by `include_only` as Codex keeps them), or undefined; what is not applied is reported. */
export function shellEnvironmentOf(
  policy: unknown,
  report: (message: string) => void,
): Record<string, string> | undefined {
  if (!isRecord(policy)) {
    report("shell_environment_policy is not a table; it was ignored");
    return undefined;
  }
  const unread = Object.keys(policy).filter((k) => FILTERS.includes(k));
  if (unread.length)
    report(
      `[shell_environment_policy] ${unread.join(", ")} not applied: ubiquity's commands get only its allow-list of variables (locale, terminal, PATH, HOME, temp, TLS and proxy settings) and the env you give, never the whole environment; its set applies`,
    );
  const other = Object.keys(policy).filter((k) => !FILTERS.includes(k) && k !== "set" && k !== "include_only");
  if (other.length)
    report(`[shell_environment_policy] ${other.join(", ")}: not a key Codex or ubiquity reads; ignored`);
  if (Array.isArray(policy.include_only) && policy.include_only.length)
    report(
      "[shell_environment_policy] include_only is applied to set alone: the allow-list of variables ubiquity's commands get is not narrowed by it",
    );
  const set = policy.set;
  if (set === undefined) return undefined;
  if (!isRecord(set) || !Object.values(set).every((v) => typeof v === "string")) {
    report("[shell_environment_policy] set is not a table of strings; it was ignored");
    return undefined;
  }
  const only = policy.include_only;
  if (only !== undefined && !isStrings(only)) {
    report("[shell_environment_policy] include_only is not a list of names; set was ignored with it");
    return undefined;
  }
  const keep = only?.length ? only.map(globOf) : undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(set as Record<string, string>))
    if (!keep || keep.some((re) => re.test(name))) out[name] = value;
  return Object.keys(out).length ? out : undefined;
}
