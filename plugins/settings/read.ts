/**
 * Reading settings files. Synchronous on purpose: they are read once, in `kernel.config`,
 * which is a synchronous waterfall. A missing file is simply absent; a malformed one is
 * reported (by path) to the caller, which skips it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { SettingsFileSchema, type SettingSource, type SettingsFile } from "./schema";

/** The file a source means. */
export function settingsPath(source: SettingSource, cwd: string, home: string): string {
  if (source === "user") return join(home, ".ubiquity", "settings.json");
  if (source === "project") return join(cwd, ".ubiquity", "settings.json");
  return join(cwd, ".ubiquity", "settings.local.json");
}

/** What reading one file gave. */
export type ReadResult = { ok: true; settings: SettingsFile } | { ok: false; missing: true } | { ok: false; missing: false; problem: string };

/** Read and validate one settings file. */
export function readSettingsFile(path: string): ReadResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, missing: true };
    return { ok: false, missing: false, problem: `it could not be read (${code ?? String(error)})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { ok: false, missing: false, problem: `it is not valid JSON (${(error as Error).message})` };
  }
  const parsed = SettingsFileSchema.safeParse(data);
  if (!parsed.success) return { ok: false, missing: false, problem: `it does not match the settings format:\n${z.prettifyError(parsed.error)}` };
  return { ok: true, settings: parsed.data };
}
