/** Shared fixtures for the tool tests: real temp folders and a hand-built ToolContext. */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { ToolContext } from "../../src/index";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder (real path), removed after the test. */
export function tempDir(prefix = "ubiquity-tools-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A temp folder shared by the tests of a file: made (and filled) before the first, removed after the last. */
export function suiteDir(prefix: string, fill: (dir: string) => void): () => string {
  let dir = "";
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    fill(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

/** A ToolContext for `cwd`, as the loop would build it. */
export function toolContext(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    cwd,
    roots: [cwd],
    abortSignal: new AbortController().signal,
    sessionId: "test-session",
    toolUseId: "test-call",
    env: {},
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ...extra,
  };
}
