/** For CI and pipes: the default product, with nothing that prompts. */
import { definePreset } from "../plugins/_kits/authoring/index";
import defaultPreset from "./default";

export default definePreset({
  name: "ubiquity:headless",
  presets: [defaultPreset],
  config: { permissionMode: "dontAsk" },
});
