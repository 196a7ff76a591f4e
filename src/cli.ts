/**
 * The `ubiquity` runner. Commands live in one table: each entry declares its flags (for
 * parsing and for `--help`) and a `run`. `--help` and `--version` work everywhere. Failures
 * print one `error: ...` line and exit 2 for a usage or configuration mistake, 1 otherwise.
 * `ubiquity -p "prompt"` is `ubiquity run -p "prompt"`; `ubiquity` alone in a terminal is the
 * terminal mode.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createKernel, declaresOption, type Kernel } from "./kernel";
import { loadConfig } from "./config/load";
import { formatInspect, inspectKernel } from "./inspect";
import { defaultConfigJsonSchemaText, defaultPreset, mcpListCommand, permissionsCommand, sandboxCommand, sessionsCommand, formatModelProviders, listModelProviders } from "./facade";
import { consoleLogger, defaultLogger } from "./logger";
import { describeError, oneLine, UsageError } from "./errors";
import { exitCodeOf } from "./runner/exit";
import { withoutKernelTerms } from "./render";
import { redactText, secretsOf } from "./redact";
import { processRunnerIO, runCommand } from "./runner";
import { decideTrust, untrustedWarning, type TrustAsk, type TrustDecision } from "./trust/decide";
import { trustCommand } from "./trust/command";
import type { UbiquityConfig } from "./config/schema";

/** Where a command writes. Tests and embedders pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stdin and stdout are the user's terminal (the process's own streams): `ubiquity` alone opens the terminal mode. */
  interactive?: boolean;
}

/** One flag of a command, as parsed and as shown by `--help`. */
export interface CliFlag {
  type: "string" | "boolean";
  short?: string;
  /** Shown in help, e.g. `<file>`. */
  value?: string;
  description: string;
}

/** The parsed command line a command receives. */
export interface CliArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** One entry of the command table: flags parsed here, or `raw` for a command that parses its own argv. */
export type CliCommand = FlagCommand | RawCommand;

/** A command whose flags the table parses (and `--help` lists). */
export interface FlagCommand {
  summary: string;
  /** Usage after `ubiquity <name>`, e.g. `[prompt]`. */
  usage?: string;
  flags: Record<string, CliFlag>;
  /** Accept positional arguments (otherwise they are a usage error). */
  positionals?: boolean;
  run(args: CliArgs, io: CliIO): Promise<number>;
}

/** A command that parses its own arguments and prints its own `--help` (e.g. `run`). */
export interface RawCommand {
  summary: string;
  raw(argv: string[], io: CliIO): Promise<number>;
}

export { UsageError };

const GLOBAL_FLAGS: Record<string, CliFlag> = {
  help: { type: "boolean", short: "h", description: "Show help" },
  version: { type: "boolean", short: "v", description: "Print the version" },
};

/** The flags every config-reading command shares. */
export const CONFIG_FLAGS: Record<string, CliFlag> = {
  config: { type: "string", value: "<file>", description: "Use this config file (skips the search)" },
  cwd: { type: "string", value: "<dir>", description: "Working directory; the config search starts here [.]" },
  trust: { type: "boolean", description: "Apply this folder's own config and settings for this run (not remembered; also UBIQUITY_TRUST=1)" },
};

/** Where the settings plugin reads from in the runner unless the config says otherwise, as `claude -p` does. */
export const RUNNER_SETTING_SOURCES = ["user", "project", "local"] as const;

/** How a config-reading command talks to the user about trust. */
export interface TrustIO {
  /** Present only in a terminal: asks the trust question. */
  ask?: TrustAsk;
  /** Prints the warning naming what an untrusted folder's run skipped. */
  warn?: (line: string) => void;
}

/**
 * Load the config the way every command does: decide whether the folder is trusted, then
 * `--config` or the search from `--cwd` (a project's config only when trusted), string
 * specifiers resolved, the default preset when the config names no presets, settings from the
 * user, project and local files unless the config picks, and `trust` passed on so the plugins
 * skip an untrusted folder's own files.
 */
