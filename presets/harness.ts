/**
 * For benchmarks and unattended work: the default product plus the opt-in habits of the
 * harnesses that score well — verify before stopping, and stop a loop.
 */
import { definePreset } from "../plugins/_kits/authoring/index";
import verifyBeforeStop from "../plugins/verify-before-stop/index";
import loopDetector from "../plugins/loop-detector/index";
import defaultPreset from "./default";

export default definePreset({
  name: "ubiquity:harness",
  presets: [defaultPreset],
  plugins: [verifyBeforeStop(), loopDetector()],
});
