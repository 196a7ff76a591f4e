/**
 * The telemetry plugin's taps, registered whatever the options and inert until telemetry is on:
 * the span code (span-steps.ts) loads at `kernel.ready` when `telemetry` is set (or at the first run's
 * start, for a kernel whose `ready` was not awaited), with the OpenTelemetry modules, so a run
 * without telemetry loads neither (issue 40). Taps that open spans run first on their hook, taps
 * that read outcomes last; a waterfall's value passes through untouched while telemetry is off.
 */
import type { CompactState, Kernel, RunContext } from "../../src/index";
import { lazyImport } from "../_kits/lazy/index";
import { loadModules, NAME, settingOf, type TelemetryContext } from "./state";

const steps = lazyImport(() => import("./span-steps"));

/** Tap the run, its turns, its model calls, its compactions and its tool calls. */
export function tapTelemetry(kernel: Kernel, context: TelemetryContext): void {
  // Set once telemetry is on: every tap but the run's start reads it and does nothing without it.
  let on: Awaited<ReturnType<typeof steps>> | undefined;
  const load = async () => {
    await loadModules(context);
    return (on = await steps());
  };
  // The run: load at ready, open at start (first), the prompt (last), close at end.
  kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
    if (settingOf(context)) await load();
  });
  kernel.hooks.session.start.tapPromise({ name: NAME, order: "first" }, async (run) => {
    if (settingOf(context)) await (on ?? (await load())).openRunSpan(context, run);
  });
  kernel.hooks.session.end.tapPromise(NAME, async (run, result) => on?.closeRunSpan(context, run, result));
  kernel.hooks.turn.prompt.tap({ name: NAME, order: "last" }, (prompt, run) =>
    on ? on.keepPrompt(context, prompt, run) : prompt,
  );
  // The turn: `turn.system` (first) to `turn.end`.
  kernel.hooks.turn.system.tap({ name: NAME, order: "first" }, (sections, run) =>
    on ? on.openTurnSpan(context, sections, run) : sections,
  );
  kernel.hooks.turn.end.tap(NAME, (info, run) => on?.closeTurnSpan(context, info, run));
  // A model call: its request (last), its errors (first), its response (last).
  kernel.hooks.model.request.tap({ name: NAME, order: "last" }, (request, run) =>
    on ? on.traceRequest(context, request, run) : request,
  );
  kernel.hooks.model.error.tap({ name: NAME, order: "first" }, (info, run) => on?.recordModelError(context, info, run));
  kernel.hooks.model.response.tap({ name: NAME, order: "last" }, (response, run) =>
    on?.closeModelSpan(context, response, run),
  );
  // Compaction: `context.compact` first, between the micro and summary tiers and last, then `context.compacted`.
  const tierDone = (compact: CompactState, run: RunContext) => (on ? on.markTiers(context, compact, run) : compact);
  kernel.hooks.context.compact.tap({ name: NAME, order: "first" }, tierDone);
  kernel.hooks.context.compact.tap(
    { name: NAME, after: "ubiquity:compaction-micro", before: "ubiquity:compaction-summarize" },
    tierDone,
  );
  kernel.hooks.context.compact.tap({ name: NAME, order: "last" }, (compact, run) =>
    on ? on.settleSummary(context, compact, run) : compact,
  );
  kernel.hooks.context.compacted.tap(NAME, (info, run) => on?.closeCompactionSpan(context, info, run));
  // A tool call: its start (first), its verdict (last), its denial, its result on the firehose.
  kernel.hooks.tool.beforeCall.tap({ name: NAME, order: "first" }, (before, call) =>
    on ? on.openToolSpan(context, before, call) : before,
  );
  kernel.hooks.tool.permission.tap({ name: NAME, order: "last" }, (verdict, call) =>
    on ? on.recordVerdict(context, verdict, call) : verdict,
  );
  kernel.hooks.tool.denied.tap(NAME, (denial, call) => on?.recordDenial(context, denial, call));
  kernel.hooks.event.tap(NAME, (event, run) => on?.closeToolSpan(context, event, run));
}
