/**
 * Acceptance of issue 22: a scripted run with real tools writes with Edit, Write and Bash
 * (rm, sed -i, echo >, a new folder, chmod); rewinding restores every covered file byte for byte.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listCheckpoints, rewindConversation, rewindFiles, SessionStore, summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { hashTree, scriptedRun, workspace } from "./helpers";

const LEFT_ALONE = ["build.log", "big.txt"];
const covered = (tree: Record<string, string>) =>
  Object.fromEntries(Object.entries(tree).filter(([p]) => !LEFT_ALONE.includes(p)));

async function setUp() {
  const { dir, home } = workspace();
  const before = hashTree(dir);
  const gitBefore = hashTree(join(dir, ".git"), { withGit: true });
  const messages = await scriptedRun(dir, home);
  const result = resultOf(messages);
  expect(result.isError, result.result).toBe(false);
  const [prompt] = ofType(messages, "user");
  const assistants = ofType(messages, "assistant");
  return {
    dir,
    home,
    before,
    gitBefore,
    messages,
    sessionId: result.sessionId,
    prompt: prompt!,
    assistants,
    query: { cwd: dir, sessionDir: join(home, "sessions") },
  };
}

describe("checkpoints: a run that writes with Edit, Write and Bash", () => {
  it("takes one checkpoint per writing turn, tied to the turn's assistant message and to the prompt", async () => {
    const { sessionId, prompt, assistants, query, messages } = await setUp();
    // Every tool ran for real.
    expect(ofType(messages, "tool_result").map((r) => [r.toolName, r.output.isError])).toEqual([
      ["Read", false],
      ["Edit", false],
      ["Write", false],
      ["Bash", false],
    ]);
    const list = await listCheckpoints(sessionId, query);
    // The Read turn wrote nothing: no checkpoint. Edit + Write share one (their turn's first writing call).
    expect(list.map((c) => c.messageUuid)).toEqual([assistants[1]!.uuid, assistants[2]!.uuid]);
    expect(list.every((c) => c.promptUuid === prompt.uuid && c.prompt === "change some files")).toBe(true);
    // The store is a sound git repository (its trees, commits and refs are partly written in-process).
    const fsck = spawnSync("git", ["--git-dir", list[0]!.store, "fsck", "--strict", "--no-dangling"], {
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
    });
    expect(fsck.status, fsck.stderr + fsck.stdout).toBe(0);
    expect((fsck.stderr + fsck.stdout).replace(/^notice: HEAD points to an unborn branch.*\n/m, "")).toBe("");
  });

  it("rewinding to the prompt restores every covered file byte for byte and removes the created ones", async () => {
    const { dir, before, sessionId, prompt, query } = await setUp();
    const plan = await rewindFiles(sessionId, prompt.uuid, { ...query, dryRun: true });
    const rel = (p: string) => p.slice(dir.length + 1);
    const planned = plan.changes.map((c) => [rel(c.path), c.action]);
    expect(planned).toEqual([
      ["a.txt", "restored"],
      ["b.txt", "recreated"],
      ["c.txt", "restored"],
      ["created.txt", "removed"],
      ["d.txt", "restored"],
      ["e.txt", "removed"],
      ["gen/deep/f.txt", "removed"],
      ["src/keep.ts", "restored"],
    ]);
    // A dry run changes nothing.
    expect(existsSync(join(dir, "created.txt"))).toBe(true);

    const done = await rewindFiles(sessionId, prompt.uuid, query);
    expect(done.changes.map((c) => [rel(c.path), c.action])).toEqual(planned);
    expect(done.refused).toEqual([]);
    expect(covered(hashTree(dir))).toEqual(covered(before));
    expect(existsSync(join(dir, "gen"))).toBe(false); // the folder Bash made went with its file
    expect(statSync(join(dir, "src/keep.ts")).mode & 0o777).toBe(0o644);
    // Ignored and oversized files are left alone, and said so.
    expect(readFileSync(join(dir, "build.log"), "utf8")).toContain("more");
    expect(readFileSync(join(dir, "big.txt"), "utf8")).toContain("grow");
    const reasons = Object.fromEntries(done.notCovered.map((n) => [rel(n.path), n.reason]));
    expect(reasons).toMatchObject({ "build.log": "ignored", "big.txt": "too-large" });
    expect(done.backup).toMatch(/^[0-9a-f]{40}$/);
  });

  it("rewinding to the middle (the Bash turn) restores the state after Edit and Write", async () => {
    const { dir, before, sessionId, assistants, query } = await setUp();
    const done = await rewindFiles(sessionId, assistants[2]!.uuid, query);
    const now = hashTree(dir);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("alpha\nBETA (edited)\ngamma\n");
    expect(readFileSync(join(dir, "created.txt"), "utf8")).toBe("made by Write\n");
    for (const f of ["b.txt", "c.txt", "d.txt", "src/keep.ts", "bin.dat", ".gitignore"])
      expect(now[f], f).toBe(before[f]);
    expect(existsSync(join(dir, "e.txt"))).toBe(false);
    expect(existsSync(join(dir, "gen"))).toBe(false);
    expect(done.changes.map((c) => c.action).sort()).toEqual([
      "recreated",
      "removed",
      "removed",
      "restored",
      "restored",
      "restored",
    ]);
    // Then on back to before the run: the Edit and the Write are undone too.
    await rewindFiles(sessionId, assistants[1]!.uuid, query);
    expect(covered(hashTree(dir))).toEqual(covered(before));
  });

  it("never touches the user's own .git: byte-identical before the run and after every rewind", async () => {
    const { dir, gitBefore, sessionId, prompt, assistants, query } = await setUp();
    await rewindFiles(sessionId, assistants[2]!.uuid, query);
    await rewindFiles(sessionId, prompt.uuid, query);
    expect(hashTree(join(dir, ".git"), { withGit: true })).toEqual(gitBefore);
  });

  it("notes each checkpoint in the transcript; resume ignores the notes", async () => {
    const { dir, home, sessionId, query } = await setUp();
    const session = await new SessionStore({ dir: query.sessionDir }).get(sessionId, dir);
    expect(session!.notes.filter((n) => n.kind === "checkpoint")).toHaveLength(2);
    expect(session!.corruptLines).toEqual([]);
    const model = scriptedModel(["resumed fine"]);
    const warnings: string[] = [];
    const resumed = await collect(
      summon("go on", {
        model,
        cwd: dir,
        resume: sessionId,
        sessionDir: query.sessionDir,
        todoDir: join(home, "todos"),
        marketPricing: false,
        logger: {
          debug() {},
          info() {},
          warn: (m: string) => warnings.push(m),
          error: (m: string) => warnings.push(m),
        },
      }),
    );
    expect(resultOf(resumed).isError).toBe(false);
    expect(warnings).toEqual([]);
    // The replayed conversation is the run's, nothing more: prompt, four calls and results, the answer, the new prompt.
    const roles = model.requests[0]!.prompt.filter((m) => m.role !== "system").map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant", "user"]);
  });

  it("rewindConversation forks the session just before the message", async () => {
    const { sessionId, assistants, query, dir } = await setUp();
    const { sessionId: fork } = await rewindConversation(sessionId, assistants[2]!.uuid, query);
    const stored = await new SessionStore({ dir: query.sessionDir }).get(fork, dir);
    const types = stored!.records.map((r) => r.type);
    // prompt, the Read turn, the Edit/Write turn: the Bash turn is gone.
    expect(types).toEqual([
      "user",
      "assistant",
      "tool_use",
      "tool_result",
      "assistant",
      "tool_use",
      "tool_result",
      "tool_use",
      "tool_result",
    ]);
  });

  it("stores bytes as they are: the workspace's .gitattributes (eol=crlf, a filter) changes nothing", async () => {
    const { dir, home } = workspace();
    writeFileSync(join(dir, ".gitattributes"), "* text eol=crlf filter=evil\n");
    writeFileSync(join(dir, "lf.txt"), "one\ntwo\n");
    writeFileSync(join(dir, "crlf.txt"), "one\r\ntwo\r\n");
    writeFileSync(join(dir, "mixed.txt"), "one\r\ntwo\nthree\r");
    const before = hashTree(dir);
    const messages = await scriptedRun(dir, home, [
      { toolCalls: [{ toolName: "Bash", input: { command: "echo x > lf.txt && echo x > crlf.txt && rm mixed.txt" } }] },
      "done",
    ]);
    const result = resultOf(messages);
    await rewindFiles(result.sessionId, ofType(messages, "user")[0]!.uuid, {
      cwd: dir,
      sessionDir: join(home, "sessions"),
    });
    expect(covered(hashTree(dir))).toEqual(covered(before));
  });

  it("a restored file keeps its own permissions; only the executable bit follows the checkpoint", async () => {
    const { dir, home } = workspace();
    writeFileSync(join(dir, "secret.env"), "TOKEN=1\n", { mode: 0o600 });
    chmodSync(join(dir, "secret.env"), 0o600);
    const messages = await scriptedRun(dir, home, [
      { toolCalls: [{ toolName: "Bash", input: { command: "echo TOKEN=2 > secret.env && chmod 700 secret.env" } }] },
      "done",
    ]);
    await rewindFiles(resultOf(messages).sessionId, ofType(messages, "user")[0]!.uuid, {
      cwd: dir,
      sessionDir: join(home, "sessions"),
    });
    expect(readFileSync(join(dir, "secret.env"), "utf8")).toBe("TOKEN=1\n");
    expect(statSync(join(dir, "secret.env")).mode & 0o777).toBe(0o600);
  });

  it("is off by default: no checkpoint, no store", async () => {
    const { dir, home } = workspace();
    const messages: Message[] = await scriptedRun(dir, home, undefined, { checkpoints: undefined });
    const result = resultOf(messages);
    expect(await listCheckpoints(result.sessionId, { cwd: dir, sessionDir: join(home, "sessions") })).toEqual([]);
    expect(existsSync(join(home, "checkpoints"))).toBe(false);
  });
});
