/** What the settings plugin adds to the `ubiquity` runner: `run --setting-sources`. */
import { UsageError } from "../../loader/index";
import type { RunFlag } from "../../loader/index";
import { SETTING_SOURCES } from "./schema";

/** `run --setting-sources`. */
export const settingsFlags: Record<string, RunFlag> = {
  "setting-sources": {
    type: "string",
    value: "<list>",
    group: "Context",
    claude: "--setting-sources",
    description: 'Which settings files apply: user,project,local (default: all three; "" for none)',
    apply: (o, v) => {
      const sources = String(v)
        .split(/[,\s]+/)
        .filter(Boolean);
      for (const s of sources) {
        if (!(SETTING_SOURCES as readonly string[]).includes(s))
          throw new UsageError(
            `--setting-sources must be one of ${SETTING_SOURCES.join(", ")}, not ${JSON.stringify(s)}`,
          );
      }
      o.settingSources = sources;
    },
  },
};
