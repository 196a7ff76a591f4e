/**
 * What the permissions plugin adds to the `ubiquity` runner: `ubiquity permissions check` and the
 * `run` flags for the options it owns (the permission mode, the rules, the extra folders).
 */
import { statSync } from "node:fs";
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
    if (depth > 0)
      throw new UsageError(
        `unbalanced parenthesis in the rule ${JSON.stringify(current)}; write rules as Tool or Tool(content)`,
      );
    if (current) out.push(current);
  }
  return out;
}

/**
 * A word `claude`'s variadic form would give a rule flag after its value (`--allowedTools Read
 * Grep`): every rule in it names a tool (`Grep`, `Bash(git log:*)`, `mcp__github__*`). A
 * sentence is not one, so the prompt after the flags stays the prompt.
 */
export function isRuleList(word: string): boolean {
  try {
    const rules = splitRules([word]);
    return rules.length > 0 && rules.every((r) => /^(?:[A-Z][A-Za-z0-9_]*|mcp__[\w.*-]+)(?:\(.*\))?$/s.test(r));
  } catch {
    return false;
  }
}

/** A word `claude --add-dir a b` would take as another directory: one that exists. */
function isDirectory(word: string): boolean {
  try {
    return statSync(word).isDirectory();
  } catch {
    return false;
  }
}

const append =
  (
    key: "approvedTools" | "availableTools" | "disallowedTools" | "askTools" | "additionalDirectories",
    values: string[],
  ) =>
  (options: Record<string, unknown>) => {
    const given = options[key];
    options[key] = [...(Array.isArray(given) ? given : []), ...values];
  };

/** The `run` flags of the options this plugin owns. */
export const permissionsFlags: Record<string, RunFlag> = {
  "permission-mode": {
    type: "string",
    value: "<mode>",
    group: "Tools and permissions",
    claude: "--permission-mode",
    description: `${PERMISSION_MODES.join(" | ")} (manual, Claude Code's newer name, is default)`,
    apply: (o, v) => {
      // Claude Code 2.1 names the default mode `manual`; both spellings are one mode.
      const mode = v === "manual" ? "default" : String(v);
      if (!(PERMISSION_MODES as readonly string[]).includes(mode))
        throw new UsageError(
          `--permission-mode must be one of ${PERMISSION_MODES.join(", ")}, not ${JSON.stringify(v)}`,
        );
      o.permissionMode = mode;
    },
  },
  "dangerously-skip-permissions": {
    type: "boolean",
    group: "Tools and permissions",
    claude: "--dangerously-skip-permissions",
    description:
      "--permission-mode bypassPermissions: run without asking (deny and ask rules, sensitive files and the sandbox still apply)",
    apply: (o, _v, values) => {
      if (values?.["permission-mode"] !== undefined && values["permission-mode"] !== "bypassPermissions")
        throw new UsageError(
          `--dangerously-skip-permissions is --permission-mode bypassPermissions; drop one of them (--permission-mode ${values["permission-mode"]} was given too)`,
        );
      o.permissionMode = "bypassPermissions";
    },
  },
  // Claude Code's switch that offers bypass in its interactive mode cycle: a script may pass it; it grants
  // nothing (the terminal's Shift-Tab reaches bypassPermissions only in a run started in it).
  "allow-dangerously-skip-permissions": {
    type: "boolean",
    group: "Tools and permissions",
    claude: "--allow-dangerously-skip-permissions",
    description:
      "Accepted for claude's scripts and changes nothing (Shift-Tab's mode cycle reaches bypass only in a run started in it); --dangerously-skip-permissions is the switch",
  },
  // Pre-approval only, as in `claude -p`: a bare name approves the tool and takes no other tool away (--tools does that).
  allowedTools: {
    type: "string",
    value: "<rules>",
    multiple: true,
    group: "Tools and permissions",
    claude: "--allowedTools",
    description:
      'Rules that run without asking: "Read,Bash(git log:*)" (comma or space separated; repeatable); never removes a tool (approvedTools)',
    variadic: isRuleList,
    apply: (o, v) => append("approvedTools", splitRules(list(v)))(o),
  },
  tools: {
    type: "string",
    value: "<names>",
    multiple: true,
    group: "Tools and permissions",
    claude: "--tools",
    description:
      'Only these tools are offered: "Read,Grep,Bash"; "" for none, "default" for all; approves nothing (availableTools)',
    variadic: isRuleList,
    apply: (o, v) => {
      const names = splitRules(list(v));
      if (names.includes("default")) {
        if (names.length > 1)
          throw new UsageError(
            `--tools default means every tool; it cannot be combined with names (${names.filter((n) => n !== "default").join(", ")})`,
          );
        return;
      }
      const scoped = names.find((n) => n.includes("("));
      if (scoped)
        throw new UsageError(`--tools takes tool names, not rules (${scoped}); pre-approve calls with --allowedTools`);
      append("availableTools", names)(o);
    },
  },
  disallowedTools: {
    type: "string",
    value: "<rules>",
    multiple: true,
    group: "Tools and permissions",
    claude: "--disallowedTools",
    description: "Rules that are always denied (same form); a bare name removes the tool",
    variadic: isRuleList,
    apply: (o, v) => append("disallowedTools", splitRules(list(v)))(o),
  },
  askTools: {
    type: "string",
    value: "<rules>",
    multiple: true,
    group: "Tools and permissions",
    description: "Rules that always ask, even when another rule allows (same form)",
    variadic: isRuleList,
    apply: (o, v) => append("askTools", splitRules(list(v)))(o),
  },
  "add-dir": {
    type: "string",
    value: "<dir>",
    multiple: true,
    group: "Context",
    claude: "--add-dir",
    description: "Another directory the tools may use; repeatable (claude's --add-dir a b works too)",
    variadic: isDirectory,
    apply: (o, v) =>
      append(
        "additionalDirectories",
        list(v).map((d) => resolve(d)),
      )(o),
  },
};

/** `ubiquity permissions check`, loaded on use. */
export const permissionsCommands: Record<string, PluginCommand> = {
  permissions: {
    summary: "Test permission rules against a command: permissions check --allow 'Bash(git:*)' \"git status\"",
    raw: true,
    run: async ({ argv }, io) => (await import("./command")).permissionsCheck(argv, io),
  },
};
