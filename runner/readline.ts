/** `createInterface` of node:readline/promises, loaded when the runner first reads a line rather than with the runner (cold start). */
import { createRequire } from "node:module";
import type * as Readline from "node:readline/promises";

/** node:readline/promises' `createInterface` (the options form). */
export function createInterface(options: Readline.ReadLineOptions): Readline.Interface {
  return (createRequire(import.meta.url)("node:readline/promises") as typeof Readline).createInterface(options);
}
