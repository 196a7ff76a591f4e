/**
 * Answering an `ask`: the `canUseTool` handler decides. Never a hang: no handler denies with a
 * message saying so, `permissionPromptTimeoutMs` denies on expiry (unset by default — a deadline
 * nobody asked for answers for the user), the run's abort signal ends a pending prompt and
 * interrupts the run, and a handler that throws or returns nonsense denies.
 */
import type { PermissionResult, PermissionVerdict, ToolCall } from "../../src/index";
import { getPermissionsApi } from "./api";
import type {
  CanUseTool,
  CanUseToolContext,
  CanUseToolResult,
  PermissionsResolvedOptions,
  PermissionUpdateRules,
} from "./options";
import { describeError } from "../../src/index";

/** Answer an ask verdict for one call. */
export async function answerAsk(
  verdict: PermissionVerdict,
  call: ToolCall,
  options: PermissionsResolvedOptions,
): Promise<PermissionResult> {
  const why = verdict.message ?? `${call.toolName} needs approval.`;
  if (getPermissionsApi(call.run.kernel).modeOf(call.run) === "dontAsk") {
    return { behavior: "deny", message: `${why} Permission mode dontAsk never prompts, so it was denied.` };
  }
  const handler = options.canUseTool;
  if (!handler) {
    // The narrowest rules that cover the call, when there are: the fix, spelled out.
    const rules = verdict.suggestions ?? [];
    const approve = rules.length
      ? `pre-approve the call with allowedTools (${JSON.stringify(rules)}; on the command line --allowedTools ${JSON.stringify(rules.join(","))})`
      : "pre-approve the call with allowedTools (--allowedTools on the command line)";
    return {
      behavior: "deny",
      message: `${why} No canUseTool handler is configured to ask the user, so it was denied. Pass canUseTool (the interactive runner does), ${approve}, or change permissionMode.`,
    };
  }
  const answer = await prompt(handler, verdict, call, options.permissionPromptTimeoutMs);
  if (answer.behavior !== "allow" || !("updatedPermissions" in answer)) return answer;
  const { updatedPermissions, ...allowed } = answer;
  if (updatedPermissions?.length) remember(updatedPermissions, call);
  return allowed;
}

/**
 * A handler's "always" (`updatedPermissions`): its allow rules join the session's (deny and ask
 * rules still win). The call itself is allowed whatever becomes of them; a rule that does not parse,
 * or an update of another kind, is named and left out.
 */
function remember(updates: readonly (string | PermissionUpdateRules)[], call: ToolCall) {
  const rules: string[] = [];
  for (const update of updates) {
    if (typeof update === "string") rules.push(update);
    else if (update?.type === "addRules" && update.behavior === "allow" && Array.isArray(update.rules))
      for (const r of update.rules) rules.push(r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName);
    else
      call.run.logger.warn(
        `canUseTool's updatedPermissions entry ${JSON.stringify(update)} was left out: only allow rules (strings, or { type: "addRules", behavior: "allow", rules }) are kept`,
      );
  }
  const api = getPermissionsApi(call.run.kernel);
  for (const rule of rules) {
    try {
      api.addRules({ allow: [rule] }, "canUseTool (updatedPermissions)");
    } catch (error) {
      call.run.logger.warn(`canUseTool's updatedPermissions rule was left out: ${describeError(error)}`);
    }
  }
}

function prompt(
  handler: CanUseTool,
  verdict: PermissionVerdict,
  call: ToolCall,
  timeoutMs: number | undefined,
): Promise<CanUseToolResult> {
  const { toolName } = call;
  const runSignal = call.run.abortSignal;
  const controller = new AbortController();
  return new Promise<CanUseToolResult>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const finish = (result: CanUseToolResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      runSignal.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onAbort = () => {
      controller.abort(runSignal.reason);
      finish({
        behavior: "deny",
        message: `The run was aborted while waiting for approval of ${toolName}.`,
        interrupt: true,
      });
    };
    if (runSignal.aborted) return onAbort();
    runSignal.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        controller.abort(new Error(`no answer within ${timeoutMs} ms`));
        finish({
          behavior: "deny",
          message: `Nobody answered the approval prompt for ${toolName} within ${timeoutMs} ms (permissionPromptTimeoutMs), so it was denied.`,
        });
      }, timeoutMs);
    }
    // The handler gets a copy: changing what it was shown must not change what runs.
    const shown = structuredClone(call.input);
    Promise.resolve()
      .then(() => handler(toolName, shown, handlerContext(verdict, call, controller.signal)))
      .then(
        (answer) => finish(checkAnswer(answer, toolName)),
        (error: unknown) =>
          finish({
            behavior: "deny",
            message: `The canUseTool handler failed, so ${toolName} was denied: ${describeError(error)}`,
          }),
      );
  });
}

/**
 * The handler's third argument, with the Claude Agent SDK's names (`toolUseID`, `agentID`) as
 * non-enumerable aliases: a handler ported from that SDK that keys its pending approvals by
 * `options.toolUseID` read `undefined` in JavaScript, so every approval had the same key.
 */
function handlerContext(verdict: PermissionVerdict, call: ToolCall, signal: AbortSignal): CanUseToolContext {
  const agentId = call.run.agent?.agentId;
  const context: CanUseToolContext = {
    signal,
    suggestions: [...(verdict.suggestions ?? [])],
    toolUseId: call.toolUseId,
    ...(agentId !== undefined ? { agentId } : {}),
    ...(verdict.message ? { decisionReason: verdict.message } : {}),
  };
  Object.defineProperty(context, "toolUseID", { value: call.toolUseId, enumerable: false });
  if (agentId !== undefined) Object.defineProperty(context, "agentID", { value: agentId, enumerable: false });
  return context;
}

function checkAnswer(answer: unknown, toolName: string): CanUseToolResult {
  const a = answer as Partial<Record<string, unknown>> | null | undefined;
  if (a?.behavior === "allow") {
    const updated = a.updatedInput;
    const kept = Array.isArray(a.updatedPermissions)
      ? {
          updatedPermissions: a.updatedPermissions as readonly (string | PermissionUpdateRules)[],
        }
      : {};
    if (updated === undefined) return { behavior: "allow", ...kept };
    if (typeof updated === "object" && updated !== null && !Array.isArray(updated))
      return { behavior: "allow", updatedInput: updated as Record<string, unknown>, ...kept };
    return {
      behavior: "deny",
      message: `The canUseTool handler allowed ${toolName} with an updatedInput that is not an object, so it was denied.`,
    };
  }
  if (a?.behavior === "deny") {
    const message = typeof a.message === "string" && a.message ? a.message : `The user denied ${toolName}.`;
    return a.interrupt === true ? { behavior: "deny", message, interrupt: true } : { behavior: "deny", message };
  }
  return {
    behavior: "deny",
    message: `The canUseTool handler returned ${JSON.stringify(answer) ?? String(answer)} for ${toolName}; it must return { behavior: "allow", updatedInput? } or { behavior: "deny", message }. Denied.`,
  };
}
