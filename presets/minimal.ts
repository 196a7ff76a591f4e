/** The smallest useful product: the model, the read-only tools and permissions. */
import { definePreset } from "../src/index";
import model from "../plugins/model/index";
import systemPrompt from "../plugins/system-prompt/index";
import toolRead from "../plugins/tool-read/index";
import toolGlob from "../plugins/tool-glob/index";
import toolGrep from "../plugins/tool-grep/index";

export default definePreset({
  name: "ubiquity:minimal",
  plugins: [
    model(),
    systemPrompt(),
    toolRead(),
    toolGlob(),
    toolGrep(),
  ],
});
