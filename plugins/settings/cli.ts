/** What the settings plugin adds to the `ubiquity` runner: `run --setting-sources`, `--settings`, `--compat` and `--profile`. */
import { describeError } from "../../src/index";
import { parseCompatFlag } from "../_kits/sources/index";
import { describeJsonError, readRegularFileSync, rememberRunConfigFile, UsageError } from "../../loader/index";
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
  // A switcher's whole setup in one flag (`ubiquity -p --compat claude` for `claude -p`): the
  // project's files still apply only as its trust lets them, as with `compat` in a config.
  compat: {
    type: "string",
    value: "<tools>",
    group: "Config and trust",
    description:
      "Read Claude Code's or Codex's files too: claude, codex or claude,codex (CLAUDE.md, .claude/, AGENTS.md, ~/.codex/…; the compat option)",
    apply: (o, v) => void (o.compat = parseCompatFlag(String(v))),
  },
  // codex --profile <name>: Codex's own flag, for the same file (ubiquity's -p is print, as claude's).
  profile: {
    type: "string",
    value: "<name>",
    group: "Config and trust",
    description:
      "With --compat codex: Codex's profile to apply (its model, model_provider, approval_policy…), as codex --profile: ~/.codex/<name>.config.toml over config.toml, else its [profiles.<name>] table",
    apply: (o, v) => void (o.codexProfile = String(v)),
  },
  settings: {
    type: "string",
    value: "<file|json>",
    group: "Config and trust",
    claude: "--settings",
    description: "Claude Code settings (a JSON file or the JSON itself) applied above every settings file",
    // A path is the caller's, from where the command was typed (not --cwd), and read here: what the
    // run gets is its contents, so only the command line's file is the caller's own (a path in a
    // project's config is that project's file, and applies only as trust lets it).
    apply: (o, v) => {
      const spec = String(v);
      const file = !spec.trim().startsWith("{");
      let text = spec;
      if (file) {
        const read = readRegularFileSync(spec, 1024 * 1024);
        if (!read.ok)
          throw new UsageError(
            read.missing ? `--settings ${spec}: no such file` : `--settings ${spec}: ${read.problem}`,
          );
        text = read.text;
        // The next start with the same command line reads it again: kept out of the agent's reach.
        rememberRunConfigFile(spec);
      }
      let data: unknown;
      try {
        data = JSON.parse(text) as unknown;
      } catch (error) {
        throw new UsageError(
          `--settings${file ? ` ${spec}` : ""}: not valid JSON (${file ? describeJsonError(error, text) : describeError(error)})`,
        );
      }
      if (typeof data !== "object" || data === null || Array.isArray(data))
        throw new UsageError(`--settings${file ? ` ${spec}` : ""}: not a JSON object`);
      o.settings = data;
    },
  },
};
