/**
 * `ubiquity plugin add <folder> | list | remove <name|folder>` as the runner lists and parses it;
 * what it does (plugin-command.ts) loads on its first run.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError, type PluginCommand, type RunFlag } from "../../loader/index";
import { lazyImport } from "../_kits/lazy/index";

const work = lazyImport(() => import("./plugin-command"));

/** The runner commands of the commands plugin. */
export const commandsCommands: Record<string, PluginCommand> = {
  plugin: {
    summary:
      "Claude Code and Codex plugins (commands, skills, agents, hooks, MCP servers): plugin add <folder|git-url> [plugin] | list | remove <name|folder>",
    usage: "add <folder|git-url> | add <marketplace-folder|git-url> <plugin> | list | remove <name|folder>",
    positionals: true,
    run: async (args, io) => (await work()).runPluginCommand(args, io),
  },
};

/** `run --plugin-dir <dir>` (claude's flag): a Claude Code or Codex plugin folder for this run, added to `claudePlugins`. */
export const commandsFlags: Record<string, RunFlag> = {
  "disable-slash-commands": {
    type: "boolean",
    group: "Context",
    claude: "--disable-slash-commands",
    description: "No slash command or skill for this run (the commands and skills plugins are disabled)",
    apply: (o) => {
      const disabled = (o.disable as string[] | undefined) ?? [];
      o.disable = [...new Set([...disabled, "ubiquity:commands", "ubiquity:skills"])];
    },
  },
  "plugin-dir": {
    type: "string",
    value: "<dir>",
    multiple: true,
    group: "Context",
    claude: "--plugin-dir",
    description:
      "A Claude Code or Codex plugin folder (commands, skills, agents, hooks, MCP servers) for this run; repeatable",
    // From where the command was typed; a folder inside an untrusted project still loads only once trusted.
    apply: (o, v) => {
      const dirs = (Array.isArray(v) ? v : [String(v)]).map((dir) => {
        if (!existsSync(dir) || !statSync(dir).isDirectory())
          throw new UsageError(`--plugin-dir ${dir}: no such folder`);
        return resolve(dir);
      });
      o.claudePlugins = [...((o.claudePlugins as string[] | undefined) ?? []), ...dirs];
    },
  },
};