export async function loadCliConfig(
  values: CliArgs["values"],
  command: string,
  io: TrustIO = {},
): Promise<{ config: UbiquityConfig; filepath: string | null; trust: TrustDecision }> {
  const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  const trust = await decideTrust({ cwd, flag: values.trust === true, ask: io.ask });
  const defaults = async () => [await defaultPreset()];
  const loaded = await loadConfig({
    cwd,
    configFile: typeof values.config === "string" ? values.config : undefined,
    command,
    defaultPresets: defaults,
    trust: trust.trusted,
  });
  const warning = untrustedWarning(trust, cwd);
  if (warning) (io.warn ?? ((line: string) => void process.stderr.write(`${line}\n`)))(warning);
  const config: UbiquityConfig = { ...(loaded.config ?? {}) };
  config.presets ??= await defaults();
  // Only for a plugin list that reads them (a bare kernel would reject them as unknown keys).
  if (declaresOption(config, "settingSources")) config.settingSources ??= [...RUNNER_SETTING_SOURCES];
  // The folder's files stay out unless it is trusted, whoever's config asked for them.
  if (!trust.trusted && declaresOption(config, "trust")) config.trust = false;
  // --cwd wins over the config's `cwd`; a relative `cwd` in the config is relative to its folder.
  if (typeof values.cwd === "string" || config.cwd === undefined) config.cwd = cwd;
  else config.cwd = resolve(loaded.filepath ? dirname(loaded.filepath) : cwd, config.cwd);
  return { config, filepath: loaded.filepath, trust };
}

/** Build a kernel for a loaded config; an error names the config file it came from. */
export function kernelFor(config: UbiquityConfig, filepath: string | null): Kernel {
  try {
    return createKernel({ logger: consoleLogger(), ...config });
  } catch (error) {
    // Keep the error's class (PluginError, ConfigError) but say which config file it came from.
    if (filepath && error instanceof Error && !error.message.startsWith(filepath)) error.message = `${filepath}: ${error.message}`;
    throw error;
  }
}

const inspect: FlagCommand = {
  summary: "Show the resolved plugins, each hook's taps in run order, and registry winners",
  flags: {
    ...CONFIG_FLAGS,
    json: { type: "boolean", description: "Print the report as JSON" },
  },
  async run({ values }, io) {
    const { config, filepath } = await loadCliConfig(values, "inspect");
    const report = inspectKernel(kernelFor(config, filepath), filepath);
    io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatInspect(report));
    return 0;
  },
};

const schema: FlagCommand = {
  summary: "Print the JSON Schema of ubiquity config files",
  flags: {},
  async run(_args, io) {
    io.stdout(await defaultConfigJsonSchemaText());
    return 0;
  },
};

/** The command table. A new command is one entry here. */
export const COMMANDS: Record<string, CliCommand> = {
  run: {
    summary: "Run an agent on a prompt (streams in a terminal; --output-format json|stream-json; see run --help)",
    raw: (argv, io) => runCommand(argv, { ...processRunnerIO(), stdout: io.stdout, stderr: io.stderr }),
  },
  chat: {
    summary: "The terminal mode: one session, prompt after prompt (also `ubiquity` alone in a terminal)",
    raw: (argv, io) => runCommand(argv, { ...processRunnerIO(), stdout: io.stdout, stderr: io.stderr }, { chat: true }),
  },
  // `sessions`, `models`, `mcp`, `permissions`: one entry each, FlagCommand or RawCommand.
  sessions: sessionsCommand,
  models: {
    summary: "List the model providers: package, whether it is installed, credential variables",
    flags: { json: { type: "boolean", description: "Print the list as JSON" } },
    async run({ values }, io) {
      const rows = listModelProviders();
      io.stdout(values.json ? `${JSON.stringify(rows, null, 2)}\n` : formatModelProviders(rows));
      return 0;
    },
  },
  mcp: {
    summary: "Connect the configured MCP servers, list each with its status and tools, and exit",
    usage: "list",
    positionals: true,
    flags: { ...CONFIG_FLAGS, json: { type: "boolean", description: "Print the report as JSON" } },
    async run({ values, positionals }, io) {
      const { config, filepath } = await loadCliConfig(values, "mcp");
      // The report shows every failure; the console logger would print each a second time.
      return mcpListCommand(kernelFor({ logger: defaultLogger(), ...config }, filepath), { positionals, json: values.json === true }, io);
    },
  },
  // Loaded on use: the permissions plugin brings the bash grammar (wasm) with it.
  permissions: {
    summary: "Test permission rules against a command: permissions check --allow 'Bash(git:*)' \"git status\"",
    raw: (argv, io) => permissionsCommand(argv, io),
  },
  trust: trustCommand,
  sandbox: {
    summary: "Check whether the OS sandbox works here: ubiquity sandbox check",
    raw: (argv, io) => sandboxCommand(argv, io),
  },
  inspect,
  schema,
};

