/**
 * The `ubiquity` runner, the bin's entry. Commands live in one table: the runner's own (`run`,
 * `chat`, `trust`, `inspect`, `schema`) and those the plugins of the active preset add
 * (`plugin.commands`: `sessions`, `models`, `mcp`, `permissions`, `sandbox` …); each entry
 * declares its flags (for parsing and for `--help`) and a `run`. `--help` and `--version` work
 * everywhere. Failures print one `error: ...` line and exit 2 for a usage or configuration
 * mistake, 1 otherwise. `ubiquity -p "prompt"` is `ubiquity run -p "prompt"`; `ubiquity` alone in
 * a terminal is the terminal mode.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Kernel } from "../src/kernel";
import type { CommandIO, PluginCommand } from "../loader/index";
import { defaultLogger } from "../src/logger";
import { describeError } from "../src/errors";
import { UsageError } from "../loader/index";
import { exitCodeOf } from "./exit";
import { oneLine, terminalText, withoutKernelTerms } from "./render";
import { redactText, secretsOf } from "../src/redact";
import { processRunnerIO, runCommand } from "./run";
import { untrustedWarning } from "./trust";
import { CONFIG_FLAGS, kernelFor, loadCliConfig } from "./config";
import type { CliArgs, CliCommand, CliFlag, CliIO, FlagCommand, RawCommand } from "./types";
import { trustCommand } from "./trust-command";
import { initCommand } from "./init";
import { canonicalSpellings, firstPositional, flagsWritten, parseFlags, prescan } from "./flags";
import { didYouMean } from "../src/suggest";
import { activePlugins, pluginCommands, skippedConfigHint, type ActivePlugins } from "./plugins";
import { defaultConfigJsonSchemaText, defaultPreset } from "../sdk/facade";
import { configJsonSchemaText } from "../loader/index";
import { expandPlugins } from "../src/index";

export type { CliIO, CliFlag, CliArgs, CliCommand, FlagCommand, RawCommand } from "./types";
export {
  CONFIG_FLAGS,
  RUNNER_SETTING_SOURCES,
  loadCliConfig,
  kernelFor,
  type TrustIO,
  type LoadedCliConfig,
} from "./config";

export { UsageError };

const GLOBAL_FLAGS: Record<string, CliFlag> = {
  help: { type: "boolean", short: "h", description: "Show help" },
  version: { type: "boolean", short: "v", description: "Print the version" },
};

const inspect: FlagCommand = {
  summary: "Show the resolved plugins, each hook's taps in run order, and registry winners",
  flags: {
    ...CONFIG_FLAGS,
    json: { type: "boolean", description: "Print the report as JSON" },
  },
  async run({ values }, io) {
    const { config, filepath, skipped } = await loadCliConfig(values, "inspect");
    const { formatInspect, inspectKernel } = await import("./inspect");
    const report = inspectKernel(kernelFor(config, filepath), filepath, skipped[0]);
    io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatInspect(report));
    return 0;
  },
};

const schema: FlagCommand = {
  summary:
    "Print the JSON Schema of ubiquity config files: of the plugins of the config found (or named with --config), third-party options included; the default preset's without one",
  flags: {
    config: CONFIG_FLAGS.config!,
    cwd: CONFIG_FLAGS.cwd!,
    trust: CONFIG_FLAGS.trust!,
  },
  async run({ values }, io) {
    // The plugins the config runs with (its presets, or the default preset, then its plugins):
    // a third-party plugin's `options` slice is in the schema as the built-ins' are. The config
    // the search finds counts as --config's does (as for `inspect`): in a project whose config
    // lists a plugin, the schema an editor is pointed at must know that plugin's keys.
    const { config, filepath } = await loadCliConfig(values, "schema");
    if (!filepath) {
      io.stdout(await defaultConfigJsonSchemaText());
      return 0;
    }
    const presets = config.presets ?? [await defaultPreset()];
    const plugins = expandPlugins({ ...config, presets }).plugins.map((p) => p.plugin);
    io.stdout(configJsonSchemaText(plugins));
    return 0;
  },
};

/** The runner's own commands; the plugins of the active preset add theirs (`plugin.commands`). */
export const COMMANDS: Record<string, CliCommand> = {
  run: {
    summary: "Run an agent on a prompt (streams in a terminal; --output-format json|stream-json; see run --help)",
    raw: (argv, io) => runCommand(argv, { ...processRunnerIO(), stdout: io.stdout, stderr: io.stderr }),
  },
  chat: {
    summary: "The terminal mode: one session, prompt after prompt (also `ubiquity` alone in a terminal)",
    raw: (argv, io) => runCommand(argv, { ...processRunnerIO(), stdout: io.stdout, stderr: io.stderr }, { chat: true }),
  },
  acp: {
    summary: "Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim…; see acp --help)",
    raw: async (argv, io) => (await import("./acp/command")).acpCommand(argv, io, version()),
  },
  init: initCommand,
  trust: trustCommand,
  inspect,
  schema,
};

