import { debugEnabled, type Logger } from "../src/index";

const noop = () => {};

/** A logger that prints warnings and errors to stderr (used by the runner). */
export function consoleLogger(verbose = debugEnabled()): Logger {
  return {
    debug: verbose ? (...a: unknown[]) => console.error("ubiquity debug", ...a) : noop,
    info: verbose ? (...a: unknown[]) => console.error("ubiquity info", ...a) : noop,
    warn: (...a: unknown[]) => console.error("warning:", ...a),
    error: (...a: unknown[]) => console.error("error:", ...a),
  };
}
