/**
 * Reading settings files. Synchronous on purpose: they are read once, in `kernel.config`,
 * which is a synchronous waterfall. A missing file is simply absent; one that exists but cannot
 * be used (not a regular file, too large, bad JSON, wrong shape) is a `ConfigError` naming the
 * file and the fix — never skipped, since skipping it would silently drop its deny rules.
 */
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../src/index";
import { didYouMean } from "../../src/index";
import { describeJsonError, readRegularFileSync } from "../../loader/index";
import { PermissionsSettingsSchema, SettingsFileSchema, type SettingSource, type SettingsFile } from "./schema";

/** Settings files larger than this are refused (they are a few hundred bytes in practice). */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The file a source means. */
export function settingsPath(source: SettingSource, cwd: string, home: string): string {
  if (source === "user") return join(home, ".ubiquity", "settings.json");
  if (source === "project") return join(cwd, ".ubiquity", "settings.json");
  return join(cwd, ".ubiquity", "settings.local.json");
}

/** Read a JSON file that configures the run: `undefined` when absent, a `ConfigError` when unusable. */
export function readJsonConfigFile(path: string, what: string): unknown {
  const read = readRegularFileSync(path, MAX_SETTINGS_BYTES);
  if (!read.ok) {
    if (read.missing) return undefined;
    throw new ConfigError(
      `the ${what} cannot be used: ${read.problem}; replace it with a JSON file or remove it`,
      path,
    );
  }
  try {
    return JSON.parse(read.text) as unknown;
  } catch (error) {
    throw new ConfigError(
      `the ${what} is not valid JSON: ${describeJsonError(error, read.text)}; fix it or remove it`,
      path,
    );
  }
}

/**
 * The keys of a settings file nothing reads — a typo (`permisions`, `denny`) or another tool's key
 * (`statusLine`) — each with the key it most likely meant. Kept as they are, as Claude Code keeps
 * them; said once, since a misspelt `deny` would otherwise leave its rules silently unapplied.
 */
export function unreadSettingsKeys(data: unknown): string[] {
  if (typeof data !== "object" || data === null) return [];
  const top = Object.keys(SettingsFileSchema.shape);
  const unread = Object.keys(data).flatMap((k) =>
    top.includes(k) || k === "$schema" ? [] : [`"${k}"${didYouMean(k, top)}`],
  );
  const permissions = (data as { permissions?: unknown }).permissions;
  if (typeof permissions !== "object" || permissions === null) return unread;
  const known = Object.keys(PermissionsSettingsSchema.shape);
  for (const k of Object.keys(permissions))
    if (!known.includes(k)) unread.push(`"permissions.${k}"${didYouMean(k, known)}`);
  return unread;
}

/** Read and validate one settings file (`undefined` when it does not exist); `warn` hears of keys nothing reads. */
export function readSettingsFile(path: string, warn?: (message: string) => void): SettingsFile | undefined {
  const data = readJsonConfigFile(path, "settings file");
  if (data === undefined) return undefined;
  const unread = unreadSettingsKeys(data);
  if (unread.length && warn)
    warn(`${path}: ignored ${unread.join(", ")}: not settings ubiquity reads (docs/guide/permissions.md lists them)`);
  const parsed = SettingsFileSchema.safeParse(data);
  if (!parsed.success)
    throw new ConfigError(
      `the settings file does not match the settings format; fix it or remove it:\n${z.prettifyError(parsed.error)}`,
      path,
    );
  return parsed.data;
}
