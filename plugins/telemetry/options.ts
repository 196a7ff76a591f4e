/** The options the telemetry plugin reads: whether spans are emitted, to which tracer, and whether they carry content. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { Tracer } from "@opentelemetry/api";
import type { ResolvedOptions } from "../../src/index";

const tracer = z.custom<Tracer>(
  (v) => typeof v === "object" && v !== null && typeof (v as { startSpan?: unknown }).startSpan === "function",
  {
    message: 'expected an @opentelemetry/api Tracer, e.g. trace.getTracer("my-app")',
  },
);

/** The telemetry plugin's slice of the config schema. */
export const telemetryOptions = lazyOptions(["telemetry"], () => ({
  telemetry: z
    .union([
      z.boolean(),
      z.strictObject({
        tracer: tracer
          .optional()
          .describe("The @opentelemetry/api Tracer to emit spans with (default: the global tracer provider's)"),
        recordContent: z
          .boolean()
          .optional()
          .describe(
            "Put prompts, outputs, tool inputs and results on the spans (redacted); off by default: they may hold secrets",
          ),
      }),
    ])
    .optional()
    .describe(
      "OpenTelemetry spans per run, turn, model call, tool call and compaction (true: the global tracer provider; needs @opentelemetry/api and @ai-sdk/otel)",
    ),
}));
export type TelemetryOptions = z.input<typeof telemetryOptions>;
export type TelemetryResolvedOptions = ResolvedOptions & Readonly<TelemetryOptions>;

/** The setting in one shape: undefined when telemetry is off. */
export interface TelemetrySetting {
  tracer?: Tracer;
  recordContent: boolean;
}

/** Read `telemetry` (true, an object, or off). */
export function telemetrySetting(options: TelemetryOptions): TelemetrySetting | undefined {
  const value = options.telemetry;
  if (value === undefined || value === false) return undefined;
  if (value === true) return { recordContent: false };
  return { tracer: value.tracer, recordContent: value.recordContent === true };
}