/** The whole table for the active plugins: the runner's `run` and `chat`, the plugins' commands, then the runner's others. */
function commandTable(active: ActivePlugins): Record<string, CliCommand | PluginCommand> {
  const { run, chat, ...rest } = COMMANDS;
  const added = Object.fromEntries(
    Object.entries(pluginCommands(active.plugins)).filter(([name]) => !(name in COMMANDS)),
  );
  return { run: run!, chat: chat!, ...added, ...rest };
}

/** The `io` a plugin's command gets: the config its command line names, and kernels the runner disposes. */
function commandIO(
  io: CliIO,
  values: CliArgs["values"],
  name: string,
  active: ActivePlugins,
  kernels: Kernel[],
): CommandIO {
  const sameConfig = ["config", "cwd", "trust", "compat"].every((k) => values[k] === active.values[k]);
  const config: CommandIO["config"] = async ({ quiet } = {}) => {
    if (sameConfig && active.loaded) {
      const { config, filepath, trust } = active.loaded;
      const warning = quiet ? undefined : untrustedWarning(trust, config.cwd ?? process.cwd());
      if (warning) process.stderr.write(`${warning}\n`);
      return { config: { ...config }, filepath };
    }
    if (sameConfig && active.error) throw active.error;
    const { config, filepath } = await loadCliConfig(values, name, quiet ? { warn: () => {} } : {});
    return { config, filepath };
  };
  // What a command prints holds text from third parties (an MCP server's tool descriptions and
  // errors in `mcp list`, a transcript's tool output in `sessions show`): on a terminal its control
  // characters are shown, never obeyed (a pipe gets the text as it is, as `run` does).
  const onTerminal = (write: (text: string) => void, tty: boolean | undefined) =>
    tty ? (text: string) => write(terminalText(text)) : write;
  return {
    stdout: onTerminal(io.stdout, io.stdoutIsTTY),
    stderr: onTerminal(io.stderr, io.stderrIsTTY),
    config,
    async kernel({ quiet } = {}) {
      const { config: loaded, filepath } = await config({ quiet: false });
      const kernel = kernelFor({ ...(quiet ? { logger: defaultLogger() } : {}), ...loaded }, filepath);
      kernels.push(kernel);
      return kernel;
    },
  };
}

/**
 * Commands of the tools people come from (`codex exec`, `claude doctor`…) that are not
 * Ubiquity's: what to type here instead, rather than "run it as a prompt".
 */
const OTHER_TOOLS_COMMANDS: Readonly<Record<string, string>> = {
  exec: 'codex exec "…" is ubiquity -p "…" (ubiquity run); --model for -m (with --compat codex a name without a provider runs on config.toml\'s model_provider), --output-schema <file> as in codex, --output-format stream-json --message-format codex for codex\'s --json events; see docs/coming-from-claude-code.md',
  resume:
    'pass --resume <id> (`ubiquity sessions list` shows the ids) or --continue for the latest, as in `ubiquity -p --continue "…"`',
  doctor:
    "`ubiquity inspect` shows the config, plugins and hooks a run here would use, `ubiquity models` the providers with their packages and key variables, `ubiquity sandbox check` whether the sandbox works here, `ubiquity mcp list` the MCP servers and their tools",
  config:
    "settings are files: ubiquity.config.ts (`ubiquity init` writes one; docs/guide/config-files.md) and .ubiquity/settings.json; `ubiquity inspect` shows what a run here would use",
};

/** `codex review` / `codex exec review`: the diff it reviews, piped into `ubiquity -p` with the instructions. */
const CODEX_REVIEW =
  'codex review is a prompt here: pipe the changes into a run with the review instructions: --base <branch> is git diff <branch>...HEAD | ubiquity -p "review this diff", --commit <sha> is git show <sha> | ubiquity -p "review this commit", --uncommitted is git diff HEAD | ubiquity -p "review these changes" (the diff reaches the model after the prompt, in a <stdin> block)';

