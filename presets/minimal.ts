/** The smallest useful product: the model, the read-only tools and permissions. */
import { definePreset } from "../src/index";
import systemPrompt from "../plugins/system-prompt/index";

export default definePreset({
  name: "ubiquity:minimal",
  plugins: [
    systemPrompt(),
  ],
});
