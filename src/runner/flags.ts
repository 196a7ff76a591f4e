/**
 * The flags of `ubiquity run`, in one table: each entry is parsed from it, shown by `--help`
 * under its group, and says how it maps to the run's options. Names follow `claude -p` where the
 * meaning is the same (the `claude` column is the README's table).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { PERMISSION_MODES, type PermissionMode, type UbiquityConfig } from "../facade";
import { describeError, UsageError } from "../errors";
import { parseMcpConfig } from "../facade";

/** Where a flag is listed in `--help`. */
export const FLAG_GROUPS = ["Prompt and output", "Model", "Tools and permissions", "Context", "Sessions", "Config and trust", "Diagnostics"] as const;
export type FlagGroup = (typeof FLAG_GROUPS)[number];

/** The parsed flag values, by flag name. */
export type RunValues = Record<string, string | boolean | string[] | undefined>;

/** One flag of `ubiquity run`. */
export interface RunFlag {
  type: "string" | "boolean";
  short?: string;
  /** The value's placeholder in help, e.g. `<file>`. */
  value?: string;
  /** Repeatable: every occurrence counts. */
  multiple?: boolean;
  group: FlagGroup;
  description: string;
  /** The `claude -p` flag of the same meaning (for the README's table); omitted when it has none. */
  claude?: string;
  /** Copy the flag's value into the run's options (flags win over the config file). */
  apply?(options: UbiquityConfig, value: string | boolean | string[]): void;
}

const list = (value: string | boolean | string[]): string[] => (Array.isArray(value) ? value : [String(value)]);

/**
 * Split permission rules given on the command line: commas or spaces separate rules, except
 * inside parentheses (`Bash(git log:*)` is one rule; so is `Bash(npm run build, test)`).
 */
export function splitRules(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (const ch of value) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current) out.push(current);
        current = "";
        continue;
      }
      current += ch;
    }
    if (depth > 0) throw new UsageError(`unbalanced parenthesis in the rule ${JSON.stringify(current)}; write rules as Tool or Tool(content)`);
    if (current) out.push(current);
  }
  return out;
}