/** Run the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [first, ...rest] = argv;
  try {
    // `ubiquity` alone in a terminal, or `ubiquity -p …` / `ubiquity --model x` (run's flags without `run`).
    if (first === undefined && io.interactive) return await (COMMANDS.chat as RawCommand).raw(argv, io);
    if (first !== undefined && first.startsWith("-") && !["-h", "--help", "-v", "--version"].includes(first)) {
      return await (COMMANDS.run as RawCommand).raw(argv, io);
    }
    if (first === undefined || first.startsWith("-")) {
      const { values } = parse(argv, {}, false);
      if (values.version) return printVersion(io);
      io.stdout(mainHelp());
      return 0;
    }
    const command = COMMANDS[first];
    if (!command) throw new UsageError(`unknown command "${first}"; run \`ubiquity --help\` for the list`);
    if ("raw" in command) {
      const own = rest.slice(0, rest.includes("--") ? rest.indexOf("--") : undefined);
      return own.includes("--version") ? printVersion(io) : await command.raw(rest, io);
    }
    const args = parse(rest, command.flags, command.positionals ?? false, first);
    if (args.values.help) {
      io.stdout(commandHelp(first, command));
      return 0;
    }
    if (args.values.version) return printVersion(io);
    return await command.run(args, io);
  } catch (error) {
    // No options here to read keys from, but the environment's credentials are masked still.
    io.stderr(`error: ${withoutKernelTerms(oneLine(redactText(describeError(error), secretsOf(undefined))))}\n`);
    return exitCodeOf(error);
  }
}

function parse(argv: string[], flags: Record<string, CliFlag>, positionals: boolean, command?: string): CliArgs {
  const all = { ...GLOBAL_FLAGS, ...flags };
  const options = Object.fromEntries(
    Object.entries(all).map(([name, f]) => [name, f.short ? { type: f.type, short: f.short } : { type: f.type }]),
  );
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: positionals, strict: true });
    return { values: parsed.values as CliArgs["values"], positionals: parsed.positionals };
  } catch (error) {
    const help = command ? `ubiquity ${command} --help` : "ubiquity --help";
    throw new UsageError(`${describeError(error).replace(/\.$/, "")}; see \`${help}\``);
  }
}

function printVersion(io: CliIO): number {
  io.stdout(`${version()}\n`);
  return 0;
}

/** The package version, read from the package.json above this module (src/ or dist/src/). */
export function version(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "ubiquity" && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return "unknown";
  }
}

function flagLines(flags: Record<string, CliFlag>): string[] {
  const rows = Object.entries(flags).map(([name, f]) => [`${f.short ? `-${f.short}, ` : "    "}--${name}${f.value ? ` ${f.value}` : ""}`, f.description] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, text]) => `  ${left.padEnd(width)}  ${text}`);
}

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    "ubiquity: run and inspect Ubiquity coding agents",
    "",
    "Usage: ubiquity <command> [flags]",
    '       ubiquity -p [run flags] "prompt"   (ubiquity run, as claude -p)',
    "       ubiquity                          (in a terminal: the terminal mode, ubiquity chat)",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "Flags:",
    ...flagLines(GLOBAL_FLAGS),
    "",
    "Run `ubiquity <command> --help` for a command's flags.",
    "Exit codes: 0 success, 1 failed run, 2 usage or configuration error, 130 interrupted.",
    "",
  ].join("\n");
}

function commandHelp(name: string, command: FlagCommand): string {
  return [
    `ubiquity ${name}: ${command.summary}`,
    "",
    `Usage: ubiquity ${name}${command.usage ? ` ${command.usage}` : ""} [flags]`,
    "",
    "Flags:",
    ...flagLines({ ...command.flags, ...GLOBAL_FLAGS }),
    "",
  ].join("\n");
}

const processIO: CliIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
};
