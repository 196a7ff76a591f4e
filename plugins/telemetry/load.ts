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

/** How a package is imported (a test passes one that fails, as a missing package does). */
export type ImportModule = (id: "@opentelemetry/api" | "@ai-sdk/otel") => Promise<unknown>;

const importModule: ImportModule = (id) =>
  id === "@opentelemetry/api" ? import("@opentelemetry/api") : import("@ai-sdk/otel");

/** Import the packages; a missing one is an error naming the install command. */
export async function loadOtel(load: ImportModule = importModule): Promise<OtelModules> {
  try {
    const [api, aiOtel] = (await Promise.all([load("@opentelemetry/api"), load("@ai-sdk/otel")])) as [
      typeof OtelApi,
      typeof AiSdkOtel,
    ];
    return { api, OpenTelemetry: aiOtel.OpenTelemetry };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new TelemetryUnavailableError(
      `telemetry is on but its packages cannot be loaded (${detail}): install them with npm i @opentelemetry/api @ai-sdk/otel, or turn telemetry off`,
    );
  }
}
