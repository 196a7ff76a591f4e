/**
 * Model-judged hooks (Claude Code's `type: "prompt"` and `type: "agent"`), on any model: the
 * hook's prompt, with `$ARGUMENTS` replaced by the hook input as JSON (appended when absent), is
 * answered by one model call (`prompt`) or by a subagent that may Read, Grep and Glob (`agent`,
 * run by the agents plugin). The answer is `{"ok": true}` or `{"ok": false, "reason": "..."}`;
 * `ok: false` blocks as a command hook's exit 2 does. The model is the hook's `model` (an alias or
 * `provider:model`; a Claude tier no alias maps is the run's own), else the run's. Its tokens and
 * cost are the run's. No answer, an answer that is not such JSON, or a timeout is a logged,
 * non-blocking error, as for command hooks.
 */
import { callModel, describeError, modelLabel, requestedModel, resolveModel, type RunContext } from "../../src/index";
import { randomUUID } from "node:crypto";
import { fileModel, modelAliasesOf } from "../model/index";
import { commandPayload } from "./command";
import type { HookInput, HookOutput, ModelHook } from "./types";
import { HOOK_JUDGE_INSTRUCTIONS } from "./judge";

/** Seconds a hook may take, as in Claude Code. */
const DEFAULT_TIMEOUT_S = { prompt: 30, agent: 60 } as const;

/**
 * Runs an `agent` hook: a subagent (Read, Grep, Glob) on `prompt`; resolves to its final reply.
 * `id` is the tool-use id the subagent must run under (its `agent.parentToolUseId`).
 */
export type AgentHookRunner = (
  run: RunContext,
  prompt: string,
  options: { model?: string; signal: AbortSignal; id: string },
) => Promise<string>;

/**
 * The ids agent hooks' subagents run under while they run: random, made here, so no agent the
 * model starts (an agent of the user's named like the judge's type included) passes for one.
 */
export const hookAgentIds = new Set<string>();

/** The hook's prompt with the input in place of `$ARGUMENTS` (or after it). */
export function hookPrompt(hook: ModelHook, input: HookInput): string {
  const json = JSON.stringify(commandPayload(input));
  return hook.prompt.includes("$ARGUMENTS") ? hook.prompt.replaceAll("$ARGUMENTS", json) : `${hook.prompt}\n\n${json}`;
}

/**
 * A judge's reply read as a hook output: `{"ok": false}` (or a legacy `"decision": "block"`) blocks,
 * `{"ok": true}` lets the action go on; an error message when it is neither.
 *
 * Red-team fix: a judge is a condition, never a permission. Its answer is only ever read for
 * `ok` (a command hook's other fields — `permissionDecision: "allow"`, `updatedInput`,
 * `continue` — would let a judge talked round by the very input it judges approve or rewrite the
 * call). And every JSON object of the reply is read, not the text from its first `{` to its last
 * `}`: a reply that quotes the input's `{"ok": true}` before its own `{"ok": false}` still blocks
 * (any `ok: false` wins: a guard stays on).
 */
export function readVerdict(text: string): (HookOutput & { ask?: boolean }) | string {
  const objects = jsonObjects(text.length > 32_768 ? text.slice(-32_768) : text); // the verdict ends a reply; the scan stays bounded
  if (objects.length === 0) return `its answer is not a JSON object: ${JSON.stringify(text.slice(0, 120))}`;
  const verdicts = objects.filter((o) => typeof o.ok === "boolean" || o.decision === "block");
  if (verdicts.length === 0) return 'its answer has no "ok"';
  const no = verdicts.find((o) => o.ok === false || (o.ok === undefined && o.decision === "block"));
  if (no)
    return {
      decision: "block",
      reason: typeof no.reason === "string" && no.reason.trim() ? no.reason : "The hook's condition was not met.",
    };
  return {};
}