const append = (key: "allowedTools" | "disallowedTools" | "askTools" | "additionalDirectories", values: string[]) => (options: UbiquityConfig) => {
  options[key] = [...(options[key] ?? []), ...values];
};

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer, not ${JSON.stringify(value)}`);
  return n;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
  return value as T;
}

const SETTING_SOURCES = ["user", "project", "local"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--mcp-config`: a `.mcp.json`-shaped file (the user's own: trust does not apply), or the JSON itself. */
function readMcpConfig(spec: string) {
  const inline = spec.trim().startsWith("{");
  const source = inline ? "--mcp-config" : resolve(spec);
  let text = spec;
  if (!inline) {
    try {
      text = readFileSync(source, "utf8");
    } catch (error) {
      throw new UsageError(`--mcp-config ${spec}: cannot read the file (${describeError(error)})`);
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--mcp-config ${inline ? "" : `${source}: `}not valid JSON (${describeError(error)})`);
  }
  return parseMcpConfig(data, { source });
}

/** Every flag of `ubiquity run`. A new flag is one entry here. */
export const RUN_FLAGS: Record<string, RunFlag> = {
  print: { type: "boolean", short: "p", group: "Prompt and output", claude: "-p, --print", description: "Answer the prompt and exit (never the terminal mode); also `ubiquity -p \"prompt\"`" },
  "output-format": { type: "string", value: "<format>", group: "Prompt and output", claude: "--output-format", description: "text (default) | json (the result message) | stream-json (one message per line)" },
  "input-format": { type: "string", value: "<format>", group: "Prompt and output", claude: "--input-format", description: "text (default) | stream-json: JSON lines of user messages on stdin, run one after another in one session" },
  "include-partial-messages": {
    type: "boolean",
    group: "Prompt and output",
    claude: "--include-partial-messages",
    description: "With --output-format stream-json: also the streamed deltas (stream_event messages)",
    apply: (o) => void (o.includePartialMessages = true),
  },
  model: { type: "string", value: "<model>", group: "Model", claude: "--model", description: '"provider:model", an alias, or "test" (the offline model)', apply: (o, v) => void (o.model = String(v)) },
  "fallback-model": { type: "string", value: "<model>", group: "Model", claude: "--fallback-model", description: "The model to fall back to when the main one fails", apply: (o, v) => void (o.fallbackModel = String(v)) },
  "max-turns": { type: "string", value: "<n>", group: "Model", claude: "--max-turns", description: "Stop after n model turns [40]", apply: (o, v) => void (o.maxTurns = positiveInteger("max-turns", String(v))) },
  "system-prompt": { type: "string", value: "<text>", group: "Model", claude: "--system-prompt", description: "Replace the system prompt", apply: (o, v) => void (o.systemPrompt = String(v)) },
  "append-system-prompt": { type: "string", value: "<text>", group: "Model", claude: "--append-system-prompt", description: "Add text at the end of the system prompt", apply: (o, v) => void (o.appendSystemPrompt = String(v)) },
  "permission-mode": {
    type: "string",
    value: "<mode>",
    group: "Tools and permissions",
    claude: "--permission-mode",
    description: PERMISSION_MODES.join(" | "),
    apply: (o, v) => void (o.permissionMode = oneOf<PermissionMode>("permission-mode", String(v), PERMISSION_MODES)),
  },
  allowedTools: { type: "string", value: "<rules>", multiple: true, group: "Tools and permissions", claude: "--allowedTools", description: 'Rules that run without asking: "Read,Bash(git log:*)" (comma or space separated; repeatable)', apply: (o, v) => append("allowedTools", splitRules(list(v)))(o) },
  disallowedTools: { type: "string", value: "<rules>", multiple: true, group: "Tools and permissions", claude: "--disallowedTools", description: "Rules that are always denied (same form)", apply: (o, v) => append("disallowedTools", splitRules(list(v)))(o) },
  askTools: { type: "string", value: "<rules>", multiple: true, group: "Tools and permissions", description: "Rules that always ask, even when another rule allows (same form)", apply: (o, v) => append("askTools", splitRules(list(v)))(o) },
  "mcp-config": {
    type: "string",
    value: "<file>",
    multiple: true,
    group: "Tools and permissions",
    claude: "--mcp-config",
    description: "MCP servers from a .mcp.json-shaped file (or its JSON); repeatable",
    apply: (o, v) => void (o.mcpServers = Object.assign({ ...o.mcpServers }, ...list(v).map(readMcpConfig))),
  },
  sandbox: {
    type: "boolean",
    group: "Tools and permissions",
    description: "Run Bash, command hooks and stdio MCP servers in the OS sandbox (see `ubiquity sandbox check`)",
    apply: (o) => void (o.sandbox = typeof o.sandbox === "object" ? { ...o.sandbox, enabled: true } : true),
  },
  cwd: { type: "string", value: "<dir>", group: "Context", description: "Working directory (and where the config search starts)" },
  "add-dir": { type: "string", value: "<dir>", multiple: true, group: "Context", claude: "--add-dir", description: "Another directory the tools may use; repeatable", apply: (o, v) => append("additionalDirectories", list(v).map((d) => resolve(d)))(o) },
  "setting-sources": {
    type: "string",
    value: "<list>",
    group: "Context",
    claude: "--setting-sources",
    description: "Which settings files apply: user,project,local (default: all three; \"\" for none)",
    apply: (o, v) => void (o.settingSources = splitRules([String(v)]).map((s) => oneOf("setting-sources", s, SETTING_SOURCES))),
  },
  continue: { type: "boolean", short: "c", group: "Sessions", claude: "-c, --continue", description: "Continue the latest session of the working directory", apply: (o) => void (o.continueConversation = true) },
  resume: { type: "string", short: "r", value: "<id>", group: "Sessions", claude: "-r, --resume", description: "Continue a stored session (on its model unless --model is given)", apply: (o, v) => void (o.resume = String(v)) },
  "fork-session": { type: "boolean", group: "Sessions", claude: "--fork-session", description: "With --resume or --continue: continue in a new session, leaving the stored one as it was", apply: (o) => void (o.forkSession = true) },
  "session-id": {
    type: "string",
    value: "<uuid>",
    group: "Sessions",
    claude: "--session-id",
    description: "The id of the new session (a UUID)",
    apply: (o, v) => {
      if (!UUID.test(String(v))) throw new UsageError(`--session-id must be a UUID (like 3f2b8c1e-0d4a-4e8b-9c1f-2a6d7e8f9b0c), not ${JSON.stringify(v)}`);
      o.sessionId = String(v).toLowerCase();
    },
  },
  "no-session-persistence": { type: "boolean", group: "Sessions", claude: "--no-session-persistence", description: "Write no transcript (the session cannot be resumed)", apply: (o) => void (o.persistSession = false) },
  config: { type: "string", value: "<file>", group: "Config and trust", description: "Config file to load (skips the search)" },
  preset: { type: "string", value: "<name>", group: "Config and trust", description: "Preset to run: default, minimal, headless, or a module" },
  trust: {
    type: "boolean",
    group: "Config and trust",
    description: "Apply this folder's own config and settings for this run (not remembered; also UBIQUITY_TRUST=1); without it an untrusted folder's files are skipped or, in a terminal, you are asked once (see `ubiquity trust --help`)",
  },
  verbose: { type: "boolean", group: "Diagnostics", claude: "--verbose", description: "Print kernel events, plugin taps and debug logs to stderr" },
  help: { type: "boolean", short: "h", group: "Diagnostics", description: "Show this help" },
};

/** The parsed command line of `ubiquity run`. */
export interface ParsedRun {
  values: RunValues;
  positionals: string[];
}

/** Parse `argv` against the table; a mistake is a `UsageError` pointing at the help. */
export function parseRunArgs(argv: string[]): ParsedRun {
  const options = Object.fromEntries(
    Object.entries(RUN_FLAGS).map(([name, f]) => [name, { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) }]),
  );
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: parsed.values as RunValues, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(`${describeError(error).replace(/\.$/, "")}; see \`ubiquity run --help\``);
  }
}

