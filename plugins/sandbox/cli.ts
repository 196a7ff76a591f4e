/** What the sandbox plugin adds to the `ubiquity` runner: `ubiquity sandbox check` and `run --sandbox`. */
import type { PluginCommand, RunFlag } from "../../loader/index";

/** `run --sandbox`. */
export const sandboxFlags: Record<string, RunFlag> = {
  sandbox: {
    type: "boolean",
    group: "Tools and permissions",
    description:
      "Run Bash, command hooks and stdio MCP servers in the OS sandbox; a Bash call it sandboxes runs without asking (autoAllowBash; see `ubiquity sandbox check`)",
    apply: (o) => void (o.sandbox = typeof o.sandbox === "object" ? { ...o.sandbox, enabled: true } : true),
  },
  "no-sandbox": {
    type: "boolean",
    group: "Tools and permissions",
    description:
      "Run Bash, command hooks and stdio MCP servers unsandboxed (the sandbox is on by default where it works); warns once",
    apply: (o) => void (o.sandbox = false),
  },
};

/** `ubiquity sandbox check`, loaded on use. */
export const sandboxCommands: Record<string, PluginCommand> = {
  sandbox: {
    summary: "Check whether the OS sandbox works here: ubiquity sandbox check",
    raw: true,
    run: async ({ argv }, io) => (await import("./command")).sandboxCheck(argv, io),
  },
};