/** The JSON objects written in `text`, outermost first, in order (a brace inside a JSON string is text). */
function jsonObjects(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = text.indexOf("{"); i >= 0 && i < text.length; ) {
    let depth = 0;
    let inString = false;
    let end = -1;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (inString) {
        if (c === "\\") j++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        end = j;
        break;
      }
    }
    let parsed: unknown;
    try {
      parsed = end < 0 ? undefined : JSON.parse(text.slice(i, end + 1));
    } catch {
      parsed = undefined;
    }
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      out.push(parsed as Record<string, unknown>);
      i = text.indexOf("{", end + 1);
    } else i = text.indexOf("{", i + 1);
  }
  return out;
}

/** What a model hook needs from the run. */
export interface ModelHookContext {
  run: RunContext;
  agentRunner?: AgentHookRunner;
}

/** Run one prompt or agent hook. Never throws. */
export async function runModelHook(
  hook: ModelHook,
  input: HookInput,
  { run, agentRunner }: ModelHookContext,
): Promise<(HookOutput & { ask?: boolean }) | undefined> {
  const label = `${input.hookEventName} ${hook.type} hook`;
  // Red-team fix: a timer takes at most 2^31-1 ms (24.8 days); more fires at once, a guard turned into a no-op.
  const timeoutMs = Math.min((hook.timeout ?? DEFAULT_TIMEOUT_S[hook.type]) * 1000, 2_147_483_647);
  const controller = new AbortController();
  const abort = () => controller.abort();
  run.abortSignal.addEventListener("abort", abort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">(
    (resolve) => (timer = setTimeout(() => (controller.abort(), resolve("timeout")), timeoutMs)),
  );
  try {
    const model = fileModel(hook.model, modelAliasesOf(run.options));
    const prompt = hookPrompt(hook, input);
    let answer: Promise<string>;
    if (hook.type === "agent") {
      if (!agentRunner) {
        run.logger.warn(
          `${label} was skipped: agent hooks need the agents plugin (ubiquity:agents), which this kernel does not have`,
        );
        return undefined;
      }
      const id = `hook_${randomUUID()}`;
      hookAgentIds.add(id);
      answer = agentRunner(run, prompt, { ...(model ? { model } : {}), signal: controller.signal, id });
      // Until the subagent has really ended (a timeout does not wait for it), it is the hook's own.
      answer.then(
        () => hookAgentIds.delete(id),
        () => hookAgentIds.delete(id),
      );
    } else answer = judge(run, model, prompt);
    const text = await Promise.race([answer, timedOut]);
    if (text === "timeout") {
      answer.catch(() => {}); // settles later; nobody waits for it
      run.logger.warn(`${label} timed out after ${timeoutMs / 1000}s; it was ignored`);
      return undefined;
    }
    const verdict = readVerdict(text);
    if (typeof verdict === "string") {
      run.logger.warn(`${label}: ${verdict}; it was ignored`);
      return undefined;
    }
    return verdict;
  } catch (error) {
    run.logger.warn(`${label} failed (${describeError(error)}); it was ignored`);
    return undefined;
  } finally {
    clearTimeout(timer);
    run.abortSignal.removeEventListener("abort", abort);
  }
}

/** One model call, charged to the run (purpose `hook`). */
async function judge(run: RunContext, wanted: string | undefined, prompt: string): Promise<string> {
  const own = requestedModel(run.options);
  const model =
    wanted !== undefined
      ? await resolveModel(run, wanted, "subagent")
      : (run.model ?? (own !== undefined ? await resolveModel(run, own, "main") : undefined));
  if (!model) throw new Error("the run has no model to judge with; set the hook's model");
  const { response } = await callModel(
    run,
    {
      model,
      modelLabel: modelLabel(model, run.kernel),
      instructions: HOOK_JUDGE_INSTRUCTIONS,
      messages: [{ role: "user", content: prompt }],
      maxOutputTokens: 1024,
    },
    { purpose: "hook" },
  );
  return response.text;
}
