/**
 * `ubiquity:agents`: subagents and the Agent tool. Definitions come from `options.agents` and,
 * when `agentSources` asks, from agent files (later sources win a name, `options.agents` wins
 * over files). The Agent tool is registered only when at least one agent is configured.
 * - `kernel.ready`: read agent files, register the Agent and SendMessage tools
 * - `tool.list`: a subagent keeps its parent's tools cut to its definition; never Agent, SendMessage nor AskUserQuestion
 * - `turn.prompt` / `turn.stop` / `session.end`: SubagentStart context, SubagentStop
 * - `turn.stop` of a main run: wait for its background agents, their ends become the next prompt
 * - `session.start`: the run's own signal, which its background agents follow
 * - `turn.system`: a subagent's prompt ends by saying its caller sees only its final reply
 */
import {
  definitionProjectFiles,
  expandPluginRoot,
  listingBudget,
  permittedCompatPaths,
  permittedSources,
  readPlugins,
  warn,
  warnOnce,
} from "../_kits/sources/index";
import { homedir } from "node:os";
import type { Kernel, RunContext, SystemSection, Tool } from "../../src/index";
import { definePlugin, readOption } from "../_kits/authoring/index";
import { permissionsOptions } from "../permissions/api";
import type { AgentDefinition, AgentsResolvedOptions } from "./options";
import { getHooksApi, HOOK_JUDGE_INSTRUCTIONS } from "../hooks/index";

import { AGENT_TOOL, AgentTool, SEND_MESSAGE_TOOL, type Launch } from "./agent-tool";
import { resolveContextWindow } from "../_kits/compaction/index";
import type { BackgroundAgents } from "./background";
import { AgentInbox } from "./inbox";
import type { DelegationContext } from "./delegate";
import { agentFolder, readAgentFiles } from "./files";
import type { Delegation } from "./launch";
import { keepTool } from "./narrow";
import { mainAgentGuidance, mainAgentOf, mainAgentTools, startMainAgent } from "./main-agent";
import type { ProjectPlace } from "../../loader/index";
import { agentsOptions } from "./options";
import { agentsFlags } from "./cli";
import { lazyImport } from "../_kits/lazy/index";

// What an Agent call does (the launch, the delegation, background agents, worktrees) and the
// SendMessage tool load when first needed: a call, an `agent` hook, a background agent to wait
// for, or agents to register the tools for. They are imported from their modules, not
// re-exported here (a module this file re-exports loads with the preset whether a run uses it or not).
const launchCode = lazyImport(() => import("./launch"));
const delegateCode = lazyImport(() => import("./delegate"));
const backgroundCode = lazyImport(() => import("./background"));
const sendMessageCode = lazyImport(() => import("./send-message"));

export {
  AGENT_TOOL,
  AGENT_NAME,
  ISOLATIONS,
  AgentTool,
  agentInput,
  describeAgents,
  type AgentInput,
  type Isolation,
} from "./agent-tool";
export { SEND_MESSAGE_TOOL } from "./agent-tool";
export { AgentInbox } from "./inbox";

/** What the hooks plugin runs an `agent` hook with. */
type AgentRunner = Parameters<NonNullable<ReturnType<typeof getHooksApi>>["setAgentRunner"]>[0];
export { parseAgentFile, parseList, type ParsedAgent } from "./parse";
export { readAgentFiles, agentFolder, type AgentFile } from "./files";
export { narrowMode, DEFAULT_AGENT_MAX_TURNS } from "./narrow";

/** The plugin's name (also the owner of the Agent tool). */
export const NAME = "ubiquity:agents";

/** The last section of every subagent's system prompt. */
export const SUBAGENT_NOTE =
  "# Reporting back\nYou are a subagent working on a task delegated by another agent. Your caller sees only your final reply — none of your tool calls or intermediate messages — so end with a complete, self-contained answer that states what you found or did.";

/** What a background agent's prompt adds to the note: messages may come while it works. */
export const BACKGROUND_NOTE =
  "You run in the background: your caller may send you more instructions while you work. They arrive as user messages; take them into account, and still end with one complete reply.";

/** The agent type an `agent` hook runs as. */
export const HOOK_AGENT = "hook-verifier";

