/** What the sandbox plugin adds to `system/init`: whether this run's commands are sandboxed. */

/** Where a run's sandbox stands. */
export type SandboxStatus =
  | { status: "on"; backend: "bubblewrap" | "seatbelt"; warning?: undefined }
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
