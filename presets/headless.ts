/** For CI and pipes: the default product, with nothing that prompts. */
import { definePreset } from "../src/index";
import defaultPreset from "./default";

export default definePreset({
  name: "ubiquity:headless",
  presets: [defaultPreset],
  config: { permissionMode: "dontAsk" },
});
