/**
 * Retention: a run's first snapshot prunes the store of checkpoints older than `keepDays`, with
 * real git in temp folders. Old checkpoints are made by real runs with the clock set back (their
 * commits and createdAt are old), and their objects' files are aged the same (git's prune keeps
 * unreachable objects younger than its grace, as it would keep those of a week-old store).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listCheckpoints, rewindFiles, type Message } from "ubiquity";
import type { ScriptedTurn } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { scriptedRun, temp } from "./helpers";
import { holdRunLock, releaseRunLock } from "../../plugins/checkpoints/lock";
import { ShadowStore, storeDirFor } from "../../plugins/checkpoints/store";

const DAY = 24 * 60 * 60 * 1000;
const bash = (command: string): ScriptedTurn => ({ toolCalls: [{ toolName: "Bash", input: { command } }] });

afterEach(() => {
  vi.useRealTimers();
});

interface Logged {
  warnings: string[];
  errors: string[];
}

/** A project folder with `f.txt`, and where its sessions and checkpoints go. */
function project(content = "v0\n") {
  const home = temp("ubq-ckpt-home-");
  const dir = temp();
  writeFileSync(join(dir, "f.txt"), content);
  const checkpointDir = join(home, "checkpoints");
  return {
    home,
    dir,
    checkpointDir,
    store: storeDirFor(dir, checkpointDir),
    query: { cwd: dir, sessionDir: join(home, "sessions"), checkpointDir },
  };
}
type Project = ReturnType<typeof project>;

/** A scripted run with checkpoints on (`keepDays` when given), its warnings and errors logged. */
async function run(
  p: Project,
  script: ScriptedTurn[],
  { keepDays, ...extra }: { keepDays?: number } & Record<string, unknown> = {},
): Promise<Message[] & { log: Logged }> {
  const log: Logged = { warnings: [], errors: [] };
  const logger = {
    debug() {},
    info() {},
    warn: (m: string) => log.warnings.push(m),
    error: (m: string) => log.errors.push(m),
  };
  const messages = await scriptedRun(p.dir, p.home, script, {
    checkpoints: { dir: p.checkpointDir, ...(keepDays === undefined ? {} : { keepDays }) },
    logger,
    ...extra,
  });
  return Object.assign(messages, { log });
}

/** `task` with the clock `days` days back (Date only: timers run as usual). */
async function daysAgo<T>(days: number, task: () => Promise<T>): Promise<T> {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now - days * DAY);
  try {
    return await task();
  } finally {
    vi.useRealTimers();
  }
}

/** Set every object file of the store `days` days back, as if written then. */
function ageObjects(store: string, days: number): void {
  const when = new Date(Date.now() - days * DAY);
  const objects = join(store, "objects");
  for (const fan of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(fan)) continue;
    for (const name of readdirSync(join(objects, fan))) utimesSync(join(objects, fan, name), when, when);
  }
}

