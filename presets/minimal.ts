/** The smallest useful product: the model, the read-only tools and permissions. */
import { definePreset } from "../plugins/_kits/authoring/index";
import settings from "../plugins/settings/index";
import permissions from "../plugins/permissions/index";
import toolAskUser from "../plugins/tool-ask-user/index";
import model from "../plugins/model/index";
import systemPrompt from "../plugins/system-prompt/index";
import toolRead from "../plugins/tool-read/index";
import toolGlob from "../plugins/tool-glob/index";
import toolGrep from "../plugins/tool-grep/index";

export default definePreset({
  name: "ubiquity:minimal",
  plugins: [settings(), model(), systemPrompt(), permissions(), toolRead(), toolGlob(), toolGrep(), toolAskUser()],
});