/** Copy every given flag into `options`, in table order. */
export function applyRunFlags(options: UbiquityConfig, values: RunValues): void {
  for (const [name, flag] of Object.entries(RUN_FLAGS)) {
    const value = values[name];
    if (value !== undefined && value !== false && flag.apply) flag.apply(options, value);
  }
}

/** `--help` of `ubiquity run`, grouped by purpose. */
export function runUsage(): string {
  const left = (name: string, f: RunFlag) => `${f.short ? `-${f.short}, ` : "    "}--${name}${f.value ? ` ${f.value}` : ""}`;
  const width = Math.max(...Object.entries(RUN_FLAGS).map(([n, f]) => left(n, f).length));
  const lines = [
    "Usage: ubiquity run [flags] [prompt]",
    "       ubiquity -p [flags] [prompt]",
    "       ubiquity chat [flags]         (the terminal mode; also `ubiquity` alone in a terminal)",
    "",
    "Run an agent on the prompt. Piped standard input is sent with it (`git diff | ubiquity run \"review this\"`),",
    "or is the prompt when none is given.",
  ];
  for (const group of FLAG_GROUPS) {
    const flags = Object.entries(RUN_FLAGS).filter(([, f]) => f.group === group);
    if (flags.length === 0) continue;
    lines.push("", `${group}:`, ...flags.map(([n, f]) => `  ${left(n, f).padEnd(width)}  ${f.description}`));
  }
  lines.push(
    "",
    "Exit codes: 0 success, 1 the run failed (an error result), 2 usage or configuration error, 130 interrupted (Ctrl-C).",
    "There is no --max-budget-usd yet: Ubiquity has no spending budget to enforce.",
    "",
  );
  return lines.join("\n");
}
