import type { Logger } from "./config/schema";

const noop = () => {};

/** True when `DEBUG` names ubiquity (`ubiquity`, `ubiquity*`, `ubiquity:*`, `*`), the convention Node users know. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.DEBUG ?? "";
  return value
    .split(/[\s,]+/)
    .some((p) => p === "*" || p === "ubiquity" || p.startsWith("ubiquity*") || p.startsWith("ubiquity:"));
}

/** The default logger: quiet unless `DEBUG=ubiquity*`, then everything to stderr. */
export function defaultLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  if (!debugEnabled(env)) return { debug: noop, info: noop, warn: noop, error: noop };
  const out =
    (level: string) =>
    (...args: unknown[]) =>
      console.error(`ubiquity ${level}`, ...args);
  return { debug: out("debug"), info: out("info"), warn: out("warn"), error: out("error") };
}
