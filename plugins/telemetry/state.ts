/**
 * What every telemetry step shares: the plugin's name, its state slots (the OpenTelemetry modules
 * per kernel, the open spans per run) and the lookups that find a traced run's spans. Read when a
 * hook runs, never during `apply` (apply only taps).
 */
import type { PluginContext, RunContext } from "../../src/index";
import { loadOtel, type OtelModules } from "./load";
import { type TelemetryOptions, type TelemetrySetting, telemetrySetting } from "./options";
import type { RunSpans } from "./spans";

/** The plugin's name: every tap carries it. */
export const NAME = "ubiquity:telemetry";
/** The instrumentation scope of the spans. */
export const TRACER_NAME = "ubiquity";

/** The plugin's per-kernel state. */
export interface KernelState {
  otel?: OtelModules;
  loading?: Promise<OtelModules>;
  /** Runs with spans open, to find a run from a firehose message. */
  runs: Set<RunSpans>;
}

/** The plugin's state in one run: its spans, once the run is traced. */
export interface RunState {
  spans?: RunSpans;
}

/** The context `apply` hands every step. */
export type TelemetryContext = PluginContext<KernelState, RunState, TelemetryOptions>;

/** Now, in epoch milliseconds with sub-millisecond precision (a span's start and end times). */
export const now = () => performance.timeOrigin + performance.now();

/** Telemetry as configured (undefined when off). */
export function settingOf(context: TelemetryContext): TelemetrySetting | undefined {
  return telemetrySetting(context.options);
}

/** The OpenTelemetry modules, loaded once per kernel (the first caller starts the load). */
export function loadModules(context: TelemetryContext): Promise<OtelModules> {
  const state = context.state;
  state.loading ??= loadOtel().then((m) => (state.otel = m));
  return state.loading;
}

/** The spans of `run`, when it is traced. */
export function spansOf(context: TelemetryContext, run: RunContext | undefined): RunSpans | undefined {
  return run ? context.run(run).spans : undefined;
}

/** The run's spans and the modules, when this run is traced. */
export function traced(context: TelemetryContext, run: RunContext): [OtelModules, RunSpans] | undefined {
  const spans = spansOf(context, run);
  const otel = context.state.otel;
  return spans && otel ? [otel, spans] : undefined;
}

/** A model label (`provider:model`, or a bare model) split into its parts. */
export function splitLabel(label: string | null | undefined): { provider?: string; model?: string } {
  if (!label) return {};
  const at = label.indexOf(":");
  return at < 0 ? { model: label } : { provider: label.slice(0, at), model: label.slice(at + 1) };
}

/** One text message in the GenAI conventions' message shape, as a JSON attribute value. */
export const textMessages = (role: string, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify([{ role, parts: [{ type: "text", content: text }], ...extra }]);
