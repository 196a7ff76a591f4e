import { debugEnabled, type Logger } from "../src/index";

const noop = () => {};

/** The runner's logger, which also answers whether it printed a warning already. */
export interface ConsoleLogger extends Logger {
  /** Whether a warning holding `text` was printed (a message carrying the same warning is then not printed again). */
  warned(text: string): boolean;
}

/**
 * A logger that prints warnings and errors to stderr (used by the runner). `shown`, when given,
 * rewrites each string argument as it is printed: the runner passes its terminal form when stderr
 * is a terminal, since a warning carries what programs wrote (a hook's `systemMessage`, its stderr
 * when it failed), and an escape sequence there (OSC 52, a title) must be shown, not obeyed.
 */
export function consoleLogger(verbose = debugEnabled(), shown?: (text: string) => string): ConsoleLogger {
  const said: string[] = [];
  const print = (label: string, a: unknown[]) =>
    console.error(label, ...(shown ? a.map((x) => (typeof x === "string" ? shown(x) : x)) : a));
  return {
    debug: verbose ? (...a: unknown[]) => print("ubiquity debug", a) : noop,
    info: verbose ? (...a: unknown[]) => print("ubiquity info", a) : noop,
    warn: (...a: unknown[]) => {
      said.push(a.map(String).join(" "));
      print("warning:", a);
    },
    error: (...a: unknown[]) => print("error:", a),
    warned: (text) => said.some((line) => line.includes(text)),
  };
}

/** Whether `logger` is the runner's and printed a warning holding `text`. */
export function alreadyWarned(logger: Logger | undefined, text: string): boolean {
  return (
    typeof (logger as Partial<ConsoleLogger> | undefined)?.warned === "function" &&
    (logger as ConsoleLogger).warned(text)
  );
}
