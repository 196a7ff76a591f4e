/**
 * `ubiquity:commands`: slash commands. A prompt that starts with `/name` runs the command file
 * `name.md` (or the skill `name`): its body, with the arguments, shell lines and files it asks
 * for, becomes the prompt (expand.ts). Nothing is read unless `commands`, `commandSources`,
 * `compat` or `claudePlugins` asks for it; a project's command files apply only in a trusted
 * folder, like its skills. Adds `ubiquity plugin add|list|remove` (cli.ts).
 * - `kernel.ready`: read the command files
 * - `turn.prompt`: expand a `/name` prompt before the other taps see it (a shell line or file
 *   that was refused blocks the prompt, naming it). Its `allowed-tools` are granted to the run's
 *   own calls and its `model` answers, until the next prompt. What the user's `!` commands printed
 *   since the last prompt (bash-mode.ts, `CommandsApi.shell`) goes ahead of it.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import {
  describeError,
  type Kernel,
  modelLabel,
  PROMPT_STAGE,
  resolveModel,
  type RunContext,
  type TurnPrompt,
} from "../../src/index";
import { getPermissionsApi } from "../permissions/api";
import { fileModel as agentModel, modelAliasesOf } from "../model/index";
import { getHooksApi } from "../hooks/index";
import { definePlugin } from "../_kits/authoring/index";
import {
  CODEX_PLUGIN_MANIFEST,
  definitionProjectFiles,
  permittedCompatPaths,
  permittedSources,
  PLUGIN_MANIFEST,
  readPlugins,
  warn,
  warnOnce,
  type Source,
} from "../_kits/sources/index";
import type { ProjectPlace } from "../../loader/index";
import { pathExists } from "../../loader/index";
import { createCommandsApi } from "./api";
import type { SlashCommand } from "./command";
import { commandsCommands, commandsFlags } from "./cli";
import { CommandError, expandCommand, readMentions } from "./expand";
import { commandFolder, commandRoots, loadCommands } from "./load";
import { commandsOptions, type CommandsResolvedOptions } from "./options";
import { loadCodexPrompts } from "./codex-prompts";
import { takeTypedCommands } from "./bash-mode";

export { getCommandsApi, type CommandsApi } from "./api";
export { commandFolder, loadCommands, commandRoots, toolRules } from "./load";
export { expandCommand, substituteArguments, splitArguments, CommandError } from "./expand";
export type { SlashCommand, CommandInfo } from "./command";
export type { ShellOutcome } from "./bash-mode";

/** The plugin's name. */
export const NAME = "ubiquity:commands";

/**
 * `/name args`: a name of letters, digits, `_`, `-` and `:` (namespaces), then the arguments; `.`
 * too, for Codex prompts such as `/prompts:speckit.plan` (a name no command has is left as typed).
 */
const INVOCATION = /^\/([A-Za-z0-9_-][A-Za-z0-9_.-]*(?::[A-Za-z0-9_-][A-Za-z0-9_.-]*)*)(?:\s+([\s\S]*))?$/;

/**
 * The runner's piped input after the prompt (`gh issue view 42 | ubiquity -p "/triage 42"`): content
 * for the model, never the command's arguments. It was `$ARGUMENTS` (an issue body in a shell
 * line's `gh issue view $ARGUMENTS`): it now follows the expanded command, as it follows a prompt.
 */
const PIPED = /\n\n<stdin>\n[\s\S]*\n<\/stdin>$/;

/**
 * The terminal mode's own commands, which Claude Code's `-p` and its Agent SDK also take: in a run
 * (`-p`, `summon()`) no plugin has them, and `-p --continue "/compact"` before a long session's next
 * day sent the word to the model (a paid turn), compacting nothing. What does each one's work here.
 */
const TERMINAL_ONLY: Record<string, string> = {
  compact:
    "a run compacts by itself when its context fills (autoCompact, on by default; compactThreshold: 0.5 in the config compacts at half the window, compactInstructions says what to keep)",
  clear: "a run without --continue or --resume starts a new conversation",
  cost: "the run's result carries its cost (totalCostUsd; --output-format json prints it), and `ubiquity sessions show <id>` the session's total",
  resume: "pass --resume <id> or --continue (the resume or continueConversation option)",
  rewind: "`ubiquity rewind` lists the session's checkpoints and rewinds to one (rewindFiles() in code)",
  tasks: "the model reads its background shells with BashOutput (query.backgroundTasks() in code)",
};

