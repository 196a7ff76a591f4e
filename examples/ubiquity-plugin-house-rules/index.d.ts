import type { Plugin } from "ubiquity/plugin";

/** Options of ubiquity-plugin-house-rules. */
export interface HouseRulesOptions {
  /** One line per rule, e.g. "Run npm test before you finish". */
  rules: string[];
  /** Heading of the system-prompt section ["House rules"]. */
  title?: string;
}

/** The plugin's name. */
export declare const NAME: "ubiquity-plugin-house-rules";

/** Adds a "House rules" section to the system prompt (turn.system, SYSTEM_STAGE.FEATURES). */
declare const houseRules: (options?: HouseRulesOptions) => Plugin;
export default houseRules;