/** The definition of an `agent` hook's subagent: read-only tools, the judge's answer format. */
function hookAgent(model: string | undefined): AgentDefinition {
  return {
    description: "Checks a hook's condition",
    prompt: HOOK_JUDGE_INSTRUCTIONS,
    tools: ["Read", "Grep", "Glob"],
    maxTurns: 50,
    ...(model ? { model } : {}),
  };
}

/** What other code can ask the plugin about a kernel. */
export interface AgentsApi {
  /** The configured agents (files and `options.agents`), sorted by name; empty before `kernel.ready`. */
  definitions(): Readonly<Record<string, AgentDefinition>>;
}

const apis = new WeakMap<Kernel, AgentsApi>();

/** The agents plugin's API on a kernel (undefined when the plugin is not loaded). */
export function getAgentsApi(kernel: Kernel): AgentsApi | undefined {
  return apis.get(kernel);
}

function sortedByName<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k]!]),
  );
}

/** What the plugin keeps per run: a subagent's delegation, and whether SubagentStop fired for it. */
interface RunState {
  delegation?: Delegation;
  stopFired?: boolean;
  /** SubagentStart's context went ahead of the first prompt. */
  contextGiven?: boolean;
  /** The run's own signal, taken before a stretch of live work wraps it. */
  base?: AbortSignal;
  /** The run's background agents, by task id. */
  background: BackgroundAgents;
  /** The Agent listing's budget in characters, from the run's context window, and the tool built for it. */
  budget?: number;
  tool?: AgentTool;
}

/**
 * The agent definitions: the agent folders' files (and compat ones), Claude Code plugins' agents, then
 * `options.agents`; `files` names the file each read one came from (for what is said about it).
 */
async function loadAgents(
  kernel: Kernel,
  options: AgentsResolvedOptions,
  files: Map<string, string>,
): Promise<Record<string, AgentDefinition>> {
  const { cwd, trust, agentSources: wanted, compat, claudePlugins } = options;
  const skipped = (path: string) =>
    kernel.logger.debug(`[${NAME}] ${path}: new or changed since its folder was trusted; not read`);
  const agentSources = permittedSources(wanted, trust, (source) => agentFolder(source, cwd, homedir()), skipped);
  const compatFolders = permittedCompatPaths(
    "agents",
    { compat, sources: wanted, trust },
    { cwd, home: homedir() },
    skipped,
  );
  const read = await readAgentFiles(
    agentSources,
    { cwd, home: homedir() },
    (message) => warn(kernel, NAME, message),
    compatFolders,
  );
  const merged: Record<string, AgentDefinition> = {};
  for (const file of read.values()) {
    merged[file.name] = file.definition;
    files.set(file.name, file.path);
  }
  // Claude Code plugins' agents, named `plugin:agent` as Claude Code names them.
  for (const plugin of readPlugins(claudePlugins, cwd, trust, (message) => warnOnce(kernel, NAME, message))) {
    const own = await readAgentFiles(
      [],
      { cwd, home: homedir() },
      (message) => warn(kernel, NAME, message),
      plugin.agentPaths.map((path) => ({ path, source: "user" as const })),
    );
    for (const file of own.values()) {
      merged[`${plugin.name}:${file.name}`] = {
        ...file.definition,
        prompt: expandPluginRoot(file.definition.prompt, plugin.root),
      };
      files.set(`${plugin.name}:${file.name}`, file.path);
    }
  }
  for (const name of Object.keys(kernel.options.agents ?? {})) files.delete(name);
  return sortedByName({ ...merged, ...(kernel.options.agents ?? {}) });
}

/** Claude Code's `agent` hooks: a subagent that may Read, Grep and Glob judges the hook's condition. */
function hookAgentRunner(remember: DelegationContext["remember"]): AgentRunner {
  return async (run, prompt, { model, signal, id }) => {
    const { runSubagent } = await launchCode();
    const output = await runSubagent(
      run,
      HOOK_AGENT,
      hookAgent(model),
      { subagent_type: HOOK_AGENT, prompt, description: "Check a hook's condition" },
      id,
      remember,
      { abortSignal: signal },
    );
    if (output.isError) throw new Error(output.content);
    return output.content;
  };
}