/** `codex exec resume --last|<id> "…"`: the session flags of `ubiquity -p`. */
const EXEC_RESUME =
  'codex exec resume --last "…" is ubiquity -p --continue "…", and codex exec resume <id> "…" is ubiquity -p --resume <id> "…" (`ubiquity sessions list` shows the ids)';

/** Whether `-p`/`--print` stands among the words (before a `--`). */
function printsAfter(words: readonly string[]): boolean {
  const end = words.indexOf("--");
  return (end < 0 ? words : words.slice(0, end)).some((w) => w === "-p" || w === "--print");
}

/** `ubiquity -p …`, `ubiquity --model x "…"`: run's flags and the prompt without `run` (a command after the flags runs). */
function runBare(argv: string[], io: CliIO): Promise<number> {
  return runCommand(
    argv,
    { ...processRunnerIO(), stdout: io.stdout, stderr: io.stderr },
    {
      commandAfterFlags: (args, table, active) => {
        const at = firstPositional(args, table);
        const name = at === undefined ? undefined : args[at]!;
        const command = name === undefined ? undefined : commandTable(active)[name];
        return command ? commandAfterFlags(args, at!, command, io) : undefined;
      },
    },
  );
}

/** Run the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [first, ...rest] = argv;
  try {
    // `ubiquity` alone in a terminal, or `ubiquity -p …` / `ubiquity --model x` (run's flags without `run`).
    if (first === undefined && io.interactive) return await (COMMANDS.chat as RawCommand).raw(argv, io);
    if (first?.startsWith("-") && !["-h", "--help", "-v", "--version"].includes(first)) return await runBare(argv, io);
    if (first === undefined || first.startsWith("-")) {
      const { values } = parse(argv, {}, false);
      if (values.version) return printVersion(io);
      io.stdout(mainHelp(commandTable(await activePlugins({}, "help"))));
      return 0;
    }
    const own = COMMANDS[first];
    if (own) return await runOwn(first, own, rest, io);
    const found = await activePlugins(prescan(rest), first);
    const command = pluginCommands(found.plugins)[first];
    if (!command) {
      if (found.error) throw found.error;
      const near = didYouMean(first, Object.keys(commandTable(found)));
      const skipped = skippedConfigHint(found);
      const habit =
        first === "exec" && rest[0] === "resume"
          ? EXEC_RESUME
          : (first === "exec" && rest[0] === "review") ||
              (first === "review" && rest.some((a) => /^--(base|commit|uncommitted)\b/.test(a)))
            ? CODEX_REVIEW
            : OTHER_TOOLS_COMMANDS[first];
      if (habit) throw new UsageError(`\`ubiquity ${first}\` is not a command: ${habit}`);
      // `claude "fix it" -p` habit: the prompt first, -p after it (a near command's name is not a prompt).
      if (!near && !skipped && printsAfter(rest)) return await runBare(argv, io);
      // `claude "fix it"` habit: a prompt in the command's place.
      const asPrompt = near || skipped ? "" : `; to run it as a prompt: ubiquity -p ${JSON.stringify(first)}`;
      throw new UsageError(
        `unknown command "${first}"${near}${skipped}${asPrompt}; run \`ubiquity --help\` for the list`,
      );
    }
    return await runPluginCommand(first, command, rest, io, found);
  } catch (error) {
    // No options here to read keys from, but the environment's credentials are masked still.
    // A command's error may quote a third party (a marketplace's plugin names, git's last lines):
    // on a terminal its control characters are shown, never obeyed (red team zl, ZL6).
    const line = `error: ${withoutKernelTerms(oneLine(redactText(describeError(error), secretsOf(undefined))))}`;
    io.stderr(`${io.stderrIsTTY ? terminalText(line) : line}\n`);
    return exitCodeOf(error);
  }
}

/**
 * `ubiquity --cwd x sessions list`, git's `git -C x status`: flags before a command's name are
 * the command's when it takes each of them, and the command runs with them after its name;
 * otherwise a usage error names the fix. The name is never sent to the model as a prompt.
 */
