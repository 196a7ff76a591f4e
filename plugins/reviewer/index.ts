/**
 * `ubiquity:reviewer`: auto-review. A call the permission engine would ask about because nothing
 * covers it (its `mode` step) goes to a reviewer — a model, a command or a function — instead of a
 * person, in permission mode `auto` (the run's own model reviews unless `reviewer` says) or in any
 * mode when `reviewer` is set. What it never answers: deny rules (they deny before any ask), the
 * user's ask rules, writes to sensitive files, a tool's or a hook's own question (those still go
 * to the person), plan mode (read-only) and the sandbox (it applies to what runs). Fail closed: an
 * error, a timeout or an answer that is not a decision denies. Limits per session: calls, cost
 * (model reviewers are charged to the run, so the spending cap counts them), and denials in a row
 * — past any of them the person is asked, or, with nobody to ask, the run stops. Every decision is
 * a `system/permission_review` message, in the stream and the transcript.
 */
import { ASK_STAGE, describeError, type PermissionResult, type RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { getPermissionsApi } from "../permissions/api";
import { lazyImport } from "../_kits/lazy/index";
import { reviewerOptions, type ReviewerOption } from "./options";
import "./messages";

// The review's own code (reviewers.ts, request.ts, api.ts) is not re-exported: it loads when a call
// is first reviewed (reviewer-steps.ts). Code in the repository imports it from its modules.
export type { ReviewRequest, ReviewDecision, ReviewFunction } from "./api";
export type { SystemPermissionReviewMessage } from "./messages";

const steps = lazyImport(() => import("./reviewer-steps"));

/** The plugin's name. */
export const NAME = "ubiquity:reviewer";

/** Between PermissionRequest hooks (which answer first) and the person's handler. */
const REVIEW_TAP = { name: NAME, stage: ASK_STAGE.HANDLER, before: "ubiquity:permissions" };

/** The limits' defaults. */
export const REVIEW_DEFAULTS = Object.freeze({ timeoutMs: 60_000, maxCalls: 200, maxConsecutiveDenials: 3 });

/** What one session's reviewing has used. */
interface SessionState {
  calls: number;
  costUsd: number;
  consecutiveDenials: number;
}

function limitsOf(option: ReviewerOption | undefined) {
  const own =
    typeof option === "object" && option !== null
      ? (option as { timeoutMs?: number; maxCalls?: number; maxCostUsd?: number; maxConsecutiveDenials?: number })
      : {};
  return {
    ...REVIEW_DEFAULTS,
    ...Object.fromEntries(
      Object.entries(own).filter(
        ([k, v]) => v !== undefined && ["timeoutMs", "maxCalls", "maxCostUsd", "maxConsecutiveDenials"].includes(k),
      ),
    ),
  } as {
    timeoutMs: number;
    maxCalls: number;
    maxCostUsd?: number;
    maxConsecutiveDenials: number;
  };
}

const topOf = (run: RunContext): RunContext => (run.parent ? topOf(run.parent) : run);

/** The reviewer plugin. */
export const reviewerPlugin = definePlugin({
  name: NAME,
  options: reviewerOptions,
  runState: (): SessionState => ({ calls: 0, costUsd: 0, consecutiveDenials: 0 }),
  apply(kernel, context) {
    const stateOf = (run: RunContext): SessionState => context.run(topOf(run));
    kernel.hooks.tool.ask.tapPromise(REVIEW_TAP, async (verdict, call): Promise<PermissionResult | undefined> => {
      const options = context.optionsOf(call.run);
      const permissions = getPermissionsApi(kernel);
      if (permissions.modeOf(call.run) !== "auto" && options.reviewer === undefined) return undefined;
      // Only what nothing covers: the user's ask rules, sensitive files, a tool's or a hook's own question stay the person's.
      if (verdict.decidedBy !== "ubiquity:permissions" || permissions.askStepOf(call) !== "mode") return undefined;
      const state = stateOf(call.run);
      const limits = limitsOf(options.reviewer);
      const { review, reviewerOf, reviewRequestOf } = await steps();
      const who = reviewerOf(options.reviewer);
      // Past a limit the person decides; with nobody to ask, the run stops rather than go on unreviewed.
      const escalate = (why: string): PermissionResult | undefined =>
        options.canUseTool
          ? undefined
          : {
              behavior: "deny",
              message: `${why}, and no canUseTool handler can ask the user, so ${call.toolName} was denied and the run stops.`,
              interrupt: true,
            };
      if (state.consecutiveDenials >= limits.maxConsecutiveDenials)
        return escalate(
          `The reviewer denied ${state.consecutiveDenials} calls in a row (maxConsecutiveDenials ${limits.maxConsecutiveDenials})`,
        );
      if (state.calls >= limits.maxCalls)
        return escalate(`The reviewer has answered ${state.calls} calls this session (maxCalls ${limits.maxCalls})`);
      if (limits.maxCostUsd !== undefined && state.costUsd >= limits.maxCostUsd)
        return escalate(
          `Reviewing has cost $${state.costUsd.toFixed(4)} this session (maxCostUsd ${limits.maxCostUsd})`,
        );
      state.calls++;
      const costBefore = call.run.totalCostUsd ?? 0;
      const timeout = AbortSignal.timeout(limits.timeoutMs);
      const signal = AbortSignal.any([call.run.abortSignal, timeout]);
      let decision: { behavior: "allow" | "deny"; reason?: string; failed?: boolean };
      try {
        const expired = new Promise<never>((_, reject) =>
          signal.addEventListener(
            "abort",
            () =>
              reject(new Error(timeout.aborted ? `no decision within ${limits.timeoutMs} ms` : "the run was aborted")),
            { once: true },
          ),
        );
        decision = await Promise.race([review(who, reviewRequestOf(call, verdict), call.run, signal), expired]);
      } catch (error) {
        decision = {
          behavior: "deny",
          reason: `the reviewer (${who.label}) gave no decision: ${describeError(error)}`,
          failed: true,
        };
      }
      state.costUsd += Math.max(0, (call.run.totalCostUsd ?? 0) - costBefore);
      call.run.emit({
        type: "system",
        subtype: "permission_review",
        toolName: call.toolName,
        toolUseId: call.toolUseId,
        decision: decision.behavior,
        ...(decision.reason ? { reason: decision.reason } : {}),
        reviewer: who.label,
        ...(decision.failed ? { failed: true } : {}),
      });
      if (call.run.abortSignal.aborted)
        return {
          behavior: "deny",
          message: `The run was aborted while ${call.toolName} was being reviewed.`,
          interrupt: true,
        };
      if (decision.behavior === "allow") {
        state.consecutiveDenials = 0;
        return { behavior: "allow" };
      }
      state.consecutiveDenials++;
      return {
        behavior: "deny",
        message: `The reviewer denied ${call.toolName}${decision.reason ? `: ${decision.reason}` : ""}. Do it another way, or tell the user what you need and why.`,
      };
    });
  },
});

export default reviewerPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
