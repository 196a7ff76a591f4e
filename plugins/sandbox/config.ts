/**
 * The `sandbox` option, normalised: `true` or an object (Claude Code's field names) becomes
 * one settled shape with every default applied, so the rest of the plugin never asks
 * "was this set?".
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { absolutePath } from "../../src/index";
import { TrustPins } from "../../loader/index";
import type { SandboxResolvedOptions } from "./options";

/** The network policy: nothing, everything, or the listed hosts through the filtering proxy. */
export type NetworkPolicy =
  | { mode: "none" }
  | { mode: "all" }
  | { mode: "proxy"; allowedDomains: string[]; deniedDomains: string[] };

/** The sandbox settings of one kernel, defaults applied. */
export interface SandboxSettings {
  enabled: boolean;
  /**
   * How the run came to its setting: `default` (no `sandbox` option: on where it works, else a
   * warning), `explicit` (the option was given), `required` (UBIQUITY_REQUIRE_SANDBOX=1).
   */
  origin: "default" | "explicit" | "required";
  failIfUnavailable: boolean;
  autoAllowBash: boolean;
  excludedCommands: string[];
  /** Writable folders: cwd, additionalDirectories, allowWrite (absolute). */
  writable: string[];
  /**
   * Folders given as additionalDirectories or allowWrite that every user writes and the sticky
   * bit guards (/tmp, /var/tmp, /dev/shm): left out of `writable` (sandboxed commands keep their
   * private /tmp), as the workspace guard would take any other program's new files there for the
   * sandbox's own and move them out (compat survey zc); the plugin names them in a warning.
   */
  sharedScratch: string[];
  denyWrite: string[];
  /** The paths of Edit and Write deny and ask rules (red team q: Q2, Q7); set by the plugin. */
  writeRules?: string[];
  /**
   * What the folder's trust pins (real paths of files and folders: a skill folder, the config, a
   * memory file): read-only inside the writable folders, as the permission engine asks about a
   * write there (red team l, L4).
   */
  trustPinned?: string[];
  denyRead: string[];
  allowRead: string[];
  network: NetworkPolicy;
  /**
   * The network of stdio MCP servers: the `network` setting when it is given, else all — a
   * server the user configured needs its own network (an API, `npx -y` fetching the package).
   */
  mcpNetwork: NetworkPolicy;
  /**
   * Unix sockets in sandboxed processes: `blocked` (the default: none can be made, so no host
   * socket they can see is reachable) or `allowed` (network.allowAllUnixSockets).
   */
  unixSockets: "blocked" | "allowed";
  /** network.allowUnixSockets, which cannot be honoured path by path: reported, and blocked with the rest. */
  unixSocketPaths: string[];
  cwd: string;
  home: string;
}

/** `UBIQUITY_REQUIRE_SANDBOX=1`: a run that cannot be sandboxed must not start. */
export function sandboxRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.UBIQUITY_REQUIRE_SANDBOX ?? "").trim().toLowerCase();
  return value !== "" && value !== "0" && value !== "false" && value !== "no";
}

/**
 * Normalise `options.sandbox`. Unset means on (where the machine can sandbox; a warning where it
 * cannot); `false` or `{ enabled: false }` turns it off.
 */
export function sandboxSettings(
  options: SandboxResolvedOptions,
  home = process.env.HOME || homedir(),
  env: NodeJS.ProcessEnv = process.env,
): SandboxSettings {
  const raw = options.sandbox;
  const object = typeof raw === "object" ? raw : {};
  const enabled = raw === undefined || raw === true || (typeof raw === "object" && raw.enabled !== false);
  const required = sandboxRequired(env);
  const origin = required ? "required" : raw === undefined ? "default" : "explicit";
  const cwd = options.cwd;
  const abs = (p: string) => absolutePath(cwd, p, home);
  const fs = object.filesystem ?? {};
  const given = [...(options.additionalDirectories ?? []).map(abs), ...(fs.allowWrite ?? []).map(abs)];
  const sharedScratch = [...new Set(given.filter((dir) => dir !== cwd && isSharedScratch(dir)))];
  const net = object.network;
  let network: NetworkPolicy = { mode: "none" };
  if (net === "all") network = { mode: "all" };
  else if (typeof net === "object" && (net.allowedDomains?.length ?? 0) > 0) {
    network = { mode: "proxy", allowedDomains: net.allowedDomains ?? [], deniedDomains: net.deniedDomains ?? [] };
  }
  return {
    enabled,
    origin,
    // Asked for by name: missing is an error. On by default: missing is a warning.
    failIfUnavailable: required || (object.failIfUnavailable ?? raw !== undefined),
    // Only a sandbox the user turned on loosens the questions; the default one only adds a boundary.
    autoAllowBash: raw !== undefined && (object.autoAllowBash ?? object.autoAllowBashIfSandboxed) !== false,
    excludedCommands: object.excludedCommands ?? [],
    writable: [...new Set([cwd, ...given.filter((dir) => !sharedScratch.includes(dir))])],
    sharedScratch,
    denyWrite: (fs.denyWrite ?? []).map(abs),
    trustPinned: TrustPins.is(options.trust) ? [...options.trust.digests.keys()] : [],
    denyRead: (fs.denyRead ?? []).map(abs),
    allowRead: (fs.allowRead ?? []).map(abs),
    network,
    mcpNetwork: net === undefined ? { mode: "all" } : network,
    unixSockets: typeof net === "object" && net.allowAllUnixSockets === true ? "allowed" : "blocked",
    unixSocketPaths: typeof net === "object" ? (net.allowUnixSockets ?? []) : [],
    cwd,
    home,
  };
}

/** A folder every user may write whose sticky bit keeps them from removing each other's files (/tmp). */
export function isSharedScratch(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isDirectory() && (stat.mode & 0o1002) === 0o1002;
  } catch {
    return false;
  }
}

// What lets a text run more than one command: lists, pipes, background jobs, line breaks,
// command and process substitution (quoted or not: judged on the raw text, failing closed).
const MORE_THAN_ONE_COMMAND = /[;&|\n\r`]|\$\(|[<>]\(/;

/**
 * Is `command` one of `excludedCommands`? An entry names a command and its leading words
 * (`docker`, `git push`); `:*` or ` *` at the end is accepted and means the same. Only one
 * simple command is: `docker ps; cat ~/.ssh/id_rsa` would otherwise run whole outside the
 * sandbox, so text that may run another command stays sandboxed.
 */
export function isExcluded(command: string, excluded: readonly string[]): boolean {
  const text = command.trim();
  if (MORE_THAN_ONE_COMMAND.test(text)) return false;
  return excluded.some((entry) => {
    const head = entry
      .trim()
      .replace(/(:\*| \*)$/, "")
      .trim();
    return head !== "" && (text === head || text.startsWith(`${head} `) || text.startsWith(`${head}\t`));
  });
}
