/**
 * `ubiquity plugin add <folder> | list | remove <name|folder>` as the runner lists and parses it;
 * what it does (plugin-command.ts) loads on its first run.
 */
import type { PluginCommand } from "../../loader/index";
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
