/**
 * The sandbox's extension point, per kernel: plugins that start processes (Bash, command hooks,
 * stdio MCP servers) pass each spawn through `wrap`, and get it back sandboxed, or unchanged
 * when the sandbox is off. Requested but missing is an error, never a silent unsandboxed run:
 * `sandbox` set without the ubiquity:sandbox plugin in the list refuses to spawn.
 */
import { sep } from "node:path";
import type { Kernel, ResolvedOptions } from "../../src/index";
import { readOption } from "../_kits/authoring/index";
import { markAgentWritable } from "../_kits/process/index";
import { SandboxUnavailableError } from "./availability";
import { sandboxSettings } from "./config";
import { sandboxOptions } from "./options";
import { hostMatches } from "./host-match";
import { pinFolder, unpin, type FolderPin } from "./pin";
import type { SandboxRuntime, SpawnSpec, SpawnUse } from "./runtime";
import type { Violation } from "./violations";

export type { SpawnSpec, SpawnUse } from "./runtime";

/** What other plugins can do with the sandbox of a kernel. */
export interface SandboxApi {
  /** True when this kernel's spawns run sandboxed. */
  readonly active: boolean;
  /** Would this Bash command run sandboxed (false when off, or listed in excludedCommands)? */
  sandboxes(command: string): boolean;
  /** The spawn as it must happen: sandboxed when the sandbox is on. */
  wrap(spec: SpawnSpec, use: SpawnUse): SpawnSpec;
  /**
   * Resolves once the work a first sandboxed spawn needs, started ahead, is done (the walk of the
   * system's folders, begun as the model writes its first command): `wrap` after it finds that
   * work done instead of doing it again while the process waits. At once when none is under way.
   */
  ready(): Promise<void>;
  /**
   * A sandboxed hook or MCP tool call ended: the protected files sandboxed processes made
   * anywhere in the workspace are removed now, reported as `sandbox.violation` events, and
   * returned (empty when the sandbox is off).
   */
  settle(source: SpawnUse["kind"]): Violation[];
  /**
   * A folder of its own (an isolated agent's git worktree, outside the run's folders) that the
   * spawns running inside it may write, as the run's own folders are: granted to those spawns
   * only, until the returned function takes it back.
   */
  addWorkspace(path: string): () => void;
  /**
   * Where a path that sandboxed processes see under /tmp (private to the run) is on the host, so
   * a file a sandboxed hook wrote there can be read; any other path, and every path when the
   * sandbox is off, is itself.
   */
  hostPath(path: string): string;
}

interface State {
  api: SandboxApi;
  /** Folders granted with addWorkspace, each held open as the folder it was then (undefined: none). */
  workspaces: Map<string, FolderPin | undefined>;
  /** Set by the plugin: "off" (not asked for), "degraded" (unavailable, failIfUnavailable: false), or a runtime. */
  mode?: "off" | "degraded" | SandboxRuntime;
}

const states = new WeakMap<Kernel, State>();

/** The plugin's side: set what the kernel's spawns get. */
export function setSandboxMode(kernel: Kernel, mode: State["mode"]): void {
  getSandboxApi(kernel);
  states.get(kernel)!.mode = mode;
}

/** The sandbox API of `kernel` (created on first use, so plugin order does not matter). */
export function getSandboxApi(kernel: Kernel): SandboxApi {
  let state = states.get(kernel);
  if (!state) {
    const s: State = {
      workspaces: new Map(),
      api: {
        get active() {
          return typeof s.mode === "object";
        },
        sandboxes(command) {
          return typeof s.mode === "object" && s.mode.sandboxes(command);
        },
        wrap(spec, use) {
          if (typeof s.mode === "object")
            return s.mode.wrap(
              spec,
              use,
              [...s.workspaces]
                .filter(([w]) => spec.cwd === w || spec.cwd.startsWith(`${w}${sep}`))
                .flatMap(([, pin]) => (pin ? [pin] : [])),
            );
          if (s.mode === undefined && requested(kernel)) {
            throw new SandboxUnavailableError(
              "the sandbox option is set, but the ubiquity:sandbox plugin is not in the plugin list, so nothing can run sandboxed; add ubiquity:sandbox to plugins (or remove the sandbox option)",
            );
          }
          return spec;
        },
        ready() {
          return typeof s.mode === "object" ? s.mode.ready() : Promise.resolve();
        },
        addWorkspace(path) {
          // Pinned to the folder it is now: one swapped for a link later is not bound (where the link leads).
          const pin = pinFolder(path);
          markAgentWritable(path);
          unpin(s.workspaces.get(path));
          s.workspaces.set(path, pin);
          return () => {
            if (s.workspaces.get(path) !== pin) return;
            s.workspaces.delete(path);
            unpin(pin);
          };
        },
        hostPath(path) {
          return typeof s.mode === "object" ? s.mode.hostPath(path) : path;
        },
        settle(source) {
          if (typeof s.mode !== "object") return [];
          const found = s.mode.settle();
          for (const v of found) kernel.emit({ type: "sandbox.violation", kind: v.kind, source, detail: v.detail });
          return found;
        },
      },
    };
    state = s;
    states.set(kernel, state);
  }
  return state.api;
}

/**
 * Why a fetch the run makes itself (WebFetch) may not reach `host:port` under the sandbox's
 * network setting, or undefined when it may: the `network` setting applies when the sandbox is
 * on and the setting is given (as for stdio MCP servers); `none` refuses every host, an
 * allow-list refuses hosts it does not name and hosts `deniedDomains` names.
 */
export function sandboxNetworkRefusal(options: ResolvedOptions, host: string, port: number): string | undefined {
  // Another plugin's run options (WebFetch's): the sandbox setting is read through this plugin's slice.
  const settings = sandboxSettings({ ...options, sandbox: readOption(sandboxOptions, options, "sandbox") });
  if (!settings.enabled) return undefined;
  const network = settings.mcpNetwork;
  if (network.mode === "all") return undefined;
  if (network.mode === "none")
    return 'the sandbox\'s network setting is "none"; add the host to sandbox.network.allowedDomains';
  if (network.deniedDomains.some((d) => hostMatches(d, host, port).hit))
    return `${host} is in sandbox.network.deniedDomains`;
  if (!network.allowedDomains.some((a) => hostMatches(a, host, port).hit))
    return `${host}:${port} is not in sandbox.network.allowedDomains`;
  return undefined;
}

function requested(kernel: Kernel): boolean {
  const option = kernel.options ? readOption(sandboxOptions, kernel.options, "sandbox") : undefined;
  return option === true || (typeof option === "object" && option !== null && option.enabled !== false);
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";

/**
 * The sandbox guard's check of a git config file: why a setting in it may run a program (what its
 * allow-list does not know as harmless), or undefined. `overridden`: keys the caller sets itself.
 * The guard loads on first use.
 */
export async function unsafeGitConfig(path: string, overridden?: ReadonlySet<string>): Promise<string | undefined> {
  return (await import("./guard")).unsafeGitConfig(path, overridden);
}
