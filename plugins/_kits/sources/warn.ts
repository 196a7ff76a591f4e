import type { Kernel } from "../../../src/index";

/** Report a problem that does not stop the run (a skipped file, a refused include): logger and `event`. */
export function warn(kernel: Kernel, source: string, message: string): void {
  kernel.logger.warn(`[${source}] ${message}`);
  kernel.emit({ type: "warning", source, message });
}
