/**
 * Managed (organisation) policy files, Claude Code's `managed-settings.json`: written by an
 * administrator in a system folder, read by every run whatever `settingSources`, `compat` and
 * trust say, and above everything a user types (options, flags, `--settings`, every settings
 * file). Ubiquity's own file is read in our format, Claude Code's in its own, each with the `.json`
 * files of the `managed-settings.d` folder beside it (in name order, after it). Fail closed twice
 * over: a key of our own file that nothing reads, and a Claude Code policy key that only a managed
 * file sets and that ubiquity does not enforce (`allowManagedHooksOnly`, …), stop every run naming
 * the file — a policy the administrator believes in must never be silently absent.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/index";
import { z } from "zod";
import { readJsonConfigFile, unreadSettingsKeys } from "./read";
import { claudeSettingsOf } from "./claude";
import { SettingsFileSchema, type SettingsFile } from "./schema";
import { isRecord } from "../_kits/json/index";

/** A managed policy file: where it is, and whose format it is in. */
export interface ManagedPlace {
  path: string;
  format: "ubiquity" | "claude";
}

/** The system's managed policy files for `platform`: Ubiquity's own, then Claude Code's. */
export function systemManagedFiles(platform: NodeJS.Platform = process.platform): ManagedPlace[] {
  const [ours, claude] =
    platform === "darwin"
      ? ["/Library/Application Support/Ubiquity", "/Library/Application Support/ClaudeCode"]
      : platform === "win32"
        ? ["C:\\ProgramData\\Ubiquity", "C:\\ProgramData\\ClaudeCode"]
        : ["/etc/ubiquity", "/etc/claude-code"];
  return [
    { path: join(ours, "managed-settings.json"), format: "ubiquity" },
    { path: join(claude, "managed-settings.json"), format: "claude" },
  ];
}

/**
 * Claude Code's policy keys that only a managed file sets and that ubiquity does not enforce (yet):
 * each narrows what the other files may do, so a run without it would be looser than the policy says.
 */
const UNENFORCED = [
  "allowManagedPermissionRulesOnly",
  "allowManagedHooksOnly",
  "allowManagedMcpServersOnly",
  "allowedMcpServers",
  "deniedMcpServers",
  "strictKnownMarketplaces",
  "blockedMarketplaces",
  "forceLoginMethod",
  "forceLoginOrgUUID",
  "sandbox.network.allowManagedDomainsOnly",
  "sandbox.filesystem.allowManagedReadPathsOnly",
];

/** The unenforced policy keys `data` sets (a `false` restricts nothing and is let be). */
function unenforcedKeys(data: Record<string, unknown>): string[] {
  return UNENFORCED.filter((key) => {
    let value: unknown = data;
    for (const part of key.split(".")) value = isRecord(value) ? value[part] : undefined;
    return value !== undefined && value !== false;
  });
}

/**
 * A managed path that is not there, though a symbolic link is (to nothing: a target deleted or
 * moved): the administrator put a policy there, so it is not "no policy" — every run stops naming
 * it (red team zm, ZM5: the link's target removed, the policy was silently absent).
 */
function danglingLink(path: string): ConfigError | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  return new ConfigError(
    "the managed policy is a symbolic link to nothing (its target is gone): its policy would be missing, so every run stops; restore the target or remove the link",
    path,
  );
}

/** The file, then the `.json` files of `managed-settings.d` beside it (Claude Code's drop-in folder), in name order. */
function withDropIns(place: ManagedPlace): ManagedPlace[] {
  const folder = join(place.path, "..", "managed-settings.d");
  let names: string[] = [];
  try {
    names = readdirSync(folder)
      .filter((n) => n.endsWith(".json") && !n.startsWith("."))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const dangling = danglingLink(folder);
    if (dangling) throw dangling;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      throw new ConfigError(
        `the managed policy folder cannot be read (${code ?? String(error)}): its policy would be missing; fix its permissions`,
        folder,
      );
  }
  return [place, ...names.map((n) => ({ path: join(folder, n), format: place.format }))];
}

/**
 * Read every managed policy file that exists, lowest precedence first. `report` hears of the Claude
 * Code keys ubiquity does not apply and that restrict nothing (`companyAnnouncements`, …).
 */
export function readManagedFiles(
  places: readonly ManagedPlace[],
  report: (message: string) => void,
  cwd: string,
  home: string,
): { path: string; settings: SettingsFile }[] {
  const out: { path: string; settings: SettingsFile }[] = [];
  for (const place of places.flatMap(withDropIns)) {
    const data = readJsonConfigFile(place.path, "managed policy file");
    if (data === undefined) {
      const dangling = danglingLink(place.path);
      if (dangling) throw dangling;
      continue;
    }
    if (!isRecord(data))
      throw new ConfigError(
        "the managed policy file is not a JSON object; fix it (every run stops until then)",
        place.path,
      );
    const unenforced = unenforcedKeys(data);
    if (unenforced.length)
      throw new ConfigError(
        `the managed policy sets ${unenforced.map((k) => `"${k}"`).join(", ")}, which ubiquity does not enforce: every run stops rather than run looser than the policy says. Remove the key (and express it with deny rules, the sandbox and hooks, which ubiquity enforces), or keep ubiquity off this machine`,
        place.path,
      );
    if (place.format === "claude") {
      out.push({ path: place.path, settings: claudeSettingsOf(data, place.path, report, cwd, home) });
      continue;
    }
    // Our own format: a key nothing reads is a policy nobody applies (a typo of `permissions`, of `deny`).
    const unread = unreadSettingsKeys(data);
    if (unread.length)
      throw new ConfigError(
        `the managed policy has ${unread.join(", ")}, which ubiquity does not read: every run stops until the key is fixed or removed (docs/security.md, "Managed policy", lists the keys)`,
        place.path,
      );
    const parsed = SettingsFileSchema.safeParse(data);
    if (!parsed.success)
      throw new ConfigError(
        `the managed policy file does not match the settings format; fix it (every run stops until then):\n${z.prettifyError(parsed.error)}`,
        place.path,
      );
    out.push({ path: place.path, settings: parsed.data });
  }
  return out;
}
