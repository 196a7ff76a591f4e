/** What the sandbox plugin adds to `system/init`: whether this run's commands are sandboxed. */

/** Where a run's sandbox stands. */
export type SandboxStatus =
  /** On; `warning` names a protection it cannot give here (Unix sockets left open, see the sandbox docs). */
  | { status: "on"; backend: "bubblewrap" | "seatbelt"; warning?: string }
  /** Turned off with `sandbox: false`. */
  | { status: "off"; warning?: string }
  /** On by default (or with failIfUnavailable: false) but this machine cannot sandbox: the run is unsandboxed. */
  | { status: "unavailable"; reason?: string; warning: string };

declare module "../../src/messages" {
  interface InitFields {
    /** The run's sandbox; absent when the ubiquity:sandbox plugin is not in the plugin list. */
    sandbox?: SandboxStatus;
  }
}
