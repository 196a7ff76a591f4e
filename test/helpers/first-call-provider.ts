/**
 * Runs through the built bin against a fake OpenAI server whose model makes one chosen tool call
 * first (`world.firstCall`, a Glob unless a test sets another), then each of `world.laterCalls` in
 * turn (one per request, each once the previous one's result is back), then says "done"; a fresh HOME per
 * test (`world.home`); temp folders (`world.temp`) removed after the file. For the tests that
 * prove what a run did (or did not) by marker files and the recorded requests.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startProviderServer, type FakeProviderServer, type RecordedRequest } from "../../src/testing/index";
import { requireDist } from "./project";

/** The tool call the model makes first. */
export interface FirstCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

const LIST_FILES: FirstCall = { id: "call_glob", name: "Glob", input: { pattern: "*" } };

/** Register the file's hooks and return the world its tests read and set. */
export function firstCallProvider(homePrefix: string) {
  const made: string[] = [];
  const world = {
    provider: undefined as unknown as FakeProviderServer,
    home: "",
    firstCall: LIST_FILES,
    /** Calls made after the first, one per request, in order. */
    laterCalls: [] as FirstCall[],
    /** A fresh folder (real path), removed after the file. */
    temp(prefix: string): string {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
      made.push(dir);
      return dir;
    },
  };
  const script = (request: RecordedRequest) => {
    const body = JSON.stringify(request.body);
    const next = [world.firstCall, ...world.laterCalls].find((call) => !body.includes(call.id));
    return next ? { toolCalls: [next] } : "done";
  };
  beforeAll(async () => {
    requireDist();
    world.provider = await startProviderServer(script);
  });
  afterAll(async () => {
    await world.provider.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    world.home = world.temp(homePrefix);
    world.firstCall = LIST_FILES;
    world.laterCalls = [];
  });
  return world;
}
