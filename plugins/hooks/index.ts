/**
 * `ubiquity:hooks`: the user-facing hook events of `options.hooks` (for SDK users), mapped onto
 * the kernel's hooks (for plugin authors). Other plugins fire the events they own
 * (SubagentStart/Stop, PreCompact/PostCompact) through `getHooksApi(kernel).fire()`.
 */
import {
  PERMISSION_STAGE,
  ASK_STAGE,
  SYSTEM_STAGE,
  type Kernel,
  type RunContext,
  type ToolCall,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { folderTrusted } from "../_kits/process/index";
import { HOOK_EVENTS, type HookEventName, hooksOptions } from "./options";
import { getSandboxApi, type SpawnSpec } from "../sandbox/api";
import { lazyImport } from "../_kits/lazy/index";
import { effectiveHooks, httpPolicyOf, readFileHooks } from "./settings-hooks";
import type { HookRunContext } from "./command";
import type { AgentHookRunner } from "./model-hook";
import { SessionEnvFiles } from "./env-file";
import { readEnvFiles, setSessionScript } from "../_kits/process/index";
import type { HookInput, HookOutcome, HooksConfig } from "./types";
import { getSessionsApi } from "../sessions/api";
import { permissionModeOf } from "../permissions/api";

export { HOOK_EVENTS };
export type * from "./types";
export { matches } from "./matcher";
export { commandPayload, parseCommandOutput } from "./command";
export { HOOK_JUDGE_INSTRUCTIONS, hookPrompt, readVerdict, type AgentHookRunner } from "./model-hook";
export { urlAllowed, interpolateHeader, type HttpHookPolicy } from "./http";

export const NAME = "ubiquity:hooks";

/** What other plugins use to fire the events they own. */
export interface HooksApi {
  /** Fire `event` for `run`; resolves to the combined outcome (blocked, context, ...). */
  fire(event: HookEventName, run: RunContext, fields?: Partial<Omit<HookInput, "hookEventName">>): Promise<HookOutcome>;
  /** True when any hook is configured for `event` (for `run`: its scoped hooks count too). */
  has(event: HookEventName, run?: RunContext): boolean;
  /**
   * Hooks for `run` alone, in the settings-file shape read entry by entry (an agent file's
   * `hooks`; its `Stop` hooks run at SubagentStop); `source` names it in warnings.
   */
  scope(run: RunContext, hooks: unknown, source: string): void;
  /** Set what runs `agent` hooks (the agents plugin does, with a subagent that may Read, Grep and Glob). */
  setAgentRunner(runner: AgentHookRunner): void;
}

const apis = new WeakMap<Kernel, HooksApi>();

// The dispatcher (command hooks, `if` filters) loads when a configured hook first fires.
const dispatcher = lazyImport(() => import("./dispatch"));

/** The hooks plugin's API on a kernel (undefined when the plugin is not loaded). */
export function getHooksApi(kernel: Kernel): HooksApi | undefined {
  return apis.get(kernel);
}

interface RunState {
  sessionContext: string[];
  stopContinuations: number;
}

/** The hooks plugin. */
export const hooksPlugin = definePlugin({
  name: NAME,
  options: hooksOptions,
  runState: (): RunState => ({ sessionContext: [], stopContinuations: 0 }),
  apply(kernel, context) {
    // options.hooks, then command hooks from the settings files the caller enabled (read at kernel.config).
    let effective: HooksConfig | undefined;
    kernel.hooks.kernel.configResolved.tap(NAME, (options) => {
      const { claudePlugins, trust } = context.optionsOf(options);
      effective = effectiveHooks(kernel, options.hooks as HooksConfig | undefined, {
        claudePlugins,
        cwd: options.cwd,
        trust,
      });
    });
    const config = () => effective;
    const stateOf = (run: RunContext): RunState => context.run(run);
    const callFlags = new WeakMap<ToolCall, { approved: boolean; ask: boolean }>();
    // Hooks scoped to one run (an agent file's `hooks`), besides the kernel's.
    const scoped = new WeakMap<RunContext, HooksConfig>();
    const configFor = (run: RunContext): HooksConfig | undefined => {
      const own = scoped.get(run);
      if (!own) return config();
      const out: Record<string, unknown[]> = {};
      for (const source of [config() ?? {}, own])
        for (const [event, groups] of Object.entries(source)) (out[event] ??= []).push(...(groups ?? []));
      return out as HooksConfig;
    };
    const has = (event: HookEventName, run?: RunContext) =>
      (config()?.[event]?.length ?? 0) > 0 || (run !== undefined && (scoped.get(run)?.[event]?.length ?? 0) > 0);
    let agentRunner: AgentHookRunner | undefined;
    const fire: HooksApi["fire"] = (event, run, fields = {}) => fireWith(event, run, fields);
    const fireWith = (
      event: HookEventName,
      run: RunContext,
      fields: Partial<Omit<HookInput, "hookEventName">>,
      more: Pick<HookRunContext, "envFile"> = {},
    ) => {
      const input: HookInput = {
        hookEventName: event,
        sessionId: run.sessionId,
        cwd: run.cwd,
        permissionMode: permissionModeOf(run.options),
        ...transcriptOf(run),
        ...(run.agent ? { agentId: run.agent.agentId, agentType: run.agent.agentType } : {}),
        ...fields,
        extra: fields.extra ?? {},
      };
      const wrap = (spec: SpawnSpec, command: string) =>
        getSandboxApi(kernel).wrap(spec, { kind: "hook", subject: command });
      const outcome = dispatcher().then(({ dispatch }) =>
        dispatch(configFor(run), event, input, {
          cwd: run.cwd,
          signal: run.abortSignal,
          logger: run.logger,
          environment: run.options,
          wrap,
          trusted: folderTrusted(run.options),
          run,
          ...(agentRunner ? { agentRunner } : {}),
          httpPolicy: httpPolicyOf(kernel, context.optionsOf(run)),
          ...more,
        }),
      );
      // What a sandboxed hook left in the workspace that runs code later is removed when it ends.
      return getSandboxApi(kernel).active ? outcome.finally(() => getSandboxApi(kernel).settle("hook")) : outcome;
    };
    const scope: HooksApi["scope"] = (run, value, source) => {
      const read = readFileHooks(value, (message) => run.logger.warn(`[${NAME}] ${source}: ${message}`));
      // As in Claude Code, an agent's own Stop hooks run when it stops: at SubagentStop.
      if (read.Stop) read.SubagentStop = [...(read.SubagentStop ?? []), ...read.Stop];
      delete read.Stop;
      scoped.set(run, read);
    };
    apis.set(kernel, { fire, has, scope, setAgentRunner: (runner) => void (agentRunner = runner) });
    // Claude Code's transcript_path: where the sessions plugin writes this run's session.
    function transcriptOf(run: RunContext): { transcriptPath?: string } {
      const path = getSessionsApi(kernel)?.transcriptPath(run);
      return path ? { transcriptPath: path } : {};
    }

    const toolFields = (call: ToolCall) => ({
      toolName: call.toolName,
      toolInput: call.input,
      toolUseId: call.toolUseId,
    });

    kernel.hooks.session.start.tapPromise(NAME, async (run) => {
      if (run.agent || !has("SessionStart")) return;
      const source =
        context.optionsOf(run).resume || context.optionsOf(run).continueConversation ? "resume" : "startup";
      // CLAUDE_ENV_FILE: each hook gets a file of its own; what they wrote runs ahead of every Bash command.
      const files = new SessionEnvFiles(getSandboxApi(kernel));
      try {
        const outcome = await fireWith(
          "SessionStart",
          run,
          { extra: { source } },
          { envFile: (contained) => files.next(contained) },
        );
        stateOf(run).sessionContext.push(...outcome.context);
        setSessionScript(
          run,
          readEnvFiles(files.hostPaths, (problem) =>
            run.logger.warn(`SessionStart hook's CLAUDE_ENV_FILE: ${problem}`),
          ),
        );
      } finally {
        files.remove();
      }
    });

    kernel.hooks.turn.prompt.tapPromise(NAME, async (prompt, run) => {
      if (prompt.source !== "user" || run.agent) return prompt;
      const state = stateOf(run);
      const context = [...prompt.context, ...state.sessionContext];
      state.sessionContext = [];
      if (!has("UserPromptSubmit", run)) return { ...prompt, context };
      const outcome = await fire("UserPromptSubmit", run, { prompt: prompt.text });
      return {
        ...prompt,
        context: [...context, ...outcome.context],
        ...(outcome.blocked ? { blocked: outcome.blocked } : {}),
      };
    });

    kernel.hooks.tool.beforeCall.tapPromise(NAME, async (state, call) => {
      if (!has("PreToolUse", call.run)) return state;
      const outcome = await fire("PreToolUse", call.run, { ...toolFields(call), toolInput: state.input });
      callFlags.set(call, { approved: outcome.approved, ask: outcome.ask });
      if (outcome.stopped) call.run.interrupted = outcome.stopped;
      const input = outcome.input ?? state.input;
      return outcome.blocked ? { input, block: outcome.blocked } : { ...state, input };
    });

    // After the permission rules: a hook's approve answers an ask; its ask turns an allow into an ask.
    kernel.hooks.tool.permission.tap({ name: NAME, stage: PERMISSION_STAGE.OBSERVE }, (verdict, call) => {
      const flags = callFlags.get(call);
      if (!flags || call.toolName === "AskUserQuestion") return verdict;
      if (flags.approved && verdict.behavior === "ask")
        return { behavior: "allow", rule: "PreToolUse hook", decidedBy: NAME };
      if (flags.ask && verdict.behavior === "allow")
        return {
          behavior: "ask",
          message: `A PreToolUse hook asks for approval of ${call.toolName}.`,
          decidedBy: NAME,
        };
      return verdict;
    });

    // Before any handler is consulted (stage below the permission plugin's default 0).
    kernel.hooks.tool.ask.tapPromise({ name: NAME, stage: ASK_STAGE.BEFORE_HANDLER }, async (verdict, call) => {
      if (has("Notification", call.run)) {
        // Nobody can answer without a handler (unless a PermissionRequest hook does): say so, as the original did.
        const willBeDenied = !context.optionsOf(call.run).canUseTool && !has("PermissionRequest", call.run);
        const message = verdict.message ?? `${call.toolName} needs approval`;
        await fire("Notification", call.run, {
          ...toolFields(call),
          message: willBeDenied
            ? `${message.replace(/[.\s]*$/, ".")} No canUseTool handler is configured, so it will be denied.`
            : message,
          extra: { reason: "permission_required", notificationType: "permission_prompt", willBeDenied },
        });
      }
      if (!has("PermissionRequest", call.run)) return undefined;
      const outcome = await fire("PermissionRequest", call.run, {
        ...toolFields(call),
        message: verdict.message,
        extra: { suggestions: verdict.suggestions ?? [] },
      });
      if (outcome.blocked)
        return { behavior: "deny", message: outcome.blocked, ...(outcome.stopped ? { interrupt: true } : {}) };
      if (outcome.approved)
        return {
          behavior: "allow",
          ...(outcome.input && outcome.input !== call.input ? { updatedInput: outcome.input } : {}),
        };
      return undefined;
    });

    kernel.hooks.tool.denied.tapPromise(NAME, async (denial, call) => {
      if (has("PermissionDenied", call.run))
        await fire("PermissionDenied", call.run, { ...toolFields(call), message: denial.message });
    });

    kernel.hooks.tool.afterCall.tapPromise(NAME, async (output, call) => {
      const event: HookEventName = output.isError ? "PostToolUseFailure" : "PostToolUse";
      if (!has(event)) return output;
      const outcome = await fire(event, call.run, {
        ...toolFields(call),
        toolOutput: output.content,
        extra: { isError: output.isError === true },
      });
      if (outcome.stopped) call.run.interrupted = outcome.stopped;
      const extra = [...outcome.context, ...(outcome.blocked && !outcome.stopped ? [outcome.blocked] : [])];
      return extra.length ? { ...output, content: `${output.content}\n\n${extra.join("\n\n")}` } : output;
    });

    kernel.hooks.turn.stop.tapPromise(NAME, async (info, run) => {
      if (run.agent || !has("Stop")) return undefined;
      const outcome = await fire("Stop", run, {
        message: info.text,
        extra: { stopHookActive: info.continuations > 0 },
      });
      if (outcome.blocked && !outcome.stopped) {
        stateOf(run).stopContinuations++;
        return { continueWith: outcome.blocked };
      }
      return undefined;
    });

    kernel.hooks.session.end.tapPromise(NAME, async (run, result) => {
      if (run.agent) return;
      const reason =
        result.subtype === "error_max_turns"
          ? "max_turns"
          : result.subtype === "error_during_execution" || result.subtype === "error_configuration"
            ? "error"
            : stateOf(run).stopContinuations > 0
              ? "stopped"
              : undefined;
      if (reason && has("Notification"))
        await fire("Notification", run, { message: result.result, extra: { reason, notificationType: reason } });
      if (has("SessionEnd"))
        await fire("SessionEnd", run, { message: result.result, extra: { reason: result.subtype } });
    });

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections) => {
      const configured = HOOK_EVENTS.some((e) => has(e));
      if (!configured) return sections;
      return [
        ...sections,
        {
          id: "hooks",
          text: "# Hooks\nHooks configured by the user watch this run. A tool call may be blocked or its input adjusted by them; when a call is blocked, the reason comes from the user's configuration — follow it rather than working around it.",
        },
      ];
    });
  },
});

export default hooksPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
