/**
 * The events of a tool call: PreToolUse before it runs (may rewrite its input, block it, approve
 * it or ask for it), the permission verdict those answers adjust, Notification and
 * PermissionRequest when it needs approval, PermissionDenied when it was denied, and
 * PostToolUse / PostToolUseFailure after it ran (may add to its output).
 */
import {
  ASK_STAGE,
  PERMISSION_STAGE,
  type BeforeCall,
  type Kernel,
  type PermissionDenial,
  type PermissionResult,
  type PermissionVerdict,
  type ToolCall,
  type ToolOutput,
} from "../../src/index";
import { type KernelHooks, NAME, toolFields } from "./kernel-hooks";
import type { HookEventName } from "./options";

/** Tap the call's start, its verdict (observe stage), its ask (before any handler), its denial and its end. */
export function tapToolEvents(kernel: Kernel, hooks: KernelHooks): void {
  kernel.hooks.tool.beforeCall.tapPromise(NAME, (state, call) => firePreToolUse(hooks, state, call));
  kernel.hooks.tool.permission.tap({ name: NAME, stage: PERMISSION_STAGE.OBSERVE }, (verdict, call) =>
    adjustVerdict(hooks, verdict, call),
  );
  kernel.hooks.tool.ask.tapPromise({ name: NAME, stage: ASK_STAGE.BEFORE_HANDLER }, (verdict, call) =>
    firePermissionRequest(hooks, verdict, call),
  );
  kernel.hooks.tool.denied.tapPromise(NAME, (denial, call) => firePermissionDenied(hooks, denial, call));
  kernel.hooks.tool.afterCall.tapPromise(NAME, (output, call) => firePostToolUse(hooks, output, call));
}

/** PreToolUse: the hooks' input, block and stop take effect now; their approve and ask wait for the verdict. */
export async function firePreToolUse(hooks: KernelHooks, state: BeforeCall, call: ToolCall): Promise<BeforeCall> {
  if (!hooks.has("PreToolUse", call.run)) return state;
  const outcome = await hooks.fire("PreToolUse", call.run, { ...toolFields(call), toolInput: state.input });
  hooks.callFlags.set(call, {
    approved: outcome.approved,
    ask: outcome.ask,
    ...(outcome.askReason ? { askReason: outcome.askReason } : {}),
    context: outcome.context,
  });
  if (outcome.stopped) call.run.interrupted = outcome.stopped;
  const input = outcome.input ?? state.input;
  // Claude Code's PreToolUse additionalContext reaches the model with the call: after a block's reason, or
  // (firePostToolUse) after the tool's output.
  return outcome.blocked ? { input, block: withContext(outcome.blocked, outcome.context) } : { ...state, input };
}

/**
 * After the permission rules: a hook's approve answers an ask the permission mode raised, never a
 * firm one (an ask rule's, a sensitive path's: Claude Code's hook allow skips neither); its ask
 * turns an allow into an ask.
 */
export function adjustVerdict(hooks: KernelHooks, verdict: PermissionVerdict, call: ToolCall): PermissionVerdict {
  const flags = hooks.callFlags.get(call);
  if (!flags || call.toolName === "AskUserQuestion") return verdict;
  if (flags.approved && verdict.behavior === "ask" && verdict.firm !== true)
    return { behavior: "allow", rule: "PreToolUse hook", decidedBy: NAME };
  if (flags.ask && verdict.behavior === "allow")
    return {
      behavior: "ask",
      // Quoted (control characters escaped) and bounded: the hook's words, shown as the hook's.
      message: `A PreToolUse hook asks for approval of ${call.toolName}${flags.askReason ? `: ${JSON.stringify(flags.askReason.slice(0, 500))}.` : "."}`,
      decidedBy: NAME,
    };
  return verdict;
}

/**
 * Before any handler is consulted (stage below the permission plugin's default 0): a Notification
 * that the call needs approval, then PermissionRequest, whose hooks may answer it.
 */
export async function firePermissionRequest(
  hooks: KernelHooks,
  verdict: PermissionVerdict,
  call: ToolCall,
): Promise<PermissionResult | undefined> {
  if (hooks.has("Notification", call.run)) {
    // Nobody can answer without a handler (unless a PermissionRequest hook does): say so, as the original did.
    const willBeDenied = !hooks.context.optionsOf(call.run).canUseTool && !hooks.has("PermissionRequest", call.run);
    const message = verdict.message ?? `${call.toolName} needs approval`;
    await hooks.fire("Notification", call.run, {
      ...toolFields(call),
      message: willBeDenied
        ? `${message.replace(/[.\s]*$/, ".")} No canUseTool handler is configured, so it will be denied.`
        : message,
      extra: { reason: "permission_required", notificationType: "permission_prompt", willBeDenied },
    });
  }
  if (!hooks.has("PermissionRequest", call.run)) return undefined;
  const outcome = await hooks.fire("PermissionRequest", call.run, {
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
}

/** PermissionDenied: the hooks hear why. */
export async function firePermissionDenied(
  hooks: KernelHooks,
  denial: PermissionDenial,
  call: ToolCall,
): Promise<void> {
  if (hooks.has("PermissionDenied", call.run))
    await hooks.fire("PermissionDenied", call.run, { ...toolFields(call), message: denial.message });
}

/** PostToolUse (PostToolUseFailure for an error): what the hooks add (their context, a block's reason) follows the output. */
export async function firePostToolUse(hooks: KernelHooks, output: ToolOutput, call: ToolCall): Promise<ToolOutput> {
  const event: HookEventName = output.isError ? "PostToolUseFailure" : "PostToolUse";
  const before = hooks.callFlags.get(call)?.context ?? [];
  if (before.length) output = { ...output, content: withContext(output.content, before) };
  if (!hooks.has(event)) return output;
  const outcome = await hooks.fire(event, call.run, {
    ...toolFields(call),
    toolOutput: output.content,
    extra: { isError: output.isError === true },
  });
  if (outcome.stopped) call.run.interrupted = outcome.stopped;
  const extra = [...outcome.context, ...(outcome.blocked && !outcome.stopped ? [outcome.blocked] : [])];
  return extra.length ? { ...output, content: `${output.content}\n\n${extra.join("\n\n")}` } : output;
}

/** `text`, then each hook's context after a blank line. */
function withContext(text: string, context: readonly string[]): string {
  return context.length ? `${text}\n\n${context.join("\n\n")}` : text;
}
