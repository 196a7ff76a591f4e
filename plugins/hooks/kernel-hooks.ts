/**
 * What the hooks plugin keeps per kernel, shared by its steps: the hooks in effect (options.hooks
 * and the enabled settings files' command hooks, read at `kernel.configResolved`), the hooks scoped
 * to one run, what runs `agent` hooks, and the verdicts PreToolUse hooks gave each call. `fire`
 * builds an event's input and hands it to the dispatcher, loaded when a configured hook first fires.
 */
import type { Kernel, PluginContext, ResolvedOptions, RunContext, ToolCall } from "../../src/index";
import { maskSecrets, redactText, secretsOfRun } from "../../src/index";
import { lazyImport } from "../_kits/lazy/index";
import { folderTrusted, noteEnvSecrets, noteUrlSecrets, spawnFolder } from "../_kits/process/index";
import { permissionModeOf } from "../permissions/api";
import { getSandboxApi, type SpawnSpec } from "../sandbox/api";
import { getSessionsApi } from "../sessions/api";
import type { HookRunContext } from "./command";
import type { AgentHookRunner } from "./model-hook";
import type { HookEventName, HooksOptions } from "./options";
import type { SessionWatch } from "./watch-events";
import { effectiveHooks, httpPolicyOf, managedGroups, readFileHooks } from "./settings-hooks";
import { pinHookScripts } from "./pins";
import { rememberEnvironmentPaths } from "../../loader/index";
import type { HookInput, HookMatcherGroup, HookOutcome, HooksConfig } from "./types";

/** The plugin's name. */
export const NAME = "ubiquity:hooks";

/** An agent file's `hooks` in the settings-file shape; as in Claude Code, its Stop hooks run at SubagentStop. */
function readScoped(value: unknown, warn: (message: string) => void): HooksConfig {
  const read = readFileHooks(value, warn);
  if (read.Stop) read.SubagentStop = [...(read.SubagentStop ?? []), ...read.Stop];
  delete read.Stop;
  return read;
}

/**
 * The secrets configured hooks carry, registered when they are read rather than at their first
 * call (red team zh, ZH6): an HTTP hook's URL (a Slack webhook's key is its path) and the run's
 * `env`, which hooks and the Bash tool get. Until a Stop hook first ran, the model's Read of the
 * settings file that names it showed the key in the stream and the transcript.
 */
function noteConfiguredSecrets(config: HooksConfig | undefined, env?: Readonly<Record<string, string>>): void {
  noteEnvSecrets(env);
  for (const groups of Object.values(config ?? {}))
    for (const group of groups ?? [])
      for (const hook of group.hooks)
        if (typeof hook === "object" && hook !== null && "url" in hook && typeof hook.url === "string")
          noteUrlSecrets(hook.url);
}

/** The plugin's state in one run. */
export interface RunState {
  /** What SessionStart hooks added, for the first user prompt. */
  sessionContext: string[];
  /** How often a Stop hook sent the model back. */
  stopContinuations: number;
  /** The last stop a Stop hook blocked, and how many in a row it has blocked (reset when one lets the run stop). */
  stopBlocks?: { inARow: number; reason: string };
  /** The files watched for FileChanged and ConfigChange, and the hooks they fired (see watch-events). */
  watch?: SessionWatch;
}

/** The context `apply` hands every step. */
export type HooksContext = PluginContext<undefined, RunState, HooksOptions>;

/** The fields of a hook input that come from the event (the rest come from the run). */
export type HookFields = Partial<Omit<HookInput, "hookEventName">>;

// The dispatcher (command hooks, `if` filters) loads when a configured hook first fires.
const dispatcher = lazyImport(() => import("./dispatch"));

/** One kernel's hooks: those in effect, those scoped to a run, and how they fire. */
export class KernelHooks {
  /** options.hooks, then command hooks from the settings files the caller enabled (read at kernel.configResolved). */
  #effective: HooksConfig | undefined;
  /** Hooks scoped to one run (an agent file's `hooks`), besides the kernel's. */
  readonly #scoped = new WeakMap<RunContext, HooksConfig>();
  /** An agent file's `hooks` as read and pinned when the definitions were loaded (`prepare`), by the value read. */
  readonly #prepared = new WeakMap<object, HooksConfig>();
  /** The resolved options of the kernel's run (`configure`). */
  #options: ResolvedOptions | undefined;
  #agentRunner: AgentHookRunner | undefined;
  /** What the PreToolUse hooks said of a call: for its permission verdict, and the context its result carries. */
  readonly callFlags = new WeakMap<
    ToolCall,
    { approved: boolean; ask: boolean; askReason?: string; context: string[] }
  >();

  constructor(
    readonly kernel: Kernel,
    readonly context: HooksContext,
  ) {}

