/**
 * Runs through the built bin against a fake OpenAI server whose model makes one chosen tool call
 * first (`world.firstCall`, a Glob unless a test sets another), then says "done"; a fresh HOME per
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
    /** A fresh folder (real path), removed after the file. */
    temp(prefix: string): string {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
      made.push(dir);
      return dir;
    },
  };
  const script = (request: RecordedRequest) =>
    JSON.stringify(request.body).includes(world.firstCall.id) ? "done" : { toolCalls: [world.firstCall] };
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
  });
  return world;
}
