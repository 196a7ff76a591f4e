/**
 * `ubiquity run [prompt]` (and `ubiquity -p`, `ubiquity chat`): run an agent from the command
 * line. The flags come from one table (runner/flags.ts). With a prompt (or piped input) it runs
 * once — streaming, showing tool calls and asking for approvals in a terminal, silent and
 * non-prompting in CI; with `--input-format stream-json` the stdin messages are the input of one
 * live session; with no prompt in a terminal it is the terminal mode (runner/chat.ts). Exit codes:
 * 0, 1 failed run, 2 usage or configuration error, 130 interrupted, 143 terminated (SIGTERM).
 */
import { createInterface } from "./readline";
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { modelStringFor } from "../plugins/model/api";
import { codexModelProblem, unreadClaudeVariables } from "../plugins/settings/index";
import { summon } from "../sdk/facade";
import { kernelFor, loadCliConfig, type LoadedCliConfig, type TrustIO, declaresOption } from "./config";
import { oneLine, terminalText, TextRenderer, withoutKernelTerms } from "./render";
import { defaultLogger } from "../src/logger";
import { alreadyWarned, consoleLogger } from "../sdk/console-logger";
import { ConfigError, describeError } from "../src/errors";
import { requestedModel } from "../src/model-call";
import { readRegularFileSync, UsageError } from "../loader/index";
import { redactText, secretsOf } from "../src/redact";
import type { UbiquityConfig } from "../src/config/schema";
import { terminalApprover } from "./approver";
import type { Message, ResultMessage } from "../src/messages";
import { applyRunFlags, parseRunArgs, prescan, runFlagTable, runUsage, type FlagTable, type RunValues } from "./flags";
import {
  activePlugins,
  answerersOf,
  presetByName,
  skippedConfig,
  skippedConfigHint,
  type ActivePlugins,
} from "./plugins";
import type { TerminalAnswerer } from "../loader/index";
import { combinePrompt, readStdin } from "./stdin";
import { storedSessionLookup } from "./conversation";
import { userTurn, type UserInput } from "../sdk/live";
import { verbosePlugin } from "./verbose";
import { colorEnabled, createStyle } from "./style";
import { EXIT, exitCodeOf } from "./exit";
import { TrustDeclinedError, untrustedWarning } from "./trust";
import { earlyErrorResult, MESSAGE_FORMATS, type MessageFormat } from "./claude-messages";
import { claudeFormatter } from "./claude-stream";
import { codexFormatter } from "./codex-messages";

export { terminalApprover } from "./approver";

/** The runner's input and output, injectable for tests. */
export interface RunnerIO {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** True when standard output is a terminal (streaming, interactive approvals). */
  stdoutIsTTY: boolean;
  /** True when standard error is a terminal (where the trust question is asked) [stdoutIsTTY]. */
  stderrIsTTY?: boolean;
  /** The terminal the terminal mode's line editor draws on [none: no terminal mode]. */
  terminal?: NodeJS.WritableStream;
}

/** The process's own streams. */
export function processRunnerIO(): RunnerIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    stdin: process.stdin,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    terminal: process.stdout,
  };
}

/** Ask one question on the terminal and return the line typed; the end of input answers "q" (quit). */
function askLine(io: RunnerIO, question: string): Promise<string> {
  io.stderr(question);
  return new Promise((resolveLine) => {
    const rl = createInterface({ input: io.stdin, terminal: false });
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolveLine(line);
    });
    rl.once("close", () => {
      if (!answered) resolveLine("q");
    });
  });
}

/** The output format asked for, read from raw argv too (a usage error is reported in it). */
function formatIn(argv: string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a === "--output-format") return argv[i + 1] ?? "text";
    if (a.startsWith("--output-format=")) return a.slice("--output-format=".length);
  }
  return "text";
}

/** The message shape asked for (`--message-format`, else UBIQUITY_MESSAGE_FORMAT), read from raw argv too (a usage error is reported in it). */
function shapeIn(argv: string[]): MessageFormat {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    const value = a === "--message-format" ? argv[i + 1] : a.startsWith("--message-format=") ? a.slice(17) : undefined;
    if (value !== undefined) return knownShape(value);
  }
  return knownShape(process.env.UBIQUITY_MESSAGE_FORMAT);
}

