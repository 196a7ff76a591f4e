/** `definePreset`: a preset, checked and typed. */
import type { Preset } from "../../../src/index";

/** Define a preset (identity helper that gives types). */
export function definePreset<P extends Preset>(preset: P): P {
  if (typeof preset !== "object" || preset === null || typeof preset.name !== "string" || !preset.name) {
    throw new TypeError("definePreset: a preset needs a non-empty name");
  }
  return preset;
}
