/** Edges: no git on PATH (the run goes on, said once), and a session without a transcript. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listCheckpoints, rewindFiles } from "ubiquity";
import { ofType, resultOf } from "../helpers/collect";
import { scriptedRun, temp } from "./helpers";

const bash = (command: string) => ({ toolCalls: [{ toolName: "Bash", input: { command } }] });
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

describe("checkpoints at the edges", () => {
  it("without git on PATH the run goes on, with one warning and no checkpoint", async () => {
    const home = temp("ubq-ckpt-home-");
    const dir = temp();
    process.env.PATH = temp("ubq-ckpt-nopath-"); // an empty folder: no git (echo is a shell builtin)
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
    const messages = await scriptedRun(dir, home, [bash("echo one > f.txt"), bash("echo two > f.txt"), "done"], { logger });
    process.env.PATH = savedPath;
    expect(resultOf(messages).isError).toBe(false);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("two\n");
    expect(warnings.filter((w) => w.includes("need git on PATH"))).toHaveLength(1);
    expect(await listCheckpoints(resultOf(messages).sessionId, { cwd: dir, sessionDir: join(home, "sessions") })).toEqual([]);
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