/**
 * `/name` that no command of the run has goes to the model as typed (as in Claude Code), which a
 * script's typo or a switcher's `.claude/commands/name.md` left unread (no `--compat claude`) did
 * in silence: say so, with the command meant when one is close (`/commit` for a plugin's
 * `/commit-commands:commit`) or the Claude Code file and the flag that reads it.
 */
function notACommand(run: RunContext, options: CommandsResolvedOptions, name: string, names: readonly string[]): void {
  const compat = options.compat ?? [];
  const claudeFile = compat.includes("claude")
    ? undefined
    : [run.cwd, homedir()]
        .flatMap((dir) => [
          join(dir, ".claude", "commands", `${name}.md`),
          join(dir, ".claude", "skills", name, "SKILL.md"),
        ])
        .find((file) => pathExists(file));
  const meant = names.filter((n) => n.endsWith(`:${name}`));
  const own = claudeFile ? undefined : unreadOwnFile(run, options, name);
  // `/lisa:codex-parity` for `.claude/commands/lisa/codex-parity.md`, which Claude Code names by its file alone.
  const file = name.includes(":") ? name.slice(name.lastIndexOf(":") + 1) : undefined;
  const flat = file !== undefined && names.includes(file) ? file : undefined;
  // A project's `.codex/prompts/x.md` (yxhpy/codex-project-governor keeps three): Codex reads prompts from ~/.codex/prompts only.
  const codexProject = name.startsWith("prompts:")
    ? join(run.cwd, ".codex", "prompts", `${name.slice("prompts:".length)}.md`)
    : undefined;
  const terminal = TERMINAL_ONLY[name];
  const why = terminal
    ? `: /${name} is a command of the terminal mode (\`ubiquity\` with no prompt); here ${terminal}`
    : claudeFile
      ? `: ${claudeFile} is Claude Code's, read with --compat claude (compat: ["claude"] in the config)`
      : codexProject && pathExists(codexProject)
        ? `: ${codexProject} is a project's, and Codex reads its prompts from ~/.codex/prompts alone (as ubiquity does): put it there`
        : own
          ? `: ${own.file} is read with commandSources: ["${own.source}"] in the config (nothing is read unless asked)`
          : flat
            ? ` (did you mean /${flat}? In Claude Code's folders a command file in a subfolder is named by its file alone)`
            : meant.length
              ? ` (did you mean ${meant.map((n) => `/${n}`).join(" or ")}?)`
              : names.length
                ? ` (its commands: ${names
                    .slice(0, 8)
                    .map((n) => `/${n}`)
                    .join(", ")}${names.length > 8 ? ", …" : ""})`
                : " (it has none)";
  warn(run.kernel, NAME, `/${name} is not a command of this run, so the prompt went to the model as written${why}`);
}

/** A command file of ours for `name` that the run's `commandSources` leaves unread (a trusted project's `.ubiquity/commands/<name>.md` without `["project"]`). */
function unreadOwnFile(
  run: RunContext,
  options: CommandsResolvedOptions,
  name: string,
): { file: string; source: Source } | undefined {
  const wanted = options.commandSources ?? [];
  const relative = `${name.split(":").join("/")}.md`;
  for (const source of ["project", "local", "user"] as const) {
    if (wanted.includes(source)) continue;
    const file = join(commandFolder(source, run.cwd, homedir()), relative);
    if (pathExists(file)) return { file, source };
  }
  return undefined;
}

/** What the plugin keeps per run: the model a command switched to, and the one to go back to. */
interface RunState {
  model?: { set: RunContext["model"]; previous: RunContext["model"]; label: RunContext["modelLabel"] };
}

/**
 * Run `run` on the command's `model` until the next prompt. `inherit`, and a Claude tier (`sonnet`,
 * `haiku`) no alias maps, keep the session's model, as for agent files.
 */
