/**
 * `SessionStore.delete()` while a run writes the session: refused, naming the run, in this process
 * and from another one; the writer would otherwise go on appending to a file nobody could find.
 * Once the run ended (or its process died, leaving a stale lock), the delete goes through.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionStore, summon } from "ubiquity";
import { offlineModel, scriptedModel } from "ubiquity/testing";
import sessions from "../../plugins/sessions/index";
import { collect, resultOf } from "../helpers/collect";
import { spawnTs } from "../helpers/ts-child";
import { tempDirs } from "./helpers";

const temp = tempDirs();

describe("deleting a session a run is writing", () => {
  it("is refused while a run of this process writes it, and goes through once the run ended", async () => {
    const sessionDir = temp();
    const cwd = temp();
    const sessionId = randomUUID();
    const store = new SessionStore({ dir: sessionDir });
    const path = store.pathFor(sessionId, cwd);
    // The model answers once the delete was tried: the run is under way, whatever the load.
    let asked!: () => void;
    const modelAsked = new Promise<void>((r) => (asked = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const running = collect(
      summon("work slowly", {
        model: offlineModel("scripted", "gated", async () => {
          asked();
          await released;
          return { text: "done" };
        }),
        presets: [],
        plugins: [sessions()],
        sessionDir,
        cwd,
        sessionId,
      }),
    );
    await modelAsked;
    await expect(store.delete(sessionId)).rejects.toThrow(
      new RegExp(`session ${sessionId} is being written by a run \\(pid ${process.pid} on `),
    );
    expect(existsSync(path)).toBe(true);
    release();
    const result = resultOf(await running);
    expect(result.isError).toBe(false);
    expect(await store.delete(sessionId)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("is refused while another process holds the session's lock, and goes through once that process is gone", {
    timeout: 300_000,
  }, async () => {
    const sessionDir = temp();
    const cwd = temp();
    const first = resultOf(
      await collect(
        summon("start", { model: scriptedModel(["started"]), presets: [], plugins: [sessions()], sessionDir, cwd }),
      ),
    );
    const store = new SessionStore({ dir: sessionDir });
    const path = store.pathFor(first.sessionId, cwd);
    const child = spawnTs(join(import.meta.dirname, "fixtures", "lock-child.ts"), [path]);
    let stdout = "";
    const said = (word: string) =>
      new Promise<void>((resolve) =>
        child.stdout.setEncoding("utf8").on("data", (c: string) => ((stdout += c), stdout.includes(word) && resolve())),
      );
    await said("ready\n");
    child.stdin.write("go\n");
    await said("won\n");
    await expect(store.delete(first.sessionId)).rejects.toThrow(
      new RegExp(`being written by a run \\(pid ${child.pid} on `),
    );
    expect(existsSync(path)).toBe(true);
    child.stdin.end();
    await new Promise((resolve) => child.on("close", resolve));
    // The child kept its lock to the end (it never released it): a stale lock, taken over.
    expect(existsSync(`${path}.lock`)).toBe(true);
    expect(await store.delete(first.sessionId)).toBe(true);
    expect(existsSync(path)).toBe(false);
  });
});
