/**
 * The flags of `ubiquity run`, in one table: the runner's own (prompt and output, config and
 * trust, diagnostics) and those the active plugins contribute for the options they own
 * (`plugin.flags`). Each entry is parsed from it, shown by `--help` under its group, and says how
 * it maps to the run's options. Names follow `claude -p` where the meaning is the same (the
 * `claude` column is the README's table).
 */
import { createRequire } from "node:module";
import type { CommandFlag, FlagValue, RunFlag } from "../loader/index";
import type { Plugin } from "../src/plugin";
import { ConfigError, describeError } from "../src/errors";
import { UsageError } from "../loader/index";
import { didYouMean } from "../src/suggest";

// node:util by require, not by import: an ESM import of a builtin reads every export, and
// util's lazy ones load worker_threads, the diff and colour code (~2.5 ms of a cold start).
const { parseArgs } = createRequire(import.meta.url)("node:util") as typeof import("node:util");

export type { RunFlag } from "../loader/index";

/** Where a flag is listed in `--help` (a plugin's flag may name another group: it is listed after these). */
export const FLAG_GROUPS = [
  "Prompt and output",
  "Model",
  "Tools and permissions",
  "Context",
  "Sessions",
  "Config and trust",
  "Diagnostics",
] as const;

/** The parsed flag values, by flag name. */
export type RunValues = Record<string, FlagValue | undefined>;

