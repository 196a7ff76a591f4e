/**
 * A rewind never writes outside the permitted folder (a symlink the agent planted in the
 * workspace, pointing out of it, is not written through) and refuses while a run is active in
 * the folder; a stale lock of a dead process does not stop it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ActiveRunError, rewindFiles, summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { storeDirFor } from "../../plugins/checkpoints/store";
import { scriptedRun, temp } from "./helpers";

const bash = (command: string) => ({ toolCalls: [{ toolName: "Bash", input: { command } }] });

/** A workspace with `sub/file.txt` (plus `extra` files), a folder outside it holding a marker, and a run of `command` there. */
async function linkedRun(command: (outside: string) => string, extra: Record<string, string> = {}) {
  const home = temp("ubq-ckpt-home-");
  const dir = temp();
  const outside = temp("ubq-ckpt-outside-");
  writeFileSync(join(outside, "marker.txt"), "MARKER\n");
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "file.txt"), "inside\n");
  for (const [path, content] of Object.entries(extra)) writeFileSync(join(dir, path), content);
  // In bypassPermissions without the sandbox a write the engine cannot name (after `ln`) asks; the user approves here.
  const messages = await scriptedRun(dir, home, [bash(command(outside)), "done"], {
    canUseTool: async () => ({ behavior: "allow" as const }),
  });
  const result = resultOf(messages);
  expect(result.isError, result.result).toBe(false);
  const rewind = () =>
    rewindFiles(result.sessionId, ofType(messages, "user")[0]!.uuid, { cwd: dir, sessionDir: join(home, "sessions") });
  return { dir, outside, rewind };
}

describe("rewind safety", () => {
  it("removes the symlinks the agent planted pointing outside, and restores the files inside: the marker outside stays as it was", async () => {
    // The agent replaces a folder and a file with symlinks pointing outside the workspace.
    const { dir, outside, rewind } = await linkedRun(
      (o) => `rm -rf sub notes.txt && ln -s ${o} sub && ln -s ${o}/marker.txt notes.txt`,
      { "notes.txt": "my notes\n" },
    );
    expect(lstatSync(join(dir, "sub")).isSymbolicLink()).toBe(true);

    const done = await rewind();
    expect(done.refused).toEqual([]);
    // Outside: untouched, and nothing new written there.
    expect(readFileSync(join(outside, "marker.txt"), "utf8")).toBe("MARKER\n");
    expect(readdirSync(outside)).toEqual(["marker.txt"]);
    // notes.txt: the link itself was replaced by the file, not written through; sub is a folder again.
    expect(lstatSync(join(dir, "notes.txt")).isFile()).toBe(true);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("my notes\n");
    expect(lstatSync(join(dir, "sub")).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, "sub", "file.txt"), "utf8")).toBe("inside\n");
  });

  it("refuses to write through a symlink out of the folder that it does not own (an ignored one): the marker outside stays as it was", async () => {
    // The link is ignored, so the rewind neither backs it up nor removes it; a restore through it would land outside.
    const { dir, outside, rewind } = await linkedRun((o) => `rm -rf sub && ln -s ${o} sub && echo sub > .gitignore`, {
      "sub/marker.txt": "inside marker\n",
    });

    const done = await rewind();
    expect(readFileSync(join(outside, "marker.txt"), "utf8")).toBe("MARKER\n");
    expect(readdirSync(outside)).toEqual(["marker.txt"]);
    expect(done.refused.map((r) => r.path).sort()).toEqual([
      join(dir, "sub", "file.txt"),
      join(dir, "sub", "marker.txt"),
    ]);
    expect(done.refused[0]!.reason).toMatch(/symlink to .*outside/);
    expect(lstatSync(join(dir, "sub")).isSymbolicLink()).toBe(true);
  });

  it("refuses while a run is active in the folder, and rewinds once it has ended", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    writeFileSync(join(dir, "f.txt"), "one\n");
    const first = await scriptedRun(dir, home, [bash("echo two > f.txt"), "done"]);
    const sessionId = resultOf(first).sessionId;
    const prompt = ofType(first, "user")[0]!.uuid;
    const query = { cwd: dir, sessionDir: join(home, "sessions") };

    // A second run in the same folder, busy in a Bash call while we try to rewind.
    const release = join(dir, "release");
    const second = collect(
      summon("wait", {
        model: scriptedModel([bash(`while [ ! -e ${release} ]; do sleep 0.05; done`), "done"]),
        cwd: dir,
        permissionMode: "bypassPermissions",
        sessionDir: query.sessionDir,
        todoDir: join(home, "todos"),
        checkpoints: { dir: join(home, "checkpoints") },
        marketPricing: false,
      }),
    );
    const active = join(storeDirFor(dir, join(home, "checkpoints")), "active");
    while (!existsSync(active) || readdirSync(active).length === 0) await new Promise((r) => setTimeout(r, 20));
    await expect(rewindFiles(sessionId, prompt, query)).rejects.toThrow(ActiveRunError);
    await expect(rewindFiles(sessionId, prompt, { ...query, dryRun: true })).rejects.toThrow(/a run is active/);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("two\n");

    writeFileSync(release, "");
    expect(resultOf(await second).isError).toBe(false);
    const done = await rewindFiles(sessionId, prompt, query);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(done.changes.map((c) => c.action)).toEqual(["restored", "removed"]); // f.txt, and release (made after the checkpoint)
  });

  it("ignores a stale lock left by a dead process", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    writeFileSync(join(dir, "f.txt"), "one\n");
    const first = await scriptedRun(dir, home, [bash("echo two > f.txt"), "done"]);
    const active = join(storeDirFor(dir, join(home, "checkpoints")), "active");
    const dead = spawnSync("true").pid!;
    mkdirSync(active, { recursive: true });
    writeFileSync(
      join(active, `${dead}-dead.json`),
      JSON.stringify({
        pid: dead,
        host: (await import("node:os")).hostname(),
        sessionId: "x",
        since: "2026-01-01T00:00:00Z",
      }),
    );
    await rewindFiles(resultOf(first).sessionId, ofType(first, "user")[0]!.uuid, {
      cwd: dir,
      sessionDir: join(home, "sessions"),
    });
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
    expect(readdirSync(active)).toEqual([]); // and it was cleared away
  });
});
