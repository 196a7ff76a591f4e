import { type Kernel, redactText, secretsOf } from "../../../src/index";

/**
 * Report a problem that does not stop the run (a skipped file, a refused include): logger and
 * `event`, both masked (a warning may quote what a file or a program said: red team zl, ZL3).
 */
export function warn(kernel: Kernel, source: string, message: string): void {
  kernel.logger.warn(`[${source}] ${message}`);
  kernel.emit({ type: "warning", source, message: redactText(message, secretsOf(kernel.options)) });
}

const said = new WeakMap<Kernel, Set<string>>();

/**
 * `warn`, once per kernel for a given message: for a problem several plugins meet reading the
 * same file (a plugin folder every plugin that loads a part of it reads).
 */
export function warnOnce(kernel: Kernel, source: string, message: string): void {
  let set = said.get(kernel);
  if (!set) said.set(kernel, (set = new Set()));
  if (set.has(message)) return;
  set.add(message);
  warn(kernel, source, message);
}
