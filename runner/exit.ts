/**
 * The runner's exit codes, which scripts can rely on: 0 success, 1 the run failed (an error
 * result), 2 a usage or configuration error (nothing ran), 130 interrupted (Ctrl-C, SIGINT),
 * 143 terminated (SIGTERM: `timeout`, a CI job cancelled), as a shell reports a process those
 * signals ended.
 */
import { UsageError } from "../loader/index";

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130, terminated: 143 } as const;

// By name: a config importing `ubiquity` gets another copy of the package, so instanceof would lie.
const CONFIGURATION_ERRORS = new Set([
  "UsageError",
  "ConfigError",
  "PluginResolutionError",
  "PluginError",
  "HookUsageError",
  "ZodError",
]);

/** The exit code for an error thrown before a run started: 2 for a usage or configuration mistake, else 1. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && CONFIGURATION_ERRORS.has(name) ? EXIT.usage : EXIT.failed;
}