async function switchModel(run: RunContext, command: { name: string; model?: string }, state: RunState) {
  const wanted = agentModel(command.model, modelAliasesOf(run.options));
  if (!wanted) return;
  const model = await resolveModel(run, wanted, "main").catch((error: unknown) => {
    throw new CommandError(
      `/${command.name}: its model ${JSON.stringify(command.model)} could not be used: ${describeError(error)}`,
    );
  });
  state.model = { set: model, previous: run.model, label: run.modelLabel };
  run.model = model;
  run.modelLabel = modelLabel(model, run.kernel);
}

/**
 * Claude Code's UserPromptExpansion: hooks matched by the command's name see the expansion, and
 * may block it (exit 2, `decision: "block"`) or add context to it.
 */
async function fireExpansion(kernel: Kernel, run: RunContext, command: SlashCommand, text: string, args: string) {
  const hooks = getHooksApi(kernel);
  if (!hooks?.has("UserPromptExpansion", run)) return undefined;
  return hooks.fire("UserPromptExpansion", run, {
    prompt: text,
    extra: {
      expansionType: command.source === "mcp" ? "mcp_prompt" : "slash_command",
      commandName: command.name,
      commandArgs: args,
      commandSource: command.source,
    },
  });
}

/** The commands plugin. */
export const commandsPlugin = definePlugin({
  name: NAME,
  options: commandsOptions,
  commands: commandsCommands,
  flags: commandsFlags,
  projectFiles: (place: ProjectPlace) => [
    ...definitionProjectFiles(
      "commands",
      commandFolder,
      "adds slash commands (their shell lines still go through the permission rules)",
      place,
    ),
    // A Claude Code or Codex plugin folder in the project: pinned whole (its hooks' scripts too), so it applies only while unchanged.
    ...(pathExists(join(place.cwd, PLUGIN_MANIFEST)) || pathExists(join(place.cwd, CODEX_PLUGIN_MANIFEST))
      ? [
          {
            path: place.cwd,
            kind: "plugin",
            effect:
              "a Claude Code/Codex plugin folder: its commands, skills, agents, hooks and MCP servers apply where claudePlugins names it",
          },
        ]
      : []),
  ],
  runState: (): RunState => ({}),
  apply(kernel, context) {
    const api = createCommandsApi(kernel);
    const stateOf = (run: RunContext): RunState => context.run(run);

    // The Claude Code plugins that loaded, as claude -p's init line lists them (`plugins`).
    let pluginFolders: { name: string; path: string }[] = [];
    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      const { cwd, commands, commandSources: wanted, trust, compat, claudePlugins } = context.options;
      const place = { cwd, home: homedir() };
      const report = (message: string) => warn(kernel, NAME, message);
      const skipped = (path: string) =>
        kernel.logger.debug(`[${NAME}] ${path}: new or changed since its folder was trusted; not read`);
      const commandSources = permittedSources(
        wanted,
        trust,
        (source) => commandFolder(source, cwd, place.home),
        skipped,
      );
      const compatFound = permittedCompatPaths("commands", { compat, sources: wanted, trust }, place, skipped);
      // Codex's prompts folder holds prompts, not Claude Code command files: they are read and expanded Codex's way.
      const compatRoots = compatFound.filter((p) => p.tool !== "codex");
      const codexPrompts = compatFound.filter((p) => p.tool === "codex");
      const plugins = readPlugins(claudePlugins, cwd, trust, (message) => warnOnce(kernel, NAME, message));
      pluginFolders = plugins.map((plugin) => ({ name: plugin.name, path: plugin.root }));
      if (!commands?.length && !commandSources?.length && !compatFound.length && !plugins.length) return;
      const roots = commandRoots({ commands, commandSources, compatRoots }, place);
      for (const plugin of plugins)
        for (const dir of plugin.commandDirs)
          roots.push({ path: dir, source: "plugin", plugin: { name: plugin.name, root: plugin.root } });
      const prompts = (await Promise.all(codexPrompts.map((p) => loadCodexPrompts(p.path, report)))).flat();
      // Weakest first: a command file of ours named prompts:x (prompts/x.md) wins the name.
      api.load([...prompts, ...(await loadCommands(roots, report))]);
    });

    // The init message names what `/name` invokes (claude -p's `slash_commands`): command files,
    // skills and MCP prompts, as `list` has them (the MCP plugin connects its servers earlier).
    kernel.hooks.session.start.tap(NAME, (run) => {
      if (run.agent) return;
      const names = api.list(run).map((command) => command.name);
      if (names.length) run.initExtra.slashCommands = names;
      if (pluginFolders.length) run.initExtra.claudePlugins = pluginFolders;
    });

    // Before the other taps (UserPromptSubmit hooks, todos): they see the prompt the model will get.
    kernel.hooks.turn.prompt.tapPromise(
      { name: NAME, stage: PROMPT_STAGE.EXPAND },
      async (prompt: TurnPrompt, run: RunContext) => {
        if (prompt.source !== "user" || run.agent || prompt.blocked !== undefined) return prompt;
        // What the user's `!` commands printed since the last prompt goes ahead of this one.
        const typedCommands = takeTypedCommands(run);
        if (typedCommands.length) prompt = { ...prompt, context: [...typedCommands, ...prompt.context] };
        const typed = prompt.text.trim();
        const piped = PIPED.exec(typed);
        const match = INVOCATION.exec(piped ? typed.slice(0, piped.index) : typed);
        const command = match && api.find(match[1]!, run);
        // What the previous command granted ends with the next prompt (its model too, unless changed since).
        const state = stateOf(run);
        const permissions = getPermissionsApi(kernel);
        const end = () => {
          permissions.grant(run, undefined, NAME);
          if (state.model && run.model === state.model.set) {
            run.model = state.model.previous;
            run.modelLabel = state.model.label;
          }
          state.model = undefined;
        };
        end();
        if (match && !command)
          notACommand(
            run,
            context.optionsOf(run),
            match[1]!,
            api.list(run).map((c) => c.name),
          );
        if (!command) return context.optionsOf(run).fileMentions ? withMentions(prompt, run, piped?.index) : prompt;
        try {
          try {
            permissions.grant(run, command.allowedTools, `/${command.name} (${command.file}) allowed-tools`);
          } catch (error) {
            throw new CommandError(`/${command.name}: ${describeError(error)}`);
          }
          await switchModel(run, command, state);
          const args = (match[2] ?? "").trim();
          const shellLinesOff = context.optionsOf(run).disableSkillShellExecution === true;
          const expanded = command.expand
            ? await command.expand(args, run)
            : await expandCommand(command, args, run, shellLinesOff);
          const { context: included } = expanded;
          const text = piped ? `${expanded.text}${piped[0]}` : expanded.text;
          const expansion = await fireExpansion(kernel, run, command, text, args);
          if (expansion?.blocked !== undefined) throw new CommandError(`/${command.name}: ${expansion.blocked}`);
          const content = prompt.content && [
            { type: "text" as const, text },
            ...prompt.content.filter((p) => p.type !== "text"),
          ];
          return {
            ...prompt,
            text,
            context: [...prompt.context, ...included, ...(expansion?.context ?? [])],
            ...(content ? { content } : {}),
          };
        } catch (error) {
          end();
          if (error instanceof CommandError) return { ...prompt, blocked: error.message };
          throw error;
        }
      },
    );
  },
});

export default commandsPlugin;

/**
 * `fileMentions`: a typed prompt's `@path` files (what was typed, not piped input), read through
 * the Read tool — judged by the rules and shown as calls — and put ahead of the prompt, as Claude
 * Code's prompt includes them. One that cannot be read is said in their place; the prompt goes on.
 */
async function withMentions(prompt: TurnPrompt, run: RunContext, pipedAt: number | undefined): Promise<TurnPrompt> {
  const typed = pipedAt === undefined ? prompt.text : prompt.text.trimStart().slice(0, pipedAt);
  const included = await readMentions(typed, run, "the prompt", false);
  return included.length ? { ...prompt, context: [...prompt.context, ...included] } : prompt;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
