import { debugEnabled, type Logger } from "../src/index";

const noop = () => {};

/** The runner's logger, which also answers whether it printed a warning already. */
export interface ConsoleLogger extends Logger {
  /** Whether a warning holding `text` was printed (a message carrying the same warning is then not printed again). */
  warned(text: string): boolean;
}

/** A logger that prints warnings and errors to stderr (used by the runner). */
export function consoleLogger(verbose = debugEnabled()): ConsoleLogger {
  const said: string[] = [];
  return {
    debug: verbose ? (...a: unknown[]) => console.error("ubiquity debug", ...a) : noop,
    info: verbose ? (...a: unknown[]) => console.error("ubiquity info", ...a) : noop,
    warn: (...a: unknown[]) => {
      said.push(a.map(String).join(" "));
      console.error("warning:", ...a);
    },
    error: (...a: unknown[]) => console.error("error:", ...a),
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
