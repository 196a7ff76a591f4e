/** Shared fixtures for the tool tests: real temp folders and a hand-built ToolContext. */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, onTestFinished } from "vitest";
import type { ToolContext } from "../../src/index";

/**
 * A fresh temp folder (real path), removed after the test that made it (made while a file's tests
 * are collected: after its last test). The removal is registered by each call, not by a hook of
 * this module: test/tools shares its workers' module cache (vitest.config.ts), so a module-level
 * `afterEach` here ran only in the first file of each worker and the others' folders stayed in /tmp.
 */
export function tempDir(prefix = "ubiquity-tools-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a test: the file is being collected.
    afterAll(remove);
  }
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