/** A flag table: flag name → flag. */
export type FlagTable = Record<string, RunFlag>;

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${flag} must be a positive integer, not ${JSON.stringify(value)}`);
  return n;
}

/** The runner's own flags of `ubiquity run`. */
export const RUN_FLAGS: FlagTable = {
  print: {
    type: "boolean",
    short: "p",
    group: "Prompt and output",
    claude: "-p, --print",
    description:
      'Answer the prompt and exit, never asking (as claude -p): text output is the final result only; also `ubiquity -p "prompt"`',
  },
  "output-format": {
    type: "string",
    value: "<format>",
    group: "Prompt and output",
    claude: "--output-format",
    description: "text (default) | json (the result message) | stream-json (one message per line)",
  },
  "input-format": {
    type: "string",
    value: "<format>",
    group: "Prompt and output",
    claude: "--input-format",
    description:
      "text (default) | stream-json: JSON lines of user messages on stdin, run one after another in one session",
  },
  "message-format": {
    type: "string",
    value: "<shape>",
    group: "Prompt and output",
    description:
      "ubiquity (default) | claude: the json and stream-json messages in Claude Code's shape (session_id, is_error, total_cost_usd, assistant message.content…), for scripts written for claude -p | codex: stream-json as codex exec --json's events (thread.started, item.completed, turn.completed); also UBIQUITY_MESSAGE_FORMAT",
  },
  "output-last-message": {
    type: "string",
    short: "o",
    value: "<file>",
    group: "Prompt and output",
    description:
      "Also write the final answer to <file> (empty when the run fails), whatever the output format, as codex exec -o does",
  },
  "replay-user-messages": {
    type: "boolean",
    group: "Prompt and output",
    claude: "--replay-user-messages",
    description: "With --message-format claude: print the user messages too (Ubiquity's own shape always has them)",
  },
  "include-partial-messages": {
    type: "boolean",
    group: "Prompt and output",
    claude: "--include-partial-messages",
    description: "With --output-format stream-json: also the streamed deltas (stream_event messages)",
    apply: (o) => void (o.includePartialMessages = true),
  },
  "max-turns": {
    type: "string",
    value: "<n>",
    group: "Model",
    claude: "--max-turns",
    description: "Stop after n model turns [40]",
    apply: (o, v) => void (o.maxTurns = positiveInteger("max-turns", String(v))),
  },
  cwd: {
    type: "string",
    value: "<dir>",
    group: "Context",
    description: "Working directory (and where the config search starts)",
  },
  config: {
    type: "string",
    value: "<file>",
    group: "Config and trust",
    description: "Config file to load (skips the search)",
  },
  preset: {
    type: "string",
    value: "<name>",
    group: "Config and trust",
    description: "Preset to run: default, minimal, headless, harness, or a module",
  },
  trust: {
    type: "boolean",
    group: "Config and trust",
    description:
      "Apply this folder's own config and settings for this run (not remembered; also UBIQUITY_TRUST=1); without it an untrusted folder's files are skipped or, in a terminal, you are asked once (see `ubiquity trust --help`)",
  },
  verbose: {
    type: "boolean",
    group: "Diagnostics",
    claude: "--verbose",
    description:
      "Print the rest: every assistant text, tool lines and the summary in text output; kernel events, plugin taps and debug logs on stderr",
  },
  help: { type: "boolean", short: "h", group: "Diagnostics", description: "Show this help" },
};

/** The runner's flags plus each plugin's `flags`, in plugin order; two owners of one flag name (or short letter) are a configuration error. */
export function runFlagTable(plugins: readonly Plugin[]): FlagTable {
  const table: FlagTable = { ...RUN_FLAGS };
  const owner = new Map<string, string>(Object.keys(RUN_FLAGS).map((name) => [name, "the runner"]));
  const shorts = new Map<string, string>(
    Object.entries(RUN_FLAGS).flatMap(([name, f]) => (f.short ? [[f.short, name] as [string, string]] : [])),
  );
  for (const plugin of plugins) {
    for (const [name, flag] of Object.entries(plugin.flags ?? {})) {
      const taken = owner.get(name);
      if (taken) throw new ConfigError(`plugin ${plugin.name} adds the run flag --${name}, which ${taken} already has`);
      if (flag.short && shorts.has(flag.short))
        throw new ConfigError(
          `plugin ${plugin.name} adds the run flag -${flag.short}, which --${shorts.get(flag.short)} already uses`,
        );
      owner.set(name, `plugin ${plugin.name}`);
      if (flag.short) shorts.set(flag.short, name);
      table[name] = flag;
    }
  }
  return table;
}

/** The parsed command line of `ubiquity run`. */
export interface ParsedRun {
  values: RunValues;
  positionals: string[];
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Each flag in the spelling its table has: `--allowed-tools` is `--allowedTools` and
 * `--permissionMode` is `--permission-mode`, as `claude` takes both. Stops at `--`.
 */
export function canonicalSpellings(argv: readonly string[], names: readonly string[]): string[] {
  const known = new Set(names);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return [...out, ...argv.slice(i)];
    const m = /^--([^=]+)(=[\s\S]*)?$/.exec(a);
    const name = m?.[1];
    const other =
      name === undefined || known.has(name) ? undefined : [kebab(name), camel(name)].find((n) => known.has(n));
    out.push(other ? `--${other}${m![2] ?? ""}` : a);
  }
  return out;
}

/**
 * Where the first positional argument of `argv` is under a flag table (a string flag's value is
 * not one), or undefined when there is none before `--` (what follows `--` is a prompt by choice).
 * `ubiquity --cwd x sessions list` finds `sessions` at 2.
 */
export function firstPositional(argv: readonly string[], flags: Record<string, CommandFlag>): number | undefined {
  const spelled = canonicalSpellings(argv, Object.keys(flags));
  const shorts = new Map(Object.values(flags).flatMap((f) => (f.short ? [[f.short, f] as const] : [])));
  for (let i = 0; i < spelled.length; i++) {
    const a = spelled[i]!;
    if (a === "--") return undefined;
    if (a.startsWith("--")) {
      if (!a.includes("=") && flags[a.slice(2)]?.type === "string") i++;
    } else if (a.startsWith("-") && a.length > 1) {
      // `-p`, `-pv`: a string flag's value follows when its letter is the last one.
      if (shorts.get(a.at(-1)!)?.type === "string") i++;
    } else return i;
  }
  return undefined;
}

/** The names of the flags in `argv` up to `--`, as written (`--model`, `-p`). */
export function flagsWritten(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end))
    .filter((a) => a.startsWith("-") && a.length > 1)
    .map((a) => a.split("=")[0]!);
}

/**
 * Claude Code's variadic list flags, one value per occurrence: after `--allowedTools Read`, each
 * following bare word the flag's `variadic` accepts (`Grep`, `Bash(git log:*)`) is written as
 * `--allowedTools Grep`, so it is a rule, not part of the prompt. Stops at `--`.
 */
export function spreadVariadic(argv: readonly string[], flags: Record<string, CommandFlag>): string[] {
  const shortNames = new Map(
    Object.entries(flags).flatMap(([name, f]) => (f.short ? [[`-${f.short}`, name] as [string, string]] : [])),
  );
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    out.push(a);
    if (a === "--") return [...out, ...argv.slice(i + 1)];
    const name = a.startsWith("--") ? a.slice(2).split("=")[0]! : shortNames.get(a);
    const flag = name === undefined ? undefined : (flags[name] as RunFlag | undefined);
    if (flag?.type !== "string") continue;
    if (!a.includes("=") && i + 1 < argv.length) out.push(argv[++i]!);
    const more = flag.multiple ? flag.variadic : undefined;
    while (more && i + 1 < argv.length && !argv[i + 1]!.startsWith("-") && more(argv[i + 1]!))
      out.push(`--${name}`, argv[++i]!);
  }
  return out;
}

/**
 * Flags of `claude -p` that `ubiquity run` does not take, each with what to do instead: an
 * unknown-flag error for one of them says so rather than "unknown flag".
 */
export const CLAUDE_ONLY_FLAGS: Record<string, string> = {
  "--debug": "set DEBUG=ubiquity* for the debug log, or pass --verbose",
  "-d": "set DEBUG=ubiquity* for the debug log, or pass --verbose",
  "--debug-file": "set DEBUG=ubiquity* and redirect standard error to the file",
  "--include-hook-events": "pass --verbose: hook activity is printed on standard error",
  "--betas": "set providerOptions in a config file",
  "--bare": 'pass --setting-sources "" (no settings files) and no config',
};

/**
 * Flags of `codex exec` that `ubiquity run` does not take, each with what to do instead (a Codex
 * user's `codex exec -C dir -m gpt-5 --full-auto "…"` becomes `ubiquity -p …`). Codex's `-p`
 * (profile) and `-c` (config override) are ubiquity's print and continue flags: not listed (a
 * `-c key=value` is caught by `codexOverride`).
 */
export const CODEX_EXEC_FLAGS: Record<string, string> = {
  "-C": "pass --cwd <dir>",
  "--cd": "pass --cwd <dir>",
  "-m": 'pass --model <name>: with --compat codex a name without a provider ("gpt-5-mini") runs on ~/.codex/config.toml\'s model_provider, its URL and key, as codex -m does; without it, name the provider ("openai:gpt-5" for codex\'s -m gpt-5)',
  "--full-auto":
    "pass --permission-mode acceptEdits --sandbox (edits in the workspace, and commands in the OS sandbox, run without asking; with acceptEdits alone a command other than mkdir, touch and cp on project files still asks, so with -p it is denied)",
  "-s": "for --sandbox read-only pass --permission-mode plan; for workspace-write pass --sandbox (commands in the OS sandbox run without asking); danger-full-access is --no-sandbox",
  "-a": "for --ask-for-approval never pass --permission-mode dontAsk (with -p nothing asks: what would ask is denied)",
  "--ask-for-approval": "for never pass --permission-mode dontAsk (with -p nothing asks: what would ask is denied)",
  "--dangerously-bypass-approvals-and-sandbox": "pass --dangerously-skip-permissions --no-sandbox",
  // Codex's short name for the flag above.
  "--yolo":
    "pass --dangerously-skip-permissions --no-sandbox (codex's --yolo is --dangerously-bypass-approvals-and-sandbox)",
  "--json":
    "pass --output-format stream-json --message-format codex (codex exec --json's events: thread.started, item.completed, turn.completed; or UBIQUITY_MESSAGE_FORMAT=codex for the whole job)",
  "--skip-git-repo-check": "drop it: ubiquity runs in any folder",
  // `codex exec resume --last "…"` typed after `-p`: the word resume would be the prompt's.
  "--last":
    'codex exec resume --last "…" is ubiquity -p --continue "…" (the latest session), and resume <id> "…" is --resume <id> "…"',
  "--oss": "pass --model ollama:<model> (or --base-url for another local server)",
  "-i": 'name the image in the prompt (the model Reads it: `ubiquity -p "what is in shot.png?"`), or send it as an image part with --input-format stream-json',
  "--image":
    'name the image in the prompt (the model Reads it: `ubiquity -p "what is in shot.png?"`), or send it as an image part with --input-format stream-json',
  "--search":
    "drop it: WebSearch is offered by default where the model's provider searches (see docs/guide/web-tools.md)",
  "--color": "drop it: set NO_COLOR=1 for no colour; output that is not a terminal has none",
  "--ephemeral": "pass --no-session-persistence (no transcript is written, so the session cannot be resumed)",
  "--ignore-user-config":
    "drop it: ~/.codex/config.toml is read only with --compat codex (--setting-sources project,local leaves out ubiquity's own user settings)",
  "--ignore-rules":
    "drop it: codex's execpolicy .rules files are not read (the rules here are --allowedTools, --disallowedTools and the settings files')",
};

/** Codex's `-c key=value` override (`model="o3"`, `sandbox_workspace_write.network_access=true`): one word, a dotted key, `=`. */
const CODEX_OVERRIDE = /^[A-Za-z_][\w-]*(\.[\w-]+)*=\S*$/;

/**
 * `-c`/`--continue` and `--config` followed by a Codex override: here `-c` continues the latest
 * session (the override would be sent as the prompt) and `--config` names a config file.
 */
function codexOverride(argv: string[]): void {
  const end = argv.indexOf("--");
  const at = argv.findIndex(
    (a, i) =>
      (end < 0 || i < end) && ["-c", "--continue", "--config"].includes(a) && CODEX_OVERRIDE.test(argv[i + 1] ?? ""),
  );
  if (at < 0) return;
  const flag = argv[at]!;
  const here =
    flag === "--config" ? "--config names a ubiquity config file" : `${flag} is --continue (the latest session)`;
  throw new UsageError(
    `${flag} ${argv[at + 1]} is a codex config override, which ubiquity does not take: ${here}. Put the setting in ~/.codex/config.toml (read with --compat codex) or pass the run flag for it (--model, --effort, --permission-mode, …); a prompt that starts with key=value goes after --; see \`${RUN_HELP}\``,
  );
}

