/** What the settings plugin adds to the `ubiquity` runner: `run --setting-sources` and `--settings`. */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describeError } from "../../src/index";
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
  settings: {
    type: "string",
    value: "<file|json>",
    group: "Config and trust",
    claude: "--settings",
    description: "Claude Code settings (a JSON file or the JSON itself) applied above every settings file",
    // A path is the caller's, from where the command was typed (not --cwd); inline JSON is parsed here, so a typo is exit 2.
    apply: (o, v) => {
      const spec = String(v);
      if (!spec.trim().startsWith("{")) {
        if (!existsSync(spec)) throw new UsageError(`--settings ${spec}: no such file`);
        o.settings = resolve(spec);
        return;
      }
      try {
        o.settings = JSON.parse(spec) as unknown;
      } catch (error) {
        throw new UsageError(`--settings: not valid JSON (${describeError(error)})`);
      }
    },
  },
};
