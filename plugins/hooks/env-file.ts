/**
 * The CLAUDE_ENV_FILE files of one SessionStart (or FileChanged): one per hook, in a folder of the run's own
 * (mode 0700) on the host, or in the sandbox's private /tmp for a sandboxed hook; removed once read.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxApi } from "../sandbox/api";

export class SessionEnvFiles {
  #dir: string | undefined;
  readonly hostPaths: string[] = [];

  constructor(
    private readonly sandbox: SandboxApi,
    private readonly event = "sessionstart",
  ) {}

  /** The path the next hook is given (as it sees it); its host path is remembered. */
  next(contained: boolean): string {
    const name = `${this.event}-hook-${this.hostPaths.length}-${randomUUID().slice(0, 8)}.sh`;
    if (contained) {
      const inside = `/tmp/${name}`;
      this.hostPaths.push(this.sandbox.hostPath(inside));
      return inside;
    }
    this.#dir ??= mkdtempSync(join(tmpdir(), "ubiquity-session-env-"));
    const path = join(this.#dir, name);
    this.hostPaths.push(path);
    return path;
  }

  remove(): void {
    for (const path of this.hostPaths) rmSync(path, { force: true });
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }
}
