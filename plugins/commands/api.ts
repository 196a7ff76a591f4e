/**
 * `getCommandsApi(kernel)`: the slash commands a kernel knows (command files, then skills by
 * name), for the SDK's `supportedCommands()`, the terminal and ACP.
 */
import type { Kernel, RunContext } from "../../src/index";
import { getSkillsApi } from "../skills/api";
import { toolRules } from "../_kits/sources/index";
import { commandInfo, type CommandInfo, type SlashCommand } from "./command";
import { runTypedCommand, type ShellOutcome } from "./bash-mode";

/** What other code can ask of a kernel's commands. */
export interface CommandsApi {
  /** Every command `run` may invoke (without a run: every loaded one), sorted by name; a command file wins a skill's name, except one from Claude Code's folders (there the skill wins, as in Claude Code). */
  commands(run?: RunContext): readonly SlashCommand[];
  /** The same, as clients list them. */
  list(run?: RunContext): CommandInfo[];
  /** The command `/name` invokes, if any. */
  find(name: string, run?: RunContext): SlashCommand | undefined;
  /** Add commands another plugin makes (MCP prompts); `list` is asked each time, so they may change. Command files win their names. */
  provide(list: (run?: RunContext) => readonly SlashCommand[]): void;
  /** Claude Code's `!` bash mode: run a command the user typed now, through the Bash tool's funnel; what it printed goes ahead of the run's next prompt. */
  shell(run: RunContext, command: string): Promise<ShellOutcome>;
}

const apis = new WeakMap<Kernel, CommandsApi & { load(commands: SlashCommand[]): void }>();

/** The commands API of `kernel`, or undefined when the `ubiquity:commands` plugin is not in it. */
export function getCommandsApi(kernel: Kernel): CommandsApi | undefined {
  return apis.get(kernel);
}

/** Create and register the API of a kernel (the commands plugin does this in `apply`). */
export function createCommandsApi(kernel: Kernel): CommandsApi & { load(commands: SlashCommand[]): void } {
  let loaded: readonly SlashCommand[] = [];
  const providers: ((run?: RunContext) => readonly SlashCommand[])[] = [];
  const commands = (run?: RunContext): SlashCommand[] => {
    const skills = getSkillsApi(kernel);
    const byName = new Map<string, SlashCommand>();
    for (const skill of (run ? skills?.skillsFor(run) : skills?.skills()) ?? []) {
      // Claude Code's `user-invocable: false`: the model's alone, not a slash command.
      if (skill.frontmatter["user-invocable"] === false) continue;
      const hint = skill.frontmatter["argument-hint"];
      const allowedTools = toolRules(skill.frontmatter["allowed-tools"]);
      const model = skill.frontmatter.model;
      byName.set(skill.name, {
        name: skill.name,
        description: skill.description,
        ...(typeof hint === "string" && hint.trim() ? { argumentHint: hint.trim() } : {}),
        ...(allowedTools?.length ? { allowedTools } : {}),
        ...(typeof model === "string" && model.trim() ? { model: model.trim() } : {}),
        body: skill.body,
        file: `${skill.dir}/SKILL.md`,
        source: "skill",
        dir: skill.dir,
      });
    }
    for (const provide of providers) for (const command of provide(run)) byName.set(command.name, command);
    // Claude Code: "if a skill and a command share the same name, the skill takes precedence"
    // (`.claude/commands/deploy.md` and `.claude/skills/deploy/SKILL.md`: `/deploy` runs the skill).
    // A command file of ours still wins a skill's name.
    for (const command of loaded)
      if (!command.claude || byName.get(command.name)?.source !== "skill") byName.set(command.name, command);
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };
  const api = {
    load(list: SlashCommand[]) {
      loaded = Object.freeze([...list]);
    },
    provide(list: (run?: RunContext) => readonly SlashCommand[]) {
      providers.push(list);
    },
    commands,
    shell: runTypedCommand,
    list: (run?: RunContext) => commands(run).map(commandInfo),
    find: (name: string, run?: RunContext) => commands(run).find((c) => c.name === name),
  };
  apis.set(kernel, api);
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
export type { SlashCommand, CommandInfo } from "./command";
export type { ShellOutcome } from "./bash-mode";