  /** Read the hooks in effect from the resolved options. */
  configure(options: ResolvedOptions): void {
    this.#options = options;
    const { claudePlugins, trust, hooks } = this.context.optionsOf(options);
    this.#effective = effectiveHooks(this.kernel, hooks, {
      claudePlugins,
      cwd: options.cwd,
      trust,
    });
    // The scripts the hooks run, as trusted now: a hook whose script the run changes is not run (pins.ts).
    const folder = spawnFolder(options.cwd, folderTrusted(options));
    pinHookScripts(this.#effective, folder, trust);
    noteConfiguredSecrets(this.#effective, options.env);
    // What the run's env names in that folder (a preload, a load path) is the hooks' code too,
    // from before the first of them runs (red team p, P2).
    if (this.#effective && Object.keys(this.#effective).length > 0) rememberEnvironmentPaths(options.env, folder);
  }

  /** The run's state. */
  stateOf(run: RunContext): RunState {
    return this.context.run(run);
  }

  /** The hooks for `run`: the kernel's, then its own scoped ones. */
  configFor(run: RunContext): HooksConfig | undefined {
    const own = this.#scoped.get(run);
    if (!own) return this.#effective;
    // The managed policy's groups stay last (ZM2): an agent's or a skill's hook may rewrite the input too.
    const out: Record<string, HookMatcherGroup[]> = {};
    const effective = Object.entries(this.#effective ?? {});
    for (const [event, groups] of effective) out[event] = (groups ?? []).filter((g) => !managedGroups.has(g));
    for (const [event, groups] of Object.entries(own)) (out[event] ??= []).push(...(groups ?? []));
    for (const [event, groups] of effective)
      (out[event] ??= []).push(...(groups ?? []).filter((g) => managedGroups.has(g)));
    return out as HooksConfig;
  }

  /** True when any hook is configured for `event` (for `run`: its scoped hooks count too). */
  has(event: HookEventName, run?: RunContext): boolean {
    return (
      (this.#effective?.[event]?.length ?? 0) > 0 ||
      (run !== undefined && (this.#scoped.get(run)?.[event]?.length ?? 0) > 0)
    );
  }

  /** Hooks for `run` alone, in the settings-file shape; as in Claude Code, an agent's own Stop hooks run when it stops: at SubagentStop. */
  scope(run: RunContext, value: unknown, source: string): void {
    const prepared = typeof value === "object" && value !== null ? this.#prepared.get(value) : undefined;
    if (prepared) return void this.#scoped.set(run, prepared);
    const read = readScoped(value, (message) => run.logger.warn(`[${NAME}] ${source}: ${message}`));
    pinHookScripts(read, spawnFolder(run.cwd, folderTrusted(run.options)), this.context.optionsOf(run.options).trust);
    noteConfiguredSecrets(read);
    this.#scoped.set(run, read);
  }

  /**
   * Read and pin an agent file's `hooks` as they are now, when the definitions are loaded at the
   * run's start (red team v, V1): what the user trusted is the scripts and data as the run found
   * them. Pinned only when the agent launched, a script the model rewrote in between (a Write in
   * acceptEdits asks nothing of an ordinary file) was taken as the trusted code: it ran, and its
   * approval counted. `scope` then uses this reading.
   */
  prepare(value: unknown, source: string): void {
    if (typeof value !== "object" || value === null || this.#prepared.has(value) || !this.#options) return;
    const options = this.#options;
    const read = readScoped(value, (message) => this.kernel.logger.warn(`[${NAME}] ${source}: ${message}`));
    pinHookScripts(read, spawnFolder(options.cwd, folderTrusted(options)), this.context.optionsOf(options).trust);
    noteConfiguredSecrets(read);
    this.#prepared.set(value, read);
  }

  /** Set what runs `agent` hooks. */
  setAgentRunner(runner: AgentHookRunner): void {
    this.#agentRunner = runner;
  }

  /** Fire `event` for `run` with the event's `fields` (and `more` for the hook processes, e.g. SessionStart's env file). */
  fire(
    event: HookEventName,
    run: RunContext,
    fields: HookFields = {},
    more: Pick<HookRunContext, "envFile"> = {},
  ): Promise<HookOutcome> {
    const { kernel, context } = this;
    const input: HookInput = {
      hookEventName: event,
      sessionId: run.sessionId,
      cwd: run.cwd,
      permissionMode: permissionModeOf(run.options),
      ...transcriptOf(kernel, run),
      ...(run.agent ? { agentId: run.agent.agentId, agentType: run.agent.agentType } : {}),
      ...fields,
      extra: fields.extra ?? {},
    };
    // What a hook is handed of what happened (a tool's output, the model's last text, a result,
    // the event's other fields) is masked as a transcript is: a hook that logs its input, or an
    // http hook, would carry a key out. What is about to happen (a tool's input, the prompt) is
    // handed as it is: a guard judges the call that will run.
    const secrets = secretsOfRun(run);
    if (input.toolOutput !== undefined) input.toolOutput = redactText(input.toolOutput, secrets);
    if (input.message !== undefined) input.message = redactText(input.message, secrets);
    input.extra = maskSecrets(input.extra, secrets);
    const wrap = (spec: SpawnSpec, command: string) =>
      getSandboxApi(kernel).wrap(spec, { kind: "hook", subject: command, passFds: true }); // spawned at once (command.ts)
    // After the sandbox's warm-up (under way once the model asks for a command), which the spawn would do again.
    const outcome = Promise.all([dispatcher(), getSandboxApi(kernel).ready()]).then(([{ dispatch }]) =>
      dispatch(this.configFor(run), event, input, {
        cwd: run.cwd,
        signal: run.abortSignal,
        logger: run.logger,
        environment: run.options,
        wrap,
        trusted: folderTrusted(run.options),
        run,
        ...(this.#agentRunner ? { agentRunner: this.#agentRunner } : {}),
        httpPolicy: httpPolicyOf(kernel, context.optionsOf(run)),
        ...more,
      }),
    );
    // What a sandboxed hook left in the workspace that runs code later is removed when it ends.
    return getSandboxApi(kernel).active ? outcome.finally(() => getSandboxApi(kernel).settle("hook")) : outcome;
  }
}

/** Claude Code's transcript_path: where the sessions plugin writes this run's session. */
function transcriptOf(kernel: Kernel, run: RunContext): { transcriptPath?: string } {
  const path = getSessionsApi(kernel)?.transcriptPath(run);
  return path ? { transcriptPath: path } : {};
}

/** A tool call's fields of a hook input. */
export const toolFields = (call: ToolCall) => ({
  toolName: call.toolName,
  toolInput: call.input,
  toolUseId: call.toolUseId,
});
