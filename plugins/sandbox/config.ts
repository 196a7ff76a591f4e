/**
 * The `sandbox` option, normalised: `true` or an object (Claude Code's field names) becomes
 * one settled shape with every default applied, so the rest of the plugin never asks
 * "was this set?".
 */
import { homedir } from "node:os";
import { absolutePath, type ResolvedOptions } from "../../src/index";
import type { SandboxOption } from "./options";

/** The network policy: nothing, everything, or the listed hosts through the filtering proxy. */
export type NetworkPolicy = { mode: "none" } | { mode: "all" } | { mode: "proxy"; allowedDomains: string[]; deniedDomains: string[] };

/** The sandbox settings of one kernel, defaults applied. */
export interface SandboxSettings {
  enabled: boolean;
  failIfUnavailable: boolean;
  autoAllowBash: boolean;
  excludedCommands: string[];
  /** Writable folders: cwd, additionalDirectories, allowWrite (absolute). */
  writable: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
  network: NetworkPolicy;
  cwd: string;
  home: string;
}

/** Normalise `options.sandbox` (undefined or false: disabled). */
export function sandboxSettings(options: ResolvedOptions, home = process.env.HOME || homedir()): SandboxSettings {
  const raw = options.sandbox as SandboxOption | undefined;
  const object = typeof raw === "object" ? raw : {};
  const enabled = raw === true || (typeof raw === "object" && raw.enabled !== false);
  const cwd = options.cwd;
  const abs = (p: string) => absolutePath(cwd, p, home);
  const fs = object.filesystem ?? {};
  const net = object.network;
  let network: NetworkPolicy = { mode: "none" };
  if (net === "all") network = { mode: "all" };
  else if (typeof net === "object" && (net.allowedDomains?.length ?? 0) > 0) {
    network = { mode: "proxy", allowedDomains: net.allowedDomains ?? [], deniedDomains: net.deniedDomains ?? [] };
  }
  return {
    enabled,
    failIfUnavailable: object.failIfUnavailable !== false,
    autoAllowBash: (object.autoAllowBash ?? object.autoAllowBashIfSandboxed) !== false,
    excludedCommands: object.excludedCommands ?? [],
    writable: [...new Set([cwd, ...(options.additionalDirectories ?? []).map(abs), ...(fs.allowWrite ?? []).map(abs)])],
    denyWrite: (fs.denyWrite ?? []).map(abs),
    denyRead: (fs.denyRead ?? []).map(abs),
    allowRead: (fs.allowRead ?? []).map(abs),
    network,
    cwd,
    home,
  };
}

/**
 * Is `command` one of `excludedCommands`? An entry names a command and its leading words
 * (`docker`, `git push`); `:*` or ` *` at the end is accepted and means the same.
 */
export function isExcluded(command: string, excluded: readonly string[]): boolean {
  const text = command.trim();
  return excluded.some((entry) => {
    const head = entry.trim().replace(/(:\*| \*)$/, "").trim();
    return head !== "" && (text === head || text.startsWith(`${head} `) || text.startsWith(`${head}\t`));
  });
}
