/**
 * For tests of command hooks: executable shell scripts in a temp folder, the JSON lines a
 * recording hook appended to its log, and a logger that keeps the warnings and errors it is told.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** An executable shell script in `dir`. */
export function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The JSON objects of a log a recording hook appends to (one line each); none while it does not exist. */
export const lines = (log: string): Record<string, unknown>[] =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

/** A logger that keeps what it is warned of (errors too), as lines. */
export const capture = () => {
  const warnings: string[] = [];
  const logger = {
    debug() {},
    info() {},
    error: (...a: unknown[]) => warnings.push(a.join(" ")),
    warn: (...a: unknown[]) => warnings.push(a.join(" ")),
  };
  return { warnings, logger };
};