const git = (store: string, ...args: string[]) =>
  execFileSync("git", ["--git-dir", store, ...args], {
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).toString("utf8");
const refs = (store: string, sessionId: string) =>
  git(store, "for-each-ref", "--format=%(refname)", `refs/ubiquity/${sessionId}/`).split("\n").filter(Boolean);
const hasObject = (store: string, id: string) => {
  try {
    git(store, "cat-file", "-e", id);
    return true;
  } catch {
    return false;
  }
};
/** The store's loose objects: how many, and their size on disk in KiB (git's count-objects). */
const looseObjects = (store: string) => {
  const out = git(store, "count-objects", "-v");
  return { count: Number(/^count: (\d+)$/m.exec(out)![1]), kib: Number(/^size: (\d+)$/m.exec(out)![1]) };
};
const blobId = (content: string) =>
  execFileSync("git", ["hash-object", "--stdin"], { input: content }).toString("utf8").trim();

/** An old session: two checkpoints (f.txt at "v0", then at "old-unique"), taken `days` days ago, objects aged too. */
async function oldSession(p: Project, days = 40): Promise<string> {
  const messages = await daysAgo(days, () =>
    run(p, [bash("echo old-unique > f.txt"), bash("echo v1 > f.txt"), "done"]),
  );
  expect(resultOf(messages).isError).toBe(false);
  ageObjects(p.store, days);
  const sessionId = resultOf(messages).sessionId;
  expect(await listCheckpoints(sessionId, p.query)).toHaveLength(2);
  return sessionId;
}

describe("checkpoint retention", () => {
  it("a run's first snapshot prunes checkpoints older than 30 days: refs, listing and objects go; recent ones stay rewindable", async () => {
    const p = project();
    const old = await oldSession(p);
    const oldCommits = (await listCheckpoints(old, p.query)).map((c) => c.commit);
    const before = looseObjects(p.store);
    expect(hasObject(p.store, blobId("old-unique\n"))).toBe(true);

    const recent = await run(p, [bash("echo v2 > f.txt"), "done"]);
    expect(resultOf(recent).isError).toBe(false);
    expect(recent.log.warnings).toEqual([]);

    expect(refs(p.store, old)).toEqual([]);
    expect(await listCheckpoints(old, p.query)).toEqual([]);
    for (const commit of oldCommits) expect(hasObject(p.store, commit)).toBe(false);
    // Blobs only the old checkpoints held are gone from disk; the store holds fewer objects than before the run, its own included.
    expect(hasObject(p.store, blobId("v0\n"))).toBe(false);
    expect(hasObject(p.store, blobId("old-unique\n"))).toBe(false);
    const after = looseObjects(p.store);
    expect(after.count).toBeLessThan(before.count);
    expect(after.kib).toBeLessThan(before.kib);

    const sessionId = resultOf(recent).sessionId;
    const kept = await listCheckpoints(sessionId, p.query);
    expect(kept.map((c) => c.messageUuid)).toEqual([ofType(recent, "assistant")[0]!.uuid]);
    await rewindFiles(sessionId, kept[0]!.messageUuid, p.query);
    expect(readFileSync(join(p.dir, "f.txt"), "utf8")).toBe("v1\n");
  });

  it("keepDays sets the age: 10-day-old checkpoints stay under the default 30, and go with keepDays: 5", async () => {
    const p = project();
    const old = await oldSession(p, 10);
    await run(p, [bash("echo v2 > f.txt"), "done"]);
    expect(refs(p.store, old)).toHaveLength(2);
    expect(await listCheckpoints(old, p.query)).toHaveLength(2);
    await run(p, [bash("echo v3 > f.txt"), "done"], { keepDays: 5 });
    expect(refs(p.store, old)).toEqual([]);
    expect(await listCheckpoints(old, p.query)).toEqual([]);
  });

  it("keepDays must be a positive number: 0 is refused before the run starts", async () => {
    const p = project();
    const messages = await run(p, [bash("echo v2 > f.txt"), "done"], { keepDays: 0 });
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect("result" in result ? result.result : "").toMatch(/expected number to be >0\n\s*→ at checkpoints\.keepDays/);
    expect(readFileSync(join(p.dir, "f.txt"), "utf8")).toBe("v0\n");
  });

  it("never prunes a session active in the store (another run's, or the run's own when it resumes an old session)", async () => {
    const p = project();
    const active = await oldSession(p);
    const idle = await oldSession(p);
    // Another run of `active` holds the store's active-run marker, as a run with checkpoints on does.
    const lock = holdRunLock(p.store, active);
    try {
      await run(p, [bash("echo v2 > f.txt"), "done"]);
    } finally {
      releaseRunLock(lock);
    }
    expect(refs(p.store, idle)).toEqual([]);
    expect(await listCheckpoints(active, p.query)).toHaveLength(2);

    // The old session resumed: its first snapshot prunes, and its own old checkpoints stay (it is active).
    const resumed = await run(p, [bash("echo v3 > f.txt"), "done"], { resume: active });
    expect(resultOf(resumed).sessionId).toBe(active);
    const list = await listCheckpoints(active, p.query);
    expect(list).toHaveLength(3);
    // The oldest one still rewinds, byte for byte.
    await rewindFiles(active, list[0]!.messageUuid, p.query);
    expect(readFileSync(join(p.dir, "f.txt"), "utf8")).toBe("v0\n");
  });

  it("never prunes a rewind's backup, however old", async () => {
    const p = project();
    const old = await oldSession(p);
    const backup = await daysAgo(
      40,
      async () => (await rewindFiles(old, (await listCheckpoints(old, p.query))[1]!.messageUuid, p.query)).backup!,
    );
    expect(readFileSync(join(p.dir, "f.txt"), "utf8")).toBe("old-unique\n");
    ageObjects(p.store, 40);

    await run(p, [bash("echo v2 > f.txt"), "done"]);
    expect(await listCheckpoints(old, p.query)).toEqual([]);
    const [ref, ...others] = refs(p.store, old);
    expect(others).toEqual([]);
    expect(ref).toMatch(new RegExp(`^refs/ubiquity/${old}/rewound-\\d+$`));
    expect(git(p.store, "rev-parse", ref!).trim()).toBe(backup);
    // What the rewind replaced is still there to read.
    expect(git(p.store, "show", `${backup}:0/f.txt`)).toBe("v1\n");
  });

  it("keeps what each folder's index names: a folder whose checkpoints were all pruned still snapshots and rewinds", async () => {
    const p = project();
    const extra = temp("ubq-ckpt-extra-");
    writeFileSync(join(extra, "g.txt"), "g as it was\n");
    // Old checkpoints of the cwd and of `extra`; then a run of the cwd alone prunes them all.
    await daysAgo(40, () => run(p, [bash(`echo v1 > f.txt`), "done"], { additionalDirectories: [extra] }));
    ageObjects(p.store, 40);
    await run(p, [bash("echo v2 > f.txt"), "done"]);
    expect(hasObject(p.store, blobId("v0\n"))).toBe(false); // the prune did run
    expect(hasObject(p.store, blobId("g as it was\n"))).toBe(true); // held by extra's index only

    // `extra` unchanged since: its snapshot reuses the index (and the tree this process remembers for it).
    const later = await run(p, [bash(`echo changed > ${extra}/g.txt`), "done"], { additionalDirectories: [extra] });
    expect(later.log.warnings).toEqual([]);
    const [checkpoint] = await listCheckpoints(resultOf(later).sessionId, p.query);
    const done = await rewindFiles(resultOf(later).sessionId, checkpoint!.messageUuid, p.query);
    expect(done.refused).toEqual([]);
    expect(readFileSync(join(extra, "g.txt"), "utf8")).toBe("g as it was\n");
  });

  it("a pruned checkpoint is not listed while git's grace keeps its objects; a later run's prune drops them", async () => {
    const p = project();
    const old = await daysAgo(2, async () => resultOf(await run(p, [bash("echo v1 > f.txt"), "done"])).sessionId);
    const [commit] = (await listCheckpoints(old, p.query)).map((c) => c.commit);
    // Objects written just now (not aged): younger than the grace, so a concurrent snapshot's would be too.
    await run(p, [bash("echo v2 > f.txt"), "done"], { keepDays: 1 });
    expect(refs(p.store, old)).toEqual([]);
    expect(hasObject(p.store, commit!)).toBe(true);
    expect(await listCheckpoints(old, p.query)).toEqual([]);
    await expect(rewindFiles(old, commit!, p.query)).rejects.toThrow(/no message or checkpoint/);

    ageObjects(p.store, 2); // two days pass; the next run (same process, same store) prunes again
    await run(p, [bash("echo v3 > f.txt"), "done"], { keepDays: 1 });
    expect(hasObject(p.store, commit!)).toBe(false);
  });

  it("a run that writes nothing prunes nothing", async () => {
    const p = project();
    const old = await oldSession(p);
    const messages = await run(p, [{ toolCalls: [{ toolName: "Read", input: { file_path: "f.txt" } }] }, "done"]);
    expect(resultOf(messages).isError).toBe(false);
    expect(refs(p.store, old)).toHaveLength(2);
    expect(await listCheckpoints(old, p.query)).toHaveLength(2);
  });

  it("a snapshot touches the objects it reuses, so a concurrent prune's grace covers them", async () => {
    const dir = temp();
    writeFileSync(join(dir, "f.txt"), "same\n");
    const store = new ShadowStore(join(temp("ubq-ckpt-store-"), "p"));
    const rules = { maxBytes: 1e6, exclude: [] };
    const first = await store.snapshot([dir], rules, { sessionId: "s", messageUuid: "m1", createdAt: "then" });
    ageObjects(store.dir, 40);
    await store.snapshot([dir], rules, { sessionId: "s", messageUuid: "m2", createdAt: "now" });
    // The same state: the folder's tree and the top tree are the first snapshot's, written again.
    const top = git(store.dir, "rev-parse", `${first.commit}^{tree}`).trim();
    const ageOf = (id: string) =>
      Date.now() - statSync(join(store.dir, "objects", id.slice(0, 2), id.slice(2))).mtimeMs;
    expect(ageOf(top)).toBeLessThan(DAY); // touched by the second snapshot, 40 days younger than before
    expect(ageOf(first.commit)).toBeGreaterThan(39 * DAY); // not reused: left as it was
  });

  describe("a prune that fails is a warning; the run and its checkpoint go on", () => {
    const cases: [string, (p: Project, old: string) => void][] = [
      [
        "a corrupt index file in the store",
        (p) => writeFileSync(join(p.store, "index-0123456789abcdef"), "not an index"),
      ],
      [
        "a ref to a commit the store lost",
        (p, old) => writeFileSync(join(p.store, "refs", "ubiquity", old, "lost"), `${"0".repeat(39)}1\n`),
      ],
    ];
    for (const [what, corrupt] of cases) {
      it(what, async () => {
        const p = project();
        const old = await oldSession(p);
        corrupt(p, old);
        const messages = await run(p, [bash("echo v2 > f.txt"), "done"]);
        expect(resultOf(messages).isError).toBe(false);
        expect(messages.log.errors).toEqual([]);
        expect(messages.log.warnings).toHaveLength(1);
        expect(messages.log.warnings[0]).toContain(`could not prune checkpoints older than 30 days from ${p.store}`);
        expect(messages.log.warnings[0]).toContain(`delete ${p.store}`);
        // Nothing was deleted; the run's own checkpoint was taken and rewinds.
        expect(await listCheckpoints(old, p.query)).toHaveLength(2);
        const sessionId = resultOf(messages).sessionId;
        const [checkpoint] = await listCheckpoints(sessionId, p.query);
        await rewindFiles(sessionId, checkpoint!.messageUuid, p.query);
        expect(readFileSync(join(p.dir, "f.txt"), "utf8")).toBe("v1\n");
      });
    }
  });
});
