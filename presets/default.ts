/**
 * The default product: every built-in plugin, in canonical order. This file documents the
 * order: a same-name plugin in a config replaces one of these in place; `disable` removes one.
 */
import { definePreset } from "../src/index";
import systemPrompt from "../plugins/system-prompt/index";

export default definePreset({
  name: "ubiquity:default",
  plugins: [
    systemPrompt(),
  ],
});