function knownShape(value: string | undefined): MessageFormat {
  return value === "claude" || value === "codex" ? value : "ubiquity";
}

/** Report an error that stopped the run before it started: one stderr line, and a JSON object on stdout for json formats. */
function fail(
  io: RunnerIO,
  error: unknown,
  format: string,
  verbose = false,
  shape: MessageFormat = "ubiquity",
): number {
  const code = error instanceof TrustDeclinedError ? EXIT.failed : exitCodeOf(error);
  const text = oneLine(redactText(describeError(error), secretsOf(undefined)));
  const shown = verbose ? text : withoutKernelTerms(text);
  if (format === "json" || format === "stream-json") {
    const subtype = code === EXIT.usage ? "error_configuration" : "error_during_execution";
    io.stdout(`${JSON.stringify(earlyErrorResult(shape, subtype, shown, code))}\n`);
  }
  // The message may quote a file or a third party (a config's unknown key, as written): on a
  // terminal its control characters are shown, never obeyed (red team zl, ZL6).
  const line = `error: ${shown}${error instanceof UsageError && !/--help/.test(shown) ? "; see `ubiquity run --help`" : ""}`;
  io.stderr(`${io.stderrIsTTY ? terminalText(line) : line}\n`);
  return code;
}

/** Check flag combinations that cannot work together. */
function checkCombinations(values: RunValues, format: string, inputFormat: string): void {
  const shape = values["message-format"];
  if (shape !== undefined && !(MESSAGE_FORMATS as readonly unknown[]).includes(shape))
    throw new UsageError(`--message-format must be ubiquity, claude or codex, not ${JSON.stringify(shape)}`);
  const envShape = process.env.UBIQUITY_MESSAGE_FORMAT;
  if (shape === undefined && envShape && !(MESSAGE_FORMATS as readonly string[]).includes(envShape))
    throw new UsageError(`UBIQUITY_MESSAGE_FORMAT must be ubiquity, claude or codex, not ${JSON.stringify(envShape)}`);
  if (!["text", "json", "stream-json"].includes(format))
    throw new UsageError(`--output-format must be text, json or stream-json, not ${JSON.stringify(format)}`);
  if (!["text", "stream-json"].includes(inputFormat))
    throw new UsageError(`--input-format must be text or stream-json, not ${JSON.stringify(inputFormat)}`);
  if (values["include-partial-messages"] && format !== "stream-json")
    throw new UsageError("--include-partial-messages needs --output-format stream-json");
  if (inputFormat === "stream-json" && format !== "stream-json")
    throw new UsageError("--input-format stream-json needs --output-format stream-json");
  if (inputFormat === "stream-json" && values["output-last-message"] !== undefined)
    throw new UsageError(
      "--output-last-message writes one run's final answer: a live session (--input-format stream-json) has one a prompt; read the result lines instead",
    );
  // codex exec --json prints a stream of events; there is no one-object form of it.
  if (format === "json" && (shape ?? envShape) === "codex")
    throw new UsageError(
      "--message-format codex prints codex exec --json's event stream: pass --output-format stream-json (the last turn.completed line has the usage and cost)",
    );
}

const NO_PROMPT = 'no prompt. Pass one (ubiquity run "list the files") or pipe it on standard input';
const NO_STDIN_PROMPT =
  'no prompt: `-` reads it from standard input, which was empty (or a terminal); pipe the prompt in (echo "…" | ubiquity -p -)';

/** Why the terminal mode cannot start with this command line, or undefined. */
function terminalModeProblem(terminal: boolean, format: string, prompt: string): UsageError | undefined {
  if (!terminal)
    return new UsageError(
      'the terminal mode needs a terminal on stdin and stdout; pass a prompt (ubiquity run "…") to run once',
    );
  if (format !== "text")
    return new UsageError("the terminal mode prints text; --output-format json|stream-json is for runs with a prompt");
  if (prompt)
    return new UsageError('`ubiquity chat` takes no prompt: type it at the › prompt, or use `ubiquity run "…"`');
  return undefined;
}

/** What kind of run the command line asks for. */
type Mode = "once" | "stream" | "chat";

