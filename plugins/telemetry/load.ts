/**
 * The OpenTelemetry packages, loaded only when telemetry is on: `@opentelemetry/api` (spans,
 * context) and `@ai-sdk/otel` (the AI SDK's own spans). Both are optional peer dependencies, so
 * a run without telemetry never resolves them.
 */
import type * as OtelApi from "@opentelemetry/api";
import type * as AiSdkOtel from "@ai-sdk/otel";
import { UbiquityError } from "../../src/index";

/** What the plugin uses of the two packages. */
export interface OtelModules {
  api: typeof OtelApi;
  OpenTelemetry: typeof AiSdkOtel.OpenTelemetry;
}

/** Telemetry is on but its packages are missing. */
export class TelemetryUnavailableError extends UbiquityError {
  override name = "TelemetryUnavailableError";
}

/** Import the packages (once per caller); a missing one is an error naming the install command. */
export async function loadOtel(): Promise<OtelModules> {
  try {
    const [api, aiOtel] = await Promise.all([import("@opentelemetry/api"), import("@ai-sdk/otel")]);
    return { api, OpenTelemetry: aiOtel.OpenTelemetry };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new TelemetryUnavailableError(
      `telemetry is on but its packages cannot be loaded (${detail}): install them with npm i @opentelemetry/api @ai-sdk/otel, or turn telemetry off`,
    );
  }
}
