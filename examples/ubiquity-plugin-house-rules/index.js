/**
 * ubiquity-plugin-house-rules: adds a "House rules" section to the agent's system prompt.
 * Plain ESM with a hand-written index.d.ts, so there is no build step between the source and
 * what npm installs.
 */
import { definePlugin, SYSTEM_STAGE } from "ubiquity/plugin";

/** The plugin's name. A config listing another plugin with this name replaces this one in place. */
export const NAME = "ubiquity-plugin-house-rules";

/** Check the options when the factory is called, so a mistake fails at the config line. */
function checkOptions(options) {
  const rules = options?.rules;
  if (!Array.isArray(rules) || rules.length === 0 || !rules.every((r) => typeof r === "string" && r.trim() !== "")) {
    throw new TypeError(
      `${NAME}: options.rules must be a non-empty array of strings, e.g. { rules: ["Run npm test before you finish"] }`,
    );
  }
  if (options.title !== undefined && (typeof options.title !== "string" || options.title.trim() === "")) {
    throw new TypeError(`${NAME}: options.title must be a non-empty string when given`);
  }
  return { rules: rules.map((r) => r.trim()), title: options.title?.trim() ?? "House rules" };
}

export default definePlugin(function houseRules(options) {
  const { rules, title } = checkOptions(options);
  // Built once: the section is byte-identical on every turn, so prompt caching keeps working.
  const text = [`# ${title}`, "Follow these rules of this repository:", ...rules.map((r) => `- ${r}`)].join("\n");
  return {
    name: NAME,
    apply(kernel) {
      kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections) => [
        ...sections,
        { id: "house-rules", text },
      ]);
    },
  };
});
