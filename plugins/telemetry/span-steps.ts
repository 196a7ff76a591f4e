/**
 * What the telemetry taps do once telemetry is on: the span modules' steps, in one module that
 * taps.ts imports at `kernel.ready` when `telemetry` is set (issue 40). Nothing imports it
 * statically, so a run without telemetry never loads the span code.
 */
export { markTiers, settleSummary, closeCompactionSpan } from "./compaction-span";
export { traceRequest, recordModelError, closeModelSpan } from "./model-span";
export { openRunSpan, closeRunSpan, keepPrompt } from "./run-span";
export { openToolSpan, recordVerdict, recordDenial, closeToolSpan } from "./tool-span";
export { openTurnSpan, closeTurnSpan } from "./turn-span";