/** How `runCommand` was reached. */
interface RunCommandOptions {
  /** `ubiquity chat`: the terminal mode. */
  chat?: boolean;
  /**
   * `run` was not named (`ubiquity --model x …`): when the first word after the flags is a
   * command's name, this runs the command line instead (or throws naming the fix); never a prompt.
   */
  commandAfterFlags?: (argv: string[], table: FlagTable, active: ActivePlugins) => Promise<number> | undefined;
}

/** `ubiquity run` / `ubiquity chat`: returns the exit code. */
export async function runCommand(
  argv: string[],
  io: RunnerIO,
  { chat = false, commandAfterFlags }: RunCommandOptions = {},
): Promise<number> {
  let format = formatIn(argv);
  const shape = shapeIn(argv);
  // Every early stop is reported in the output format and message shape asked for.
  const stop = (error: unknown, verbose = false) => fail(io, error, format, verbose, shape);
  let values: RunValues;
  let positionals: string[];
  // The flags come from the runner and the plugins of the active preset: read quietly first
  // (no trust question; a config that fails to load fails below, where it always did).
  const active = await activePlugins(prescan(argv), "run");
  let table: FlagTable;
  try {
    table = runFlagTable(active.plugins);
    const command = commandAfterFlags?.(argv, table, active);
    if (command) return await command;
    ({ values, positionals } = parseRunArgs(argv, table));
    if (values.help) {
      io.stdout(runUsage(table));
      return EXIT.ok;
    }
    format = typeof values["output-format"] === "string" ? values["output-format"] : "text";
    checkCombinations(values, format, typeof values["input-format"] === "string" ? values["input-format"] : "text");
  } catch (error) {
    // A flag the folder's skipped config would add: say why it is unknown.
    const hint = skippedConfigHint(active);
    if (hint && error instanceof UsageError && error.message.startsWith("unknown flag"))
      return stop(new UsageError(error.message.replace(/; see `[^`]*`$/, hint)));
    return stop(error);
  }
  // claude -p needs --verbose for stream-json, where it means every message, not diagnostics: in
  // claude's shape the JSON formats keep stderr as quiet as claude's (a script may merge it in).
  const allMessages = shape === "claude" && format !== "text" && values.verbose === true;
  if (allMessages) values = { ...values, verbose: false };
  const verbose = values.verbose === true;
  const inTerminal = io.stdin.isTTY === true && io.stdoutIsTTY;
  // A lone `-` is the prompt read from standard input (codex exec's `-`, the Unix convention), never the word "-".
  const fromStdin = positionals.length === 1 && positionals[0] === "-";
  let prompt = fromStdin ? "" : positionals.join(" ").trim();
  const mode: Mode =
    values["input-format"] === "stream-json"
      ? "stream"
      : chat || (!prompt && !fromStdin && !values.print && inTerminal && format === "text")
        ? "chat"
        : "once";

  const chatProblem =
    mode === "chat" ? terminalModeProblem(inTerminal && io.terminal !== undefined, format, prompt) : undefined;
  if (chatProblem) return stop(chatProblem);
  if (mode === "chat" && values["output-last-message"] !== undefined)
    return stop(
      new UsageError(
        '--output-last-message writes one run\'s final answer: give the prompt (ubiquity -p "…" -o <file>)',
      ),
    );
  if (mode === "once") {
    try {
      prompt = combinePrompt(
        prompt,
        await readStdin(io.stdin as Parameters<typeof readStdin>[0], { bounded: prompt !== "" }),
      );
    } catch (error) {
      return stop(new UsageError(`cannot read standard input: ${describeError(error)}`));
    }
    if (!prompt) return stop(new UsageError(fromStdin ? NO_STDIN_PROMPT : NO_PROMPT));
  }

  let options: UbiquityConfig;
  let resumeProblem: string | undefined;
  let configuredModel: unknown;
  try {
    const askHere = io.stdin.isTTY === true && (io.stderrIsTTY ?? io.stdoutIsTTY);
    ({ options, resumeProblem, configuredModel } = await resolveRunOptions(active, values, table, {
      ask: askHere ? (question) => askLine(io, question) : undefined,
      warn: (line) => io.stderr(`${line}\n`),
      terminal: io.stderrIsTTY === true,
    }));
  } catch (error) {
    return stop(error, verbose);
  }
  // Its lines carry a task's command, a tool's name, a sandbox refusal's path: shown, not obeyed.
  const verboseText = io.stderrIsTTY ? terminalText : (line: string) => line;
  if (verbose)
    options.plugins = [...(options.plugins ?? []), verbosePlugin((line) => io.stderr(`${verboseText(line)}\n`))];

  // A switcher's shell keeps Claude Code's exports: one that does nothing here is said, not ignored.
  const unread = unreadClaudeVariables(process.env, options);
  if (unread) io.stderr(`${unread}\n`);
  const answerers = answerersOf(active.plugins);
  // The terminal mode's code (and the checkpoints' rewind it offers) loads only when it runs.
  if (mode === "chat")
    return (await import("./chat")).runChat(options, io, {
      fixedModel: values.model !== undefined,
      verbose,
      answerers,
    });
  if (requestedModel({ model: options.model ?? configuredModel }) === undefined)
    return stop(noModelError(active, options, resumeProblem), verbose);
  const json = jsonOf(shape, values["replay-user-messages"] === true);
  if (mode === "stream") return runStream(options, io, json, shape);
  return runOnce(prompt, options, io, format, answerers, {
    print: values.print === true,
    verbose,
    json,
    // Claude Code prints the json result on one line (a script may read it with `read -r`), and
    // with --verbose every message, as one array.
    indent: shape === "claude" ? undefined : 2,
    everything: allMessages,
    lastMessage: typeof values["output-last-message"] === "string" ? values["output-last-message"] : undefined,
  });
}

/**
 * The run's config: the one read for the flag table when nothing is left to ask (its trust
 * warning printed now), else read again, asking the trust question in a terminal.
 */
async function loadForRun(
  quiet: LoadedCliConfig | undefined,
  values: RunValues,
  ask: ((question: string) => Promise<string>) | undefined,
  warn: (line: string) => void,
): Promise<LoadedCliConfig> {
  const wouldAsk =
    ask !== undefined &&
    quiet !== undefined &&
    ((quiet.trust.source === "default" && quiet.trust.files.length > 0) || quiet.trust.unapproved.length > 0);
  if (quiet && !wouldAsk) {
    const warning = untrustedWarning(quiet.trust, quiet.config.cwd ?? process.cwd());
    if (warning) warn(warning);
    return quiet;
  }
  return loadCliConfig(
    {
      config: values.config as string | undefined,
      cwd: values.cwd as string | undefined,
      trust: values.trust === true,
    },
    "run",
    { ask, warn },
  );
}

/**
 * The options of a run from its parsed command line, as `ubiquity run` resolves them (also for
 * `ubiquity acp`'s sessions): the config with the folder's trust decided, `--preset`, the flags
 * (they win over the config), a resumed session's model, the logger; the kernel is built once so
 * a bad option or a plugin failing to apply is a configuration error naming the config file.
 */
export async function resolveRunOptions(
  active: ActivePlugins,
  values: RunValues,
  table: FlagTable,
  trust: TrustIO & { warn: (line: string) => void; terminal?: boolean },
): Promise<{
  options: UbiquityConfig;
  filepath: string | null;
  configuredModel?: unknown;
  configuredMode?: unknown;
  resumeProblem?: string;
}> {
  const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  const loaded = await loadForRun(active.loaded, values, trust.ask, trust.warn);
  const options = loaded.config;
  if (typeof values.preset === "string") options.presets = [await presetByName(values.preset, cwd)];
  applyRunFlags(options, values, table);
  // A resumed session keeps the model it ran on unless --model says otherwise (a model object from code stays).
  let resumeProblem: string | undefined;
  if ((values.resume || values.continue) && values.model === undefined && typeof options.model !== "object") {
    const id = typeof values.resume === "string" ? values.resume : undefined;
    const stored = await storedSessionLookup(options, id);
    if (stored.model) options.model = stored.model;
    // Said with "No model configured": the session to take the model from is the problem.
    else if (!stored.found)
      resumeProblem = id
        ? `No stored session with id "${id}" in ${stored.dir} (check the id: ubiquity sessions list)`
        : `No earlier session of this folder in ${stored.dir} to continue`;
  }
  // To a terminal, a warning's text from a program (a hook's systemMessage or stderr) goes with its control characters shown.
  options.logger ??= consoleLogger(values.verbose === true || undefined, trust.terminal ? terminalText : undefined);
  // Quiet: the run's own kernel says the same warnings once.
  const probe = kernelFor({ ...options, logger: defaultLogger({}) }, loaded.filepath);
  // A settings file's `model` (ours, or Codex's config.toml under compat) is applied by its
  // plugin as the kernel resolves the options: the "no model" check must see it.
  const configuredModel = probe.options.model;
  // The same for the starting permission mode (a settings file's defaultMode, Codex's approval_policy
  // and sandbox_mode): an editor's session (acp) shows it and starts in it.
  const configuredMode = probe.options.permissionMode;
  await probe.dispose();
  return {
    options,
    filepath: loaded.filepath,
    configuredModel,
    configuredMode,
    ...(resumeProblem ? { resumeProblem } : {}),
  };
}

/**
 * Watch for Ctrl-C (SIGINT) and SIGTERM while a run goes on: either aborts the run, which then
 * ends as every run does (its result printed, the transcript closed, MCP servers and Bash
 * children stopped). `exitCode()` is 130 or 143 when one came, as a shell reports those signals.
 * The listener stays on (never `once`) while the run ends: the process kit's own listener, there
 * while a command runs, ends the program when it finds itself the only one, and a `once` listener
 * is gone by the time it looks — a signal in the middle of a Bash call killed the run with no
 * result and the call unanswered. A second signal of the same kind ends the program at once.
 */
function onInterrupt(controller: AbortController) {
  let code: number | undefined;
  const stops: (() => void)[] = [];
  const stop = () => {
    for (const remove of stops.splice(0)) remove();
  };
  const on = (signal: "SIGINT" | "SIGTERM", exit: number, why: string) => {
    let seen = false;
    const handler = () => {
      if (seen) {
        // Asked twice: stop waiting for the run to end in order, as the signal's default would.
        stop();
        process.kill(process.pid, signal);
        return;
      }
      seen = true;
      code ??= exit;
      controller.abort(new Error(why));
    };
    process.on(signal, handler);
    stops.push(() => void process.removeListener(signal, handler));
  };
  on("SIGINT", EXIT.interrupted, "interrupted (Ctrl-C)");
  on("SIGTERM", EXIT.terminated, "terminated (SIGTERM)");
  return { exitCode: () => code, stop };
}

/** Providers whose key a newcomer most likely has, with a model to name in the example. */
const EXAMPLE_MODELS: [string, string][] = [
  ["ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5"],
  ["ANTHROPIC_AUTH_TOKEN", "anthropic:claude-sonnet-4-5"],
  ["OPENAI_API_KEY", "openai:gpt-5"],
  ["GOOGLE_GENERATIVE_AI_API_KEY", "google:gemini-2.5-pro"],
];

/**
 * The model the "no model" error suggests: one of the provider whose key variable is set (a
 * switcher from claude has ANTHROPIC_API_KEY, not OPENAI_API_KEY), saying so; only whether the
 * variable is set is read.
 */
function exampleModel(env: NodeJS.ProcessEnv = process.env): string {
  const found = EXAMPLE_MODELS.find(([key]) => env[key]?.trim());
  return found ? `${found[1]} (${found[0]} is set)` : "openai:gpt-5";
}

/**
 * "No model configured", found before the run starts (exit 2), naming the config file an
 * untrusted folder's run skipped (it may be where the model is set), and the session `--resume`
 * or `--continue` named when there was none to take the model from.
 */
function noModelError(active: ActivePlugins, codex: object, resumeProblem?: string): ConfigError {
  const skipped = skippedConfig(active);
  const hint = skipped
    ? `. This folder's ${skipped.file} was skipped because ${skipped.why}, so a model it sets was not read: ${skipped.fix}, or pass --trust (or UBIQUITY_TRUST=1) for this run`
    : "";
  const fix = `pass --model (e.g. --model ${exampleModel()}, or --model test for the offline model), set model in the config file, or the UBIQUITY_MODEL environment variable`;
  const claude = otherToolsModel(active.loaded?.config.cwd ?? process.cwd(), codex);
  if (resumeProblem)
    return new ConfigError(`${resumeProblem}, so there is no model to resume on: ${fix}${hint}${claude}`);
  return new ConfigError(`No model configured: ${fix}${hint}${claude}`);
}

/**
 * The model a switcher's own files set, which this run did not read: Codex's
 * `~/.codex/config.toml` (read under `compat: ["codex"]`), else a Claude Code settings file's
 * (`"claude-sonnet-4-5"`, never the run's model: it names no provider); said with the --model it
 * means. Only read for this message; "" when no file sets one.
 */
function otherToolsModel(cwd: string, options: object): string {
  // The settings plugin's keys, read from the options as given (that plugin never ran).
  const compat = "compat" in options ? options.compat : undefined;
  const codexProfile = "codexProfile" in options ? options.codexProfile : undefined;
  const codex = join(homedir(), ".codex", "config.toml");
  // Read under compat codex: the file's model was there and not usable; say why (the settings plugin never ran).
  const profile = typeof codexProfile === "string" ? codexProfile : undefined;
  const problem = Array.isArray(compat) && compat.includes("codex") ? codexModelProblem(codex, profile) : undefined;
  if (problem) return `. ${codex}: ${problem}`;
  const toml = readRegularFileSync(codex, 1024 * 1024);
  // The top-level `model = "…"`: before the first [table].
  const top = toml.ok ? toml.text.split(/^\s*\[/m)[0]! : "";
  const codexModel = /^\s*model\s*=\s*"([\w.:[\]-]{1,80})"\s*(#.*)?$/m.exec(top)?.[1];
  if (codexModel)
    return `. Codex's model = "${codexModel}" in ${codex} is read with --compat codex (or compat: ["codex"] in the config); or pass --model ${codexModel.includes(":") ? codexModel : `openai:${codexModel}`}`;
  return claudeSettingsModel(cwd);
}

/** Claude Code's `ANTHROPIC_MODEL` (a gateway set-up exports it), else a Claude Code settings file's `model`, with the --model it means; "" when none sets one. */
function claudeSettingsModel(cwd: string): string {
  const variable = process.env.ANTHROPIC_MODEL?.trim();
  if (variable && /^[\w.:[\]/-]{1,80}$/.test(variable)) {
    // Claude Code sends it on the Anthropic wire, a gateway's own names (glm-4.6) included.
    const meant = modelStringFor(variable) ?? `anthropic:${variable}`;
    return `. Claude Code's ANTHROPIC_MODEL=${variable} is not read here (a model string names its provider): pass --model ${meant}, or set UBIQUITY_MODEL=${meant}`;
  }
  const files = [
    join(cwd, ".claude", "settings.local.json"),
    join(cwd, ".claude", "settings.json"),
    join(homedir(), ".claude", "settings.json"),
  ];
  for (const file of files) {
    const read = readRegularFileSync(file, 1024 * 1024);
    if (!read.ok) continue;
    let model: unknown;
    try {
      model = (JSON.parse(read.text) as { model?: unknown }).model;
    } catch {
      continue;
    }
    if (typeof model !== "string" || !/^[\w.:[\]-]{1,80}$/.test(model)) continue;
    const meant = modelStringFor(model);
    return `. Claude Code's "model": "${model}" in ${file} is not read here (a model string names its provider)${meant ? `: pass --model ${meant}` : ""}`;
  }
  return "";
}

/** The exit code of a run that ended with `result`: a failure while it was set up (nothing asked of the model) is a configuration error. */
function exitOfResult(result: ResultMessage | undefined): number {
  if (!result || result.isError) return result?.subtype === "error_configuration" ? EXIT.usage : EXIT.failed;
  return EXIT.ok;
}

/**
 * A message as the JSON formats print it: Ubiquity's own shape, Claude Code's (`--message-format
 * claude`) or Codex's events (`--message-format codex`: none, one or several lines a message); undefined prints nothing.
 */
type JsonOf = (message: Message) => object | object[] | undefined;

function jsonOf(shape: MessageFormat, replayUser: boolean): JsonOf {
  if (shape === "codex") return codexFormatter();
  return shape === "claude" ? claudeFormatter({ replayUser }) : (m) => m;
}

/** Print a shaped message as stream-json lines (one per object). */
function printLines(io: RunnerIO, shaped: object | object[] | undefined): void {
  for (const line of Array.isArray(shaped) ? shaped : shaped ? [shaped] : []) io.stdout(`${JSON.stringify(line)}\n`);
}

/** One prompt, one run. With `-p` (or no terminal) the text output is the final result only, as `claude -p`'s; `--verbose` shows the rest. */
async function runOnce(
  prompt: string,
  options: UbiquityConfig,
  io: RunnerIO,
  format: string,
  answerers: TerminalAnswerer[],
  {
    print,
    verbose,
    json,
    indent,
    everything,
    lastMessage,
  }: { print: boolean; verbose: boolean; json: JsonOf; indent?: number; everything?: boolean; lastMessage?: string },
): Promise<number> {
  // -p never asks and never streams, in a terminal too (nothing prompts, as in `claude -p`).
  const interactive = io.stdoutIsTTY && io.stdin.isTTY === true && format === "text" && !print;
  const style = createStyle(colorEnabled(io.stderrIsTTY ?? io.stdoutIsTTY));
  const renderer = new TextRenderer(
    {
      // To a terminal, what the model or a program wrote goes with its control characters shown
      // (a pipe gets the text as it is: a program reading it decides).
      out: (t) => io.stdout(io.stdoutIsTTY ? terminalText(t) : t),
      info: (t) => io.stderr(`${t}\n`),
      ...(interactive ? { status: (t: string) => io.stderr(t) } : {}),
    },
    interactive,
    style,
    { finalOnly: !verbose, progress: verbose || !print, warned: (text) => alreadyWarned(options.logger, text) },
  );
  if (interactive) {
    options.includePartialMessages = true;
    if (declaresOption(options, "canUseTool"))
      options.canUseTool ??= terminalApprover(io, {
        answerers,
        beforeQuestion: (toolName, toolInput, toolUseId) => renderer.toolLine({ toolName, toolInput, toolUseId }),
      });
  }
  // Headless, nothing prompts: an ask is denied with a message saying how to pre-approve it.
  const controller = new AbortController();
  const sigint = onInterrupt(controller);
  options.abortSignal ??= controller.signal;
  let result: ResultMessage | undefined;
  const all: object[] = [];
  try {
    for await (const message of summon(prompt, options)) {
      if (message.type === "result") result = message;
      const shaped = format === "json" && everything ? json(message as Message) : undefined;
      if (shaped) all.push(...(Array.isArray(shaped) ? shaped : [shaped]));
      // An unsandboxed run says so on stderr in the JSON formats too (stdout stays the format's own; text's renderer says it).
      if (
        format !== "text" &&
        message.type === "system" &&
        message.subtype === "init" &&
        !message.agentId &&
        message.sandbox?.warning &&
        !alreadyWarned(options.logger, message.sandbox.warning)
      )
        io.stderr(`warning: ${message.sandbox.warning}\n`);
      if (format === "stream-json") printLines(io, json(message as Message));
      else if (format === "text") renderer.render(message as Message);
    }
  } finally {
    renderer.close();
    sigint.stop();
  }
  if (format === "json" && result) {
    // A formatter gives a message's lines as a list (Claude's shape does): the result is one line.
    const last = everything ? all : json(result);
    io.stdout(`${JSON.stringify(Array.isArray(last) && !everything ? last[0] : last, null, indent)}\n`);
  }
  if (lastMessage !== undefined && !writeLastMessage(io, lastMessage, result)) return EXIT.failed;
  return sigint.exitCode() ?? exitOfResult(result);
}

/**
 * `--output-last-message <file>` (codex exec's `-o`): the final answer, as the last agent message's
 * text (a structured answer's JSON), or an empty file when the run failed, as Codex writes it; the
 * path is the caller's, relative to the folder the command runs in (not `--cwd`), as in Codex.
 * False when the file cannot be written (said on stderr: a script reading it must not get a stale one).
 */
function writeLastMessage(io: RunnerIO, file: string, result: ResultMessage | undefined): boolean {
  const structured = (result as { structuredOutput?: unknown } | undefined)?.structuredOutput;
  const text = !result || result.isError ? "" : structured !== undefined ? JSON.stringify(structured) : result.result;
  try {
    writeFileSync(resolve(file), text);
    return true;
  } catch (error) {
    io.stderr(`error: --output-last-message ${file}: cannot write the file (${describeError(error)})\n`);
    return false;
  }
}

/**
 * One `--input-format stream-json` line as the live session's input: Claude Code's
 * `{"type":"user","message":{"role":"user","content":…}}` (text and image blocks, given to
 * `summon()` as they are, so an image reaches the model) or Ubiquity's `{"type":"user","text":…}`;
 * `"interrupt": true` stops the work in progress. A line that is no such message is a usage error
 * naming the shape.
 */
export function userInputOf(line: string): UserInput {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch (error) {
    throw new UsageError(
      `--input-format stream-json: a line is not JSON (${describeError(error)}): ${line.slice(0, 80)}`,
    );
  }
  const m = data as { type?: unknown; text?: unknown; content?: unknown; message?: unknown; interrupt?: unknown };
  const shape =
    '--input-format stream-json: each line must be a user message, {"type":"user","message":{"role":"user","content":"…"}}';
  if (m?.type !== "user" || (typeof m.text !== "string" && !Array.isArray(m.content) && m.message === undefined))
    throw new UsageError(shape);
  const input = {
    type: "user",
    ...(typeof m.text === "string" ? { text: m.text } : {}),
    ...(Array.isArray(m.content) ? { content: m.content } : {}),
    ...(m.message !== undefined ? { message: m.message } : {}),
    ...(m.interrupt === true ? { interrupt: true } : {}),
  } as UserInput;
  // What summon() cannot read (another block type, a message that is no object) stops here, named.
  let turn: ReturnType<typeof userTurn>;
  try {
    turn = userTurn(input);
  } catch (error) {
    throw new UsageError(`${shape}: ${describeError(error).replace(/^summon\(prompt\): /, "")}`);
  }
  if (!turn.text && !turn.content?.length) throw new UsageError(`${shape}: this one holds no text and no image`);
  return input;
}

/** `--input-format stream-json`: the stdin lines are the input of one live session (a line marked `"interrupt": true` stops the work in progress). */
async function runStream(options: UbiquityConfig, io: RunnerIO, json: JsonOf, shape: MessageFormat): Promise<number> {
  const controller = new AbortController();
  const sigint = onInterrupt(controller);
  let bad: unknown;
  const lines = createInterface({ input: io.stdin, terminal: false, crlfDelay: Infinity })[Symbol.asyncIterator]();
  // The next user message on stdin; a line that is not one ends the input (reported after the session).
  const nextInput = async (): Promise<UserInput | undefined> => {
    for (let line = await lines.next(); !line.done; line = await lines.next()) {
      if (!line.value.trim()) continue;
      try {
        return userInputOf(line.value);
      } catch (error) {
        bad = error;
        return undefined;
      }
    }
    return undefined;
  };
  let failed = false;
  let configuration = false;
  try {
    const first = await nextInput();
    if (bad) return fail(io, bad, "stream-json", false, shape);
    if (first === undefined)
      return fail(
        io,
        new UsageError("--input-format stream-json: no user message on standard input"),
        "stream-json",
        false,
        shape,
      );
    // Lockstep, as one run per line did: a message goes in once the one before has its result,
    // unless it interrupts; so each message gets its own result.
    let results = 0;
    let wake: (() => void) | undefined;
    async function* input(): AsyncGenerator<UserInput> {
      let sent = 0;
      for (let m: UserInput | undefined = first; m !== undefined; ) {
        yield m;
        sent++;
        const next = await nextInput();
        while (next !== undefined && !(typeof next === "object" && next.interrupt) && results < sent)
          await new Promise<void>((r) => (wake = r));
        m = next;
      }
    }
    for await (const message of summon(input(), {
      ...options,
      abortSignal: options.abortSignal ?? controller.signal,
    })) {
      printLines(io, json(message as Message));
      if (message.type !== "result") continue;
      if (message.isError) failed = true;
      if (message.subtype === "error_configuration") configuration = true;
      results++;
      wake?.();
    }
    const signalled = sigint.exitCode();
    if (signalled !== undefined) return signalled;
    if (bad) return fail(io, bad, "stream-json", false, shape);
  } finally {
    sigint.stop();
  }
  return configuration ? EXIT.usage : failed ? EXIT.failed : EXIT.ok;
}