const RUN_HELP = "ubiquity run --help";

/** `codex exec --sandbox <mode>`: ubiquity's `--sandbox` is a switch, so the mode would start the prompt. */
const CODEX_SANDBOX_MODES: Record<string, string> = {
  "read-only": "pass --permission-mode plan",
  "workspace-write":
    "pass --sandbox alone: it requires the OS sandbox and lets the commands run in it without asking (the default sandbox asks, so with -p a command is denied)",
  "danger-full-access": "pass --no-sandbox",
};

/**
 * The runner's one flag parser (every command's table, `run`'s included): strict, a mistake is a
 * `UsageError` pointing at the command's help. Kebab and camel spellings of a flag are one flag.
 */
export function parseFlags(
  argv: string[],
  flags: Record<string, CommandFlag>,
  { positionals, help }: { positionals: boolean; help: string },
): ParsedRun {
  argv = spreadVariadic(canonicalSpellings(argv, Object.keys(flags)), flags);
  const options = Object.fromEntries(
    Object.entries(flags).map(([name, f]) => [
      name,
      { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) },
    ]),
  );
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: positionals, strict: true });
    return { values: parsed.values as RunValues, positionals: parsed.positionals };
  } catch (error) {
    // Node's own text for an unknown flag suggests `-- "--modle"` (a positional), never the flag that was meant.
    const unknown =
      (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
        ? /^Unknown option '([^']+)'/.exec(describeError(error))?.[1]
        : undefined;
    if (unknown) {
      const near = unknown.startsWith("--")
        ? didYouMean(
            unknown,
            Object.keys(flags).map((name) => `--${name}`),
          )
        : "";
      const claudeOnly = CLAUDE_ONLY_FLAGS[unknown];
      if (claudeOnly)
        throw new UsageError(`${unknown} is a claude -p flag ubiquity does not take: ${claudeOnly}; see \`${help}\``);
      // Only `run` stands for `codex exec`: another command's flags are its own.
      const codexOnly = help === RUN_HELP ? CODEX_EXEC_FLAGS[unknown] : undefined;
      if (codexOnly)
        throw new UsageError(`${unknown} is a codex exec flag ubiquity does not take: ${codexOnly}; see \`${help}\``);
      throw new UsageError(`unknown flag ${unknown}${near}; see \`${help}\``);
    }
    // Node's "Option '-r, --resume <value>' argument missing": the flag's own value name and what it is for.
    const missing = /^Option '(?:-\w, )?--([^' ]+) <value>' argument missing/.exec(describeError(error))?.[1];
    const flag = missing === undefined ? undefined : flags[missing];
    if (flag)
      throw new UsageError(
        `--${missing} needs a value: --${missing} ${flag.value ?? "<value>"} (${flag.description.replace(/\.$/, "")})${missing === "resume" ? "; `ubiquity sessions list` shows the ids, and --continue takes the latest" : ""}; see \`${help}\``,
      );
    throw new UsageError(`${describeError(error).replace(/\.$/, "")}; see \`${help}\``);
  }
}

