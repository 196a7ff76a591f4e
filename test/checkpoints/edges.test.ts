/** Edges: no git on PATH (the run goes on, said once), and a session without a transcript. */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listCheckpoints, rewindFiles } from "ubiquity";
import { ofType, resultOf } from "../helpers/collect";
import { scriptedRun, temp } from "./helpers";
import { ShadowStore, TooManyFilesError } from "../../plugins/checkpoints/store";

const bash = (command: string) => ({ toolCalls: [{ toolName: "Bash", input: { command } }] });
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("checkpoints at the edges", () => {
  it("a nested repository and a large binary are not covered: left alone and listed", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    mkdirSync(join(dir, "vendor", "lib"), { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: join(dir, "vendor", "lib") });
    writeFileSync(join(dir, "vendor", "lib", "code.c"), "int x;\n");
    const blob = Buffer.alloc(1024 * 1024 + 10, 7);
    blob[5] = 0;
    writeFileSync(join(dir, "image.bin"), blob);
    writeFileSync(join(dir, "f.txt"), "one\n");
    const messages = await scriptedRun(
      dir,
      home,
      [bash("echo two > f.txt && echo changed > vendor/lib/code.c && printf 'x' >> image.bin"), "done"],
      {
        checkpoints: { dir: join(home, "checkpoints") }, // the default 10 MB limit: the binary is under it, over the binary limit
      },
    );
    const done = await rewindFiles(resultOf(messages).sessionId, ofType(messages, "user")[0]!.uuid, {
      cwd: dir,
      sessionDir: join(home, "sessions"),
    });
    expect(done.changes.map((c) => [c.path, c.action])).toEqual([[join(dir, "f.txt"), "restored"]]);
    expect(readFileSync(join(dir, "vendor", "lib", "code.c"), "utf8")).toBe("changed\n");
    expect(readFileSync(join(dir, "image.bin")).length).toBe(blob.length + 1);
    expect(Object.fromEntries(done.notCovered.map((n) => [n.path, n.reason]))).toEqual({
      [join(dir, "image.bin")]: "binary",
      [join(dir, "vendor", "lib")]: "nested-repository",
    });
  });

  it("without git on PATH the run goes on, with one warning and no checkpoint", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    vi.stubEnv("PATH", temp("ubq-ckpt-nopath-")); // an empty folder: no git (echo is a shell builtin)
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (m: string) => warnings.push(m),
      error: (m: string) => warnings.push(m),
    };
    const messages = await scriptedRun(dir, home, [bash("echo one > f.txt"), bash("echo two > f.txt"), "done"], {
      logger,
    });
    expect(resultOf(messages).isError).toBe(false);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("two\n");
    expect(warnings.filter((w) => w.includes("need git on PATH"))).toHaveLength(1);
    expect(
      await listCheckpoints(resultOf(messages).sessionId, { cwd: dir, sessionDir: join(home, "sessions") }),
    ).toEqual([]);
  });

  it("a folder with too many new files at once is not snapshotted (TooManyFilesError), and nothing is stored", async () => {
    const dir = temp();
    for (let i = 0; i < 10; i++) writeFileSync(join(dir, `f${i}.txt`), `${i}\n`);
    const store = new ShadowStore(join(temp("ubq-ckpt-store-"), "p"));
    const rules = { maxBytes: 1e6, exclude: [], maxFiles: 5 };
    await expect(store.snapshot([dir], rules, { sessionId: "s", messageUuid: "m", createdAt: "now" })).rejects.toThrow(
      TooManyFilesError,
    );
    expect(await store.list("s")).toEqual([]);
    const ok = await store.snapshot(
      [dir],
      { ...rules, maxFiles: 10 },
      { sessionId: "s", messageUuid: "m", createdAt: "now" },
    );
    expect((await store.list("s")).map((c) => c.commit)).toEqual([ok.commit]);
  });

  it("a session without a transcript (persistSession: false) is found in its store through checkpointDir", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    writeFileSync(join(dir, "f.txt"), "one\n");
    const messages = await scriptedRun(dir, home, [bash("echo two > f.txt"), "done"], { persistSession: false });
    const sessionId = resultOf(messages).sessionId;
    const query = { cwd: dir, sessionDir: join(home, "sessions"), checkpointDir: join(home, "checkpoints") };
    const list = await listCheckpoints(sessionId, query);
    expect(list.map((c) => c.messageUuid)).toEqual([ofType(messages, "assistant")[0]!.uuid]);
    await rewindFiles(sessionId, list[0]!.messageUuid, query);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("one\n");
  });
});
