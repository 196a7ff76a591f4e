/** The runner's command table: what a command declares and receives. */
/** Where a command writes. Tests and embedders pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stdin and stdout are the user's terminal (the process's own streams): `ubiquity` alone opens the terminal mode. */
  interactive?: boolean;
  /** True when standard output is a terminal: a plugin command's text then shows its control characters. */
  stdoutIsTTY?: boolean;
  /** True when standard error is a terminal (the same for its messages). */
  stderrIsTTY?: boolean;
}

/** One flag of a command, as parsed and as shown by `--help`. */
export interface CliFlag {
  type: "string" | "boolean";
  short?: string;
  /** Shown in help, e.g. `<file>`. */
  value?: string;
  multiple?: boolean;
  description: string;
}

/** The parsed command line a command receives. */
export interface CliArgs {
  values: Record<string, string | boolean | string[] | undefined>;
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
