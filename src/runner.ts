/**
 * `ubiquity run [prompt]`: run an agent from the command line. In a terminal it streams text,
 * shows tool calls compactly, asks for approval interactively and ends with turns, tokens and
 * cost; without one (CI, pipes) nothing prompts. Exit code 1 when the run failed.
 */
import { parseArgs } from "node:util";
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import { builtinPreset, summon } from "./facade";
import { loadCliConfig } from "./cli";
import { resolveEntries } from "./config/resolve";
import { TextRenderer } from "./render";
import { consoleLogger } from "./logger";
import { ConfigError, describeError } from "./errors";
import { PERMISSION_MODES, type PermissionMode, type UbiquityConfig } from "./config/schema";
import { terminalApprover } from "./approver";
import type { Preset } from "./preset";
import type { Message, ResultMessage } from "./messages";

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
}

/** The process's own streams. */
export function processRunnerIO(): RunnerIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    stdin: process.stdin,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

export const RUN_USAGE = `Usage: ubiquity run [options] [prompt]

Run an agent on the prompt (or on standard input when no prompt is given).

Options:
  --config <file>           config file to load (skips the search)
  --preset <name>           preset to run: default, minimal, headless, or a module
  --model <model>           "provider:model", an alias, or "test" (the offline model)
  --permission-mode <mode>  ${PERMISSION_MODES.join(" | ")}
  --max-turns <n>           stop after n model turns
  --sandbox                 run Bash, command hooks and stdio MCP servers in the OS sandbox
  --cwd <dir>               working directory (and where the config search starts)
  --resume <id>             continue a stored session
  --continue                continue the latest session for the working directory
  --output-format <f>       text (default) | json (the result message) | stream-json (one message per line)
  --trust                   apply this folder's own config and settings for this run (not remembered;
                            also UBIQUITY_TRUST=1). Without it an untrusted folder's files are skipped,
                            or, in a terminal, you are asked once. See \`ubiquity trust --help\`.
  -h, --help                show this help
`;

async function presetByName(name: string, cwd: string): Promise<Preset> {
  const builtin = await builtinPreset(name);
  if (builtin) return builtin;
  const resolved = await resolveEntries({ presets: [name] }, cwd);
  const preset = resolved.presets?.[0];
  if (!preset || typeof preset !== "object" || Array.isArray(preset)) throw new ConfigError(`--preset ${name}: not a preset`);
  return preset as Preset;
}

function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolveText, reject) => {
    let text = "";
    stdin.setEncoding("utf8");
    stdin.on("data", (chunk: string) => (text += chunk));
    stdin.on("end", () => resolveText(text));
    stdin.on("error", reject);
  });
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

/** `ubiquity run`: returns the exit code. */
export async function runCommand(argv: string[], io: RunnerIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: "string" },
        preset: { type: "string" },
        model: { type: "string" },
        "permission-mode": { type: "string" },
        "max-turns": { type: "string" },
        sandbox: { type: "boolean" },
        cwd: { type: "string" },
        resume: { type: "string" },
        continue: { type: "boolean" },
        trust: { type: "boolean" },
        "output-format": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    io.stderr(`error: ${describeError(error)}\n\n${RUN_USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(RUN_USAGE);
    return 0;
  }
  const format = values["output-format"] ?? "text";
  if (!["text", "json", "stream-json"].includes(format)) {
    io.stderr(`error: --output-format must be text, json or stream-json, not ${JSON.stringify(format)}\n`);
    return 1;
  }
  const mode = values["permission-mode"];
  if (mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(mode)) {
    io.stderr(`error: --permission-mode must be one of ${PERMISSION_MODES.join(", ")}, not ${JSON.stringify(mode)}\n`);
    return 1;
  }
  let maxTurns: number | undefined;
  if (values["max-turns"] !== undefined) {
    maxTurns = Number(values["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      io.stderr(`error: --max-turns must be a positive integer, not ${JSON.stringify(values["max-turns"])}\n`);
      return 1;
    }
  }
  const cwd = resolve(values.cwd ?? process.cwd());
  const interactive = io.stdoutIsTTY && io.stdin.isTTY === true && format === "text";

  let prompt = positionals.join(" ").trim();
  if (!prompt && io.stdin.isTTY !== true) prompt = (await readStdin(io.stdin)).trim();
  if (!prompt) {
    io.stderr(`error: no prompt. Pass one (ubiquity run "list the files") or pipe it on standard input.\n`);
    return 1;
  }

  let options: UbiquityConfig;
  try {
    const inTerminal = io.stdin.isTTY === true && (io.stderrIsTTY ?? io.stdoutIsTTY);
    const loaded = await loadCliConfig({ config: values.config, cwd, trust: values.trust }, "run", {
      ask: inTerminal ? (question) => askLine(io, question) : undefined,
      warn: (line) => io.stderr(`${line}\n`),
    });
    options = loaded.config;
    if (values.preset) options.presets = [await presetByName(values.preset, cwd)];
  } catch (error) {
    io.stderr(`error: ${describeError(error)}\n`);
    return 1;
  }
  if (values.model) options.model = values.model;
  if (mode) options.permissionMode = mode as PermissionMode;
  if (maxTurns) options.maxTurns = maxTurns;
  if (values.sandbox) options.sandbox = typeof options.sandbox === "object" ? { ...options.sandbox, enabled: true } : true;
  if (values.resume) options.resume = values.resume;
  if (values.continue) options.continueConversation = true;
  options.logger ??= consoleLogger();
  if (interactive) {
    options.includePartialMessages = true;
    options.canUseTool ??= terminalApprover(io);
  } else if (options.canUseTool === undefined) {
    // Headless: nothing prompts; an ask is denied with a message saying no handler is configured.
  }

  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error("interrupted (Ctrl-C)"));
  process.once("SIGINT", onSigint);
  options.abortSignal ??= controller.signal;

  let result: ResultMessage | undefined;
  const renderer = new TextRenderer(
    { out: (t) => io.stdout(t), info: (t) => io.stderr(`${t}\n`), ...(interactive ? { status: (t: string) => io.stderr(t) } : {}) },
    interactive,
  );
  try {
    for await (const message of summon(prompt, options)) {
      if (message.type === "result") result = message;
      if (format === "stream-json") io.stdout(`${JSON.stringify(message)}\n`);
      else if (format === "text") renderer.render(message as Message);
    }
  } finally {
    renderer.close();
    process.removeListener("SIGINT", onSigint);
  }
  if (format === "json" && result) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  return result && !result.isError ? 0 : 1;
}