/** Parse `ubiquity run`'s `argv` against the table. */
export function parseRunArgs(argv: string[], table: FlagTable = RUN_FLAGS): ParsedRun {
  codexOverride(argv);
  const at = argv.findIndex((a, i) => a === "--sandbox" && argv[i + 1]! in CODEX_SANDBOX_MODES);
  const end = argv.indexOf("--");
  if (at >= 0 && (end < 0 || at < end))
    throw new UsageError(
      `--sandbox takes no mode here (it turns the OS sandbox on): for codex's --sandbox ${argv[at + 1]} ${CODEX_SANDBOX_MODES[argv[at + 1]!]}; see \`${RUN_HELP}\``,
    );
  const parsed = parseFlags(argv, table, { positionals: true, help: RUN_HELP });
  codexResume(argv, parsed.positionals);
  codexProfileFlag(argv, parsed.positionals);
  return parsed;
}

/**
 * `codex exec -p <profile> "…"` typed as `ubiquity -p -p fast "…"`: here `-p` is print (a switch),
 * so the profile's name would silently start the prompt and the profile's model would not run. A
 * second `-p` before a name and a prompt is taken for Codex's; a prompt that starts so goes after `--`.
 */
function codexProfileFlag(argv: string[], positionals: string[]): void {
  const end = argv.indexOf("--");
  const words = end < 0 ? argv : argv.slice(0, end);
  const prints = words.flatMap((w, i) => (w === "-p" || w === "--print" ? [i] : []));
  const second = prints[1];
  const name = second === undefined ? undefined : words[second + 1];
  if (name === undefined || !/^[A-Za-z0-9_-]+$/.test(name) || positionals[0] !== name || positionals.length < 2) return;
  throw new UsageError(
    `-p ${name}: -p is print here (as claude -p), given already, so "${name}" would start the prompt; codex exec's -p ${name} (its profile) is --profile ${name} (with --compat codex); a prompt that starts with this word goes after --; see \`${RUN_HELP}\``,
  );
}

