/**
 * `ubiquity:telemetry`: OpenTelemetry spans for a run, in the GenAI semantic conventions. With
 * `telemetry: true` (the global tracer provider) or `telemetry: { tracer }`, each run is an
 * `invoke_agent` span (a subagent's nests under its Agent tool call's span), each turn a `turn`
 * span, each model call a `chat` span with the AI SDK's own spans inside it, each tool call an
 * `execute_tool` span (duration, permission verdict, error) and each compaction a `compact` span,
 * with token and cost attributes. Content (prompts, outputs, tool inputs and results) is recorded
 * only with `recordContent: true`, and always redacted. Nothing of OpenTelemetry is imported
 * unless telemetry is on: the packages load when the kernel gets ready.
 */
import { definePlugin } from "../_kits/authoring/index";
import { telemetryOptions } from "./options";
import { type KernelState, NAME, type RunState } from "./state";
import { tapTelemetry } from "./taps";

export { NAME, TRACER_NAME } from "./state";

/** The telemetry plugin. */
export const telemetryPlugin = definePlugin({
  name: NAME,
  options: telemetryOptions,
  state: (): KernelState => ({ runs: new Set() }),
  runState: (): RunState => ({}),
  // The taps (taps.ts) are inert until telemetry is on; the span code loads then (issue 40).
  apply(kernel, context) {
    tapTelemetry(kernel, context);
  },
});

export default telemetryPlugin;
export { loadOtel, TelemetryUnavailableError, type ImportModule } from "./load";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
