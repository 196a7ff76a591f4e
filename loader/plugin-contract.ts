import type { Kernel } from "../src/index";

/**
 * A usage mistake: on the command line (an unknown command or flag, a missing or bad value: the
 * runner exits 2 and shows the usage), or a host API called when it cannot be (`setModel` after
 * the session ended). The kernel never throws it.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

/** One file (or folder) of the project's own that would apply in a trusted folder. */
export interface ProjectFile {
  path: string;
  /** What sort of file: `config`, or a word the plugin that reads it chose (`settings`, `skills`, …). */
  kind: string;
  /** What it could do, in words ("runs as code", "adds 2 shell hooks, allows Bash(npm:*)"). */
  effect: string;
  /** Another tool's file (`claude`, `codex`): read only under that `compat`, whatever trust says. */
  compat?: string;
}

/** Where a plugin looks for a folder's own files: the folder and the config search's folders up to its stop. */
export interface ProjectPlace {
  cwd: string;
  /** `cwd` and its parents up to the repository root (or home), nearest first. */
  folders: readonly string[];
  home: string;
}

/** One flag of a command, as the runner parses it and `--help` shows it. */
export interface CommandFlag {
  type: "string" | "boolean";
  short?: string;
  /** The value's placeholder in help, e.g. `<file>`. */
  value?: string;
  /** Repeatable: every occurrence counts. */
  multiple?: boolean;
  description: string;
}

/** A flag's parsed value. */
export type FlagValue = string | boolean | string[];

/** One flag of `ubiquity run`: parsed by the runner, listed under its `group`, applied to the run's options. */
export interface RunFlag extends CommandFlag {
  /** The `--help` group: Prompt and output, Model, Tools and permissions, Context, Sessions, Config and trust, Diagnostics (another name adds a group). */
  group: string;
  /** The `claude -p` flag of the same meaning (for the README's table); omitted when it has none. */
  claude?: string;
  /**
   * Claude Code's variadic form (`--allowedTools Read Grep`, `--add-dir ../a ../b`): the bare
   * words after the flag's value that this accepts are more values of it, not the prompt. Only
   * for a `multiple` string flag; a word it refuses (a sentence) is where the prompt starts.
   */
  variadic?(word: string): boolean;
  /**
   * Write the options this flag's plugin owns (flags win over the config file); throw a
   * `UsageError` for a bad value. `values` holds every flag given, by name.
   */
  apply?(options: Record<string, unknown>, value: FlagValue, values?: Record<string, FlagValue | undefined>): void;
}

/** The command line a command receives. */
export interface CommandArgs {
  /** Parsed flag values, by flag name (empty for a `raw` command). */
  values: Record<string, FlagValue | undefined>;
  positionals: string[];
  /** The arguments after the command's name, as typed. */
  argv: string[];
}

/** What the runner gives a command. */
export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * The config the command line names (`--config`, `--cwd`, `--trust` when the command has them):
   * the folder's trust decided, the default preset when the config names none. `quiet` skips the
   * untrusted-folder warning.
   */
  config(options?: { quiet?: boolean }): Promise<{ config: Record<string, unknown>; filepath: string | null }>;
  /** A kernel built from that config (not yet ready); the runner disposes it when the command returns. `quiet` logs nothing. */
  kernel(options?: { quiet?: boolean }): Promise<Kernel>;
}

/** A command a plugin adds to the runner: `ubiquity <name>`. */
export interface PluginCommand {
  /** One line for `ubiquity --help`. */
  summary: string;
  /** Usage after `ubiquity <name>`, e.g. `list | show <id>`. */
  usage?: string;
  /** The flags the runner parses and `ubiquity <name> --help` lists. */
  flags?: Record<string, CommandFlag>;
  /** Add the runner's `--config`, `--cwd` and `--trust` (what `io.config()` and `io.kernel()` read). */
  config?: boolean;
  /** Accept positional arguments (otherwise they are a usage error). */
  positionals?: boolean;
  /** The command parses `args.argv` itself and prints its own `--help`. */
  raw?: boolean;
  /** Resolves to the exit code; a thrown `UsageError` exits 2, another error 1. */
  run(args: CommandArgs, io: CommandIO): Promise<number>;
}

/** A tool call the runner's terminal is about to ask the user about. */
export interface TerminalCall {
  toolName: string;
  input: Record<string, unknown>;
  signal: AbortSignal;
}

/** The runner's terminal, one question at a time. */
export interface Terminal {
  /** Print to the terminal (standard error). */
  print(text: string): void;
  /** Ask one question; resolves to the line typed, trimmed. */
  ask(question: string, signal: AbortSignal): Promise<string>;
}

/**
 * A plugin's answerer: the runner calls it before its own approval question; a result is the
 * user's answer (the call runs with `input`), undefined leaves the call to the approval question.
 */
export type TerminalAnswerer = (
  call: TerminalCall,
  terminal: Terminal,
) => Promise<{ input: Record<string, unknown> } | undefined> | undefined;

declare module "../src/plugin" {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface Plugin<S = unknown, R = unknown, O = {}> {
    /** Commands this plugin adds to the `ubiquity` runner (`ubiquity <name>`); the kernel never reads them. */
    commands?: Record<string, PluginCommand>;
    /** Flags of `ubiquity run` that set the options this plugin owns. */
    flags?: Record<string, RunFlag>;
    /** Answers its tool's questions at the runner's terminal (before the approval question). */
    terminal?: TerminalAnswerer;
    /**
     * The folder's own files this plugin would apply (settings, agent folders, …), for the trust
     * question and the warning that names what an untrusted folder's run skipped. Found without
     * applying or running any of them.
     */
    projectFiles?(place: ProjectPlace): ProjectFile[];
  }
}