/** A session id (Codex's thread ids are UUIDs too). */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `codex exec resume <id> "…"` typed as `ubiquity -p resume <id> "…"`: the words would start a new
 * session with them as its prompt (exit 0, the old session not resumed); a prompt that really
 * starts so goes after `--`.
 */
function codexResume(argv: string[], positionals: string[]): void {
  if (positionals[0] !== "resume" || !SESSION_ID.test(positionals[1] ?? "")) return;
  const end = argv.indexOf("--");
  if (end >= 0 && argv.indexOf("resume") > end) return;
  throw new UsageError(
    `\`resume ${positionals[1]}\` is codex exec's: ${CODEX_EXEC_FLAGS["--last"]}; a prompt that starts with these words goes after --; see \`${RUN_HELP}\``,
  );
}

/** Copy every given flag into `options`, in table order. */
export function applyRunFlags(options: Record<string, unknown>, values: RunValues, table: FlagTable = RUN_FLAGS): void {
  for (const [name, flag] of Object.entries(table)) {
    const value = values[name];
    if (value !== undefined && value !== false && flag.apply) flag.apply(options, value, values);
  }
}

/** `--help` of `ubiquity run`, grouped by purpose. */
export function runUsage(table: FlagTable = RUN_FLAGS): string {
  const left = (name: string, f: RunFlag) =>
    `${f.short ? `-${f.short}, ` : "    "}--${name}${f.value ? ` ${f.value}` : ""}`;
  const width = Math.max(...Object.entries(table).map(([n, f]) => left(n, f).length));
  const lines = [
    "Usage: ubiquity run [flags] [prompt]",
    "       ubiquity -p [flags] [prompt]",
    "       ubiquity chat [flags]         (the terminal mode; also `ubiquity` alone in a terminal)",
    "",
    'Run an agent on the prompt. Piped standard input is sent with it (`git diff | ubiquity run "review this"`),',
    "or is the prompt when none is given. Flags take kebab or camel case alike (--allowed-tools is --allowedTools).",
  ];
  const groups = [...new Set<string>([...FLAG_GROUPS, ...Object.values(table).map((f) => f.group)])];
  for (const group of groups) {
    const flags = Object.entries(table).filter(([, f]) => f.group === group);
    if (flags.length === 0) continue;
    lines.push("", `${group}:`, ...flags.map(([n, f]) => `  ${left(n, f).padEnd(width)}  ${f.description}`));
  }
  lines.push(
    "",
    "Exit codes: 0 success, 1 the run failed (an error result), 2 usage or configuration error, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).",
    "",
  );
  return lines.join("\n");
}

/**
 * The runner's own flags that pick the config and the preset, read leniently from raw argv (the
 * plugins they name decide the rest of the table): `--config`, `--cwd`, `--preset`, `--compat`, `--trust`.
 */
export function prescan(argv: readonly string[]): RunValues {
  const values: RunValues = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a === "--trust") values.trust = true;
    for (const name of ["config", "cwd", "preset", "compat"]) {
      if (a === `--${name}` && i + 1 < argv.length) values[name] = argv[++i];
      else if (a.startsWith(`--${name}=`)) values[name] = a.slice(name.length + 3);
    }
  }
  return values;
}