function commandAfterFlags(
  argv: string[],
  at: number,
  command: CliCommand | PluginCommand,
  io: CliIO,
): Promise<number> {
  const name = argv[at]!;
  const before = argv.slice(0, at);
  const after = argv.slice(at + 1);
  // run and chat take run's flags; another command that parses its own takes none of them here.
  const own = "raw" in command && command.raw ? (name === "run" || name === "chat" ? undefined : {}) : flagsOf(command);
  if (own) {
    const spelled = canonicalSpellings(before, Object.keys(own));
    const shorts = new Set(Object.values(own).flatMap((f) => (f.short ? [`-${f.short}`] : [])));
    const foreign = flagsWritten(spelled).filter((f) => !(f.startsWith("--") ? f.slice(2) in own : shorts.has(f)));
    if (foreign.length > 0) {
      const prompt = shellWords([name, ...after].join(" "));
      throw new UsageError(
        `"${name}" is a command, and ${foreign.join(", ")} ${foreign.length === 1 ? "is not one of its flags" : "are not its flags"}: a command's flags go after its name (\`ubiquity ${name} --help\` lists them); to send "${[name, ...after].join(" ")}" to the model as the prompt, name run: \`ubiquity run ${before.map(shellWords).join(" ")} ${prompt}\``,
      );
    }
  }
  const end = after.indexOf("--");
  const moved = end < 0 ? [...after, ...before] : [...after.slice(0, end), ...before, ...after.slice(end)];
  return main([name, ...moved], io);
}

/** The flags a command parses here (with the config flags it asks for). */
function flagsOf(command: CliCommand | PluginCommand): Record<string, CliFlag> {
  const flags = "flags" in command ? (command.flags ?? {}) : {};
  const config = "config" in command && command.config ? CONFIG_FLAGS : {};
  return { ...GLOBAL_FLAGS, ...config, ...flags } as Record<string, CliFlag>;
}

/** A word as a shell reads it back: bare when safe, else single-quoted. */
function shellWords(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** One of the runner's own commands. */
async function runOwn(name: string, command: CliCommand, rest: string[], io: CliIO): Promise<number> {
  if ("raw" in command) {
    const own = rest.slice(0, rest.includes("--") ? rest.indexOf("--") : undefined);
    return own.includes("--version") ? printVersion(io) : await command.raw(rest, io);
  }
  const args = parse(rest, command.flags, command.positionals ?? false, name);
  if (args.values.help) {
    io.stdout(commandHelp(name, command));
    return 0;
  }
  if (args.values.version) return printVersion(io);
  return await command.run(args, io);
}

/** A command a plugin added: parsed here unless it is `raw`; the kernels it asked for are disposed after it. */
async function runPluginCommand(
  name: string,
  command: PluginCommand,
  rest: string[],
  io: CliIO,
  found: ActivePlugins,
): Promise<number> {
  const kernels: Kernel[] = [];
  try {
    if (command.raw) {
      const own = rest.slice(0, rest.includes("--") ? rest.indexOf("--") : undefined);
      if (own.includes("--version")) return printVersion(io);
      return await command.run(
        { values: {}, positionals: [], argv: rest },
        commandIO(io, prescan(rest), name, found, kernels),
      );
    }
    const flags = { ...(command.config ? CONFIG_FLAGS : {}), ...command.flags };
    const args = parse(rest, flags, command.positionals ?? false, name);
    if (args.values.help) {
      io.stdout(commandHelp(name, { ...command, flags }));
      return 0;
    }
    if (args.values.version) return printVersion(io);
    return await command.run({ ...args, argv: rest }, commandIO(io, args.values, name, found, kernels));
  } finally {
    for (const kernel of kernels) await kernel.dispose();
  }
}

function parse(argv: string[], flags: Record<string, CliFlag>, positionals: boolean, command?: string): CliArgs {
  return parseFlags(
    argv,
    { ...GLOBAL_FLAGS, ...flags },
    { positionals, help: command ? `ubiquity ${command} --help` : "ubiquity --help" },
  );
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
  const rows = Object.entries(flags).map(
    ([name, f]) =>
      [`${f.short ? `-${f.short}, ` : "    "}--${name}${f.value ? ` ${f.value}` : ""}`, f.description] as const,
  );
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, text]) => `  ${left.padEnd(width)}  ${text}`);
}

function mainHelp(commands: Record<string, { summary: string }>): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return [
    "ubiquity: run and inspect Ubiquity coding agents",
    "",
    "Usage: ubiquity <command> [flags]",
    '       ubiquity -p [run flags] "prompt"   (ubiquity run, as claude -p)',
    "       ubiquity                          (in a terminal: the terminal mode, ubiquity chat)",
    "",
    "Commands:",
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "Flags:",
    ...flagLines(GLOBAL_FLAGS),
    "",
    "Run `ubiquity <command> --help` for a command's flags.",
    "Exit codes: 0 success, 1 failed run, 2 usage or configuration error, 130 interrupted, 143 terminated.",
    "",
  ].join("\n");
}

function commandHelp(
  name: string,
  command: { summary: string; usage?: string; flags: Record<string, CliFlag> },
): string {
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
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
};