/** A subagent's tools: no nested subagents, and nobody to answer a question (the report goes to the parent). */
function subagentTools(tools: Tool[], delegation: RunState["delegation"]): Tool[] {
  return tools.filter(
    (t) =>
      t.name !== AGENT_TOOL &&
      t.name !== SEND_MESSAGE_TOOL &&
      t.name !== "AskUserQuestion" &&
      keepTool(t.name, delegation?.parentTools, delegation?.definition),
  );
}

/** A subagent's system prompt says it is one (and, in the background, how its messages reach it). */
function withSubagentNote(sections: SystemSection[], run: RunContext): SystemSection[] {
  if (!run.agent) return sections;
  const text = run.input instanceof AgentInbox ? `${SUBAGENT_NOTE}\n${BACKGROUND_NOTE}` : SUBAGENT_NOTE;
  return [...sections, { id: "subagent", text }];
}

/** The agents plugin. */
export const agentsPlugin = definePlugin({
  name: NAME,
  projectFiles: (place: ProjectPlace) =>
    definitionProjectFiles("agents", agentFolder, "defines subagents (their prompts and tools)", place),
  options: agentsOptions,
  flags: agentsFlags,
  runState: (): RunState => ({ background: new Map() }),
  apply(kernel, context) {
    let agents: Record<string, AgentDefinition> = {};
    const stateOf = (run: RunContext): RunState => context.run(run);
    apis.set(kernel, { definitions: () => agents });
    const calls: DelegationContext = {
      kernel,
      remember: (child, d) => void (stateOf(child).delegation = d),
      base: (run) => stateOf(run).base ?? run.abortSignal,
      background: (run) => stateOf(run).background,
      optionsOf: (run) => context.optionsOf(run),
    };

    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      getHooksApi(kernel)?.setAgentRunner(hookAgentRunner(calls.remember));
      const files = new Map<string, string>();
      agents = await loadAgents(kernel, context.options, files);
      if (Object.keys(agents).length === 0) return;
      // Their hooks' scripts and data as the run finds them, not as they are when one launches (red team v, V1).
      // What is said of them names the agent's file (thomasvan's agents write `hooks:` as a flat list).
      for (const [type, definition] of Object.entries(agents))
        if (definition.hooks !== undefined)
          getHooksApi(kernel)?.prepare?.(
            definition.hooks,
            files.has(type) ? `agent ${type} (${files.get(type)})` : `agent ${type}`,
          );
      // Later wins: a plugin after this one that registered an Agent tool of its own keeps it.
      const position = (owner: string) => kernel.plugins.findIndex((p) => p.plugin.name === owner);
      const claimed = kernel.registries.tools.entries().find((e) => e.name === AGENT_TOOL);
      if (claimed && position(claimed.owner) > position(NAME)) return;
      const tool = new AgentTool(agents, launch);
      const { SendMessageTool } = await sendMessageCode();
      kernel.registries.tools.register(AGENT_TOOL, tool, NAME);
      kernel.registries.tools.register(SEND_MESSAGE_TOOL, new SendMessageTool((run) => stateOf(run).background), NAME);
    });

    const launch: Launch = async (input, ctx) => {
      const parent = ctx.run;
      if (!parent)
        return {
          content:
            "Agent failed: the call has no run; call it through a run's tool funnel (runToolCall), which sets ToolContext.run",
          isError: true,
        };
      const { delegate } = await delegateCode();
      return delegate(calls, parent, agents[input.subagent_type]!, input, ctx.toolUseId);
    };

    // The listing's budget follows the run's context window (worked out once per run).
    kernel.hooks.tool.list.tapPromise(NAME, async (tools: Tool[], run) => {
      const registered = tools.find((t): t is AgentTool => t instanceof AgentTool);
      if (!registered || run.agent) return tools;
      const state = stateOf(run);
      state.budget ??= listingBudget((await resolveContextWindow(run, run.modelLabel)).tokens);
      if (state.budget === registered.budget) return tools;
      const own = (state.tool ??= new AgentTool(registered.agents, launch, state.budget));
      return tools.map((t) => (t === registered ? own : t));
    });

    kernel.hooks.tool.list.tap(NAME, (tools: Tool[], run) =>
      run.agent
        ? subagentTools(tools, stateOf(run).delegation)
        : mainAgentTools(tools, mainAgentOf(run, context.optionsOf(run).agent, agents)),
    );

    // The run's signal before any stretch of live work wraps it: background agents follow this
    // one, so a user interrupt of the caller's work leaves them running.
    kernel.hooks.session.start.tapPromise(NAME, async (run) => {
      stateOf(run).base = run.abortSignal;
      await startMainAgent(run, context.optionsOf(run).agent, agents);
      // The init message names the agents the Agent tool offers (claude -p's `agents`).
      const names = Object.keys(agents);
      if (!run.agent && names.length && run.tools.some((t) => t.name === AGENT_TOOL)) run.initExtra.agents = names;
      else if (!run.agent && names.length) warnAgentToolNotOffered(kernel, run, names);
    });

    kernel.hooks.turn.prompt.tap(NAME, (prompt, run) => {
      const state = stateOf(run);
      // SubagentStart's context goes ahead of the task, not of each message SendMessage brings.
      const context =
        run.agent && prompt.source === "user" && !state.contextGiven ? state.delegation?.context : undefined;
      if (run.agent && prompt.source === "user") state.contextGiven = true;
      return context?.length ? { ...prompt, context: [...prompt.context, ...context] } : prompt;
    });

    // SubagentStop may send the subagent back, the way Stop does for the main run. A main run
    // that ends its turn while its background agents work waits for them: what ended becomes
    // its next prompt (the run ends only when none is left running).
    kernel.hooks.turn.stop.tapPromise(NAME, async (info, run) => {
      if (!run.agent) {
        // None started: nothing to wait for (what awaitAgents would find), without loading it.
        const background = stateOf(run).background;
        if (background.size === 0) return undefined;
        const next = await (await backgroundCode()).awaitAgents(run, background);
        return next === undefined ? undefined : { continueWith: next };
      }
      const hooks = getHooksApi(kernel);
      if (!hooks?.has("SubagentStop", run)) return undefined;
      stateOf(run).stopFired = true;
      const outcome = await hooks.fire("SubagentStop", run, {
        message: info.text,
        extra: { stopHookActive: info.continuations > 0, lastAssistantMessage: info.text },
      });
      return outcome.blocked && !outcome.stopped ? { continueWith: outcome.blocked } : undefined;
    });

    // A subagent that failed never reached turn.stop: SubagentStop still fires, to inform.
    kernel.hooks.session.end.tapPromise(NAME, async (run, result) => {
      const hooks = getHooksApi(kernel);
      if (!run.agent || stateOf(run).stopFired || !hooks?.has("SubagentStop")) return;
      await hooks.fire("SubagentStop", run, {
        message: result.result,
        extra: { stopHookActive: false, subtype: result.subtype, lastAssistantMessage: result.result },
      });
    });

    // Last, after `appendSystemPrompt`: a subagent's prompt ends with the note.
    kernel.hooks.turn.system.tap({ name: NAME, order: "last" }, (sections, run) =>
      withSubagentNote(mainAgentGuidance(sections, mainAgentOf(run, context.optionsOf(run).agent, agents)), run),
    );
  },
});

export default agentsPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";

/**
 * Says why the run's agents cannot be called when `allowedTools` left the Agent tool out: a bare
 * name there limits the run to the tools it names. The Claude Agent SDK's `allowedTools` only
 * pre-approves (its tools stay offered), so a program ported from it with `agents` and
 * `allowedTools: ["Read", "Grep"]` lost its subagents (and Bash) without a word.
 */
function warnAgentToolNotOffered(kernel: Kernel, run: RunContext, names: string[]): void {
  // The permissions plugin's option, read through its slice.
  const allowed = readOption(permissionsOptions, run.options, "allowedTools");
  if (!allowed) return;
  const registered = kernel.registries.tools.values().some((t) => t.name === AGENT_TOOL);
  if (!registered || allowed.length === 0 || allowed.includes(AGENT_TOOL) || allowed.includes("Task")) return;
  run.logger.warn(
    `agents ${names.join(", ")} cannot be called: allowedTools (${allowed.join(", ")}) limits the run to the tools it names, and the Agent tool is not one of them. Add "Agent" to allowedTools, or pass the rules as approvedTools, which pre-approves them without taking other tools away (what the Claude Agent SDK's allowedTools means).`,
  );
}
