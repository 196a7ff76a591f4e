/**
 * What the permissions plugin adds to the `ubiquity` runner: `ubiquity permissions check` and the
 * `run` flags for the options it owns (the permission mode, the rules, the extra folders).
 */
import { resolve } from "node:path";
import { UsageError } from "../../loader/index";
import type { FlagValue, PluginCommand, RunFlag } from "../../loader/index";
import { PERMISSION_MODES } from "./options";

const list = (value: FlagValue): string[] => (Array.isArray(value) ? value : [String(value)]);

/**
 * Split permission rules given on the command line: commas or spaces separate rules, except
 * inside parentheses (`Bash(git log:*)` is one rule; so is `Bash(npm run build, test)`).
 */
export function splitRules(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (const ch of value) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current) out.push(current);
        current = "";
        continue;
      }
      current += ch;
    }
    if (depth > 0) throw new UsageError(`unbalanced parenthesis in the rule ${JSON.stringify(current)}; write rules as Tool or Tool(content)`);
    if (current) out.push(current);
  }
  return out;
}

const append = (key: "allowedTools" | "disallowedTools" | "askTools" | "additionalDirectories", values: string[]) => (options: Record<string, any>) => {
  options[key] = [...(options[key] ?? []), ...values];
};

/** The `run` flags of the options this plugin owns. */
export const permissionsFlags: Record<string, RunFlag> = {
  "permission-mode": {
    type: "string",
    value: "<mode>",
    group: "Tools and permissions",
    claude: "--permission-mode",
    description: PERMISSION_MODES.join(" | "),
    apply: (o, v) => {
      if (!(PERMISSION_MODES as readonly string[]).includes(String(v))) throw new UsageError(`--permission-mode must be one of ${PERMISSION_MODES.join(", ")}, not ${JSON.stringify(v)}`);
      o.permissionMode = String(v);
    },
  },
  allowedTools: { type: "string", value: "<rules>", multiple: true, group: "Tools and permissions", claude: "--allowedTools", description: 'Rules that run without asking: "Read,Bash(git log:*)" (comma or space separated; repeatable)', apply: (o, v) => append("allowedTools", splitRules(list(v)))(o) },
  disallowedTools: { type: "string", value: "<rules>", multiple: true, group: "Tools and permissions", claude: "--disallowedTools", description: "Rules that are always denied (same form)", apply: (o, v) => append("disallowedTools", splitRules(list(v)))(o) },
  askTools: { type: "string", value: "<rules>", multiple: true, group: "Tools and permissions", description: "Rules that always ask, even when another rule allows (same form)", apply: (o, v) => append("askTools", splitRules(list(v)))(o) },
  "add-dir": { type: "string", value: "<dir>", multiple: true, group: "Context", claude: "--add-dir", description: "Another directory the tools may use; repeatable", apply: (o, v) => append("additionalDirectories", list(v).map((d) => resolve(d)))(o) },
};

/** `ubiquity permissions check`, loaded on use. */
export const permissionsCommands: Record<string, PluginCommand> = {
  permissions: {
    summary: "Test permission rules against a command: permissions check --allow 'Bash(git:*)' \"git status\"",
    raw: true,
    run: async ({ argv }, io) => (await import("./command")).permissionsCheck(argv, io),
  },
};
