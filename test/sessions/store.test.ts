import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { SessionNotFoundError } from "ubiquity/plugins/sessions";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "./helpers";
import { BACKENDS, backendMissing, useBackend, type BackendFixture } from "./backends";

const temp = tempDirs();

async function session(b: BackendFixture, cwd: string, prompts: string[]) {
  let id: string | undefined;
  for (const prompt of prompts) {
    const messages = await collect(
      summon(prompt, {
        model: scriptedModel([`re: ${prompt}`]),
        presets: [],
        ...b.options,
        plugins: b.plugins(),
        cwd,
        ...(id ? { resume: id } : {}),
      }),
    );
    id = resultOf(messages).sessionId;
  }
  return id!;
}

describe.each(BACKENDS)("the %s session store", (kind) => {
  const fresh = useBackend(kind);
  if (backendMissing(kind)) it.skip(`skipped: ${backendMissing(kind)}`, () => {});
  else tests(fresh);
});

function tests(fresh: () => Promise<BackendFixture>) {
  it("list: newest first, with summary, times and counts; cwd filter and limit", async () => {
    const st = await fresh();
    const a = temp("ubq-a-");
    const b = temp("ubq-b-");
    const first = await session(st, a, ["  first   prompt\n  on two lines ", "more"]);
    const second = await session(st, b, ["x".repeat(300)]);
    const third = await session(st, a, ["third"]);
    const store = st.store;
    // The last write decides "newest"; spread the mtimes so the clock's resolution cannot tie them.
    for (const [i, id] of [first, second, third].entries()) {
      const at = new Date(Date.now() + (i + 1) * 1000);
      await st.touch(id, at);
    }
    const all = await store.list();
    expect(all.map((s) => s.sessionId)).toEqual([third, second, first]);
    const info = all.find((s) => s.sessionId === first)!;
    expect(info).toMatchObject({ summary: "first prompt on two lines", messageCount: 6, cwd: a });
    expect(Date.parse(info.createdAt)).toBeLessThanOrEqual(Date.parse(info.updatedAt));
    expect(all.find((s) => s.sessionId === second)!.summary).toBe(`${"x".repeat(99)}…`);
    expect((await store.list({ cwd: a })).map((s) => s.sessionId)).toEqual([third, first]);
    expect((await store.list({ limit: 1 })).map((s) => s.sessionId)).toEqual([third]);
    expect(await (await fresh()).store.list()).toEqual([]);
  });

  it("orders by last write: resuming an old session makes it the newest", async () => {
    const b = await fresh();
    const cwd = temp("ubq-a-");
    const old = await session(b, cwd, ["old"]);
    const recent = await session(b, cwd, ["recent"]);
    const store = b.store;
    await b.touch(old, new Date(Date.now() + 60_000));
    expect((await store.list({ cwd })).map((s) => s.sessionId)).toEqual([old, recent]);
  });

  it("get: the records of a session, undefined for an unknown or malformed id", async () => {
    const b = await fresh();
    const cwd = temp("ubq-a-");
    const id = await session(b, cwd, ["hello"]);
    const store = b.store;
    const got = await store.get(id);
    expect(got!.records.map((r) => r.type)).toEqual(["user", "assistant", "result"]);
    expect(got!.sessionId).toBe(id);
    expect(await store.get("missing")).toBeUndefined();
    expect(await store.get("../escape")).toBeUndefined();
  });

  it("fork: remaps every uuid and parent link, replaces the session id, leaves the source untouched", async () => {
    const b = await fresh();
    const cwd = temp("ubq-a-");
    const id = await session(b, cwd, ["one", "two"]);
    const store = b.store;
    const source = (await store.get(id))!;
    const before = await b.raw(id);
    const forkId = await store.fork(id);
    expect(forkId).not.toBe(id);
    expect(await b.raw(id)).toBe(before);
    const fork = (await store.get(forkId))!;
    expect(fork.records).toHaveLength(source.records.length);
    const sourceUuids = new Set(source.records.map((r) => r.uuid));
    const byNew = new Map(fork.records.map((r, i) => [r.uuid, i]));
    fork.records.forEach((r, i) => {
      expect(sourceUuids.has(r.uuid)).toBe(false);
      expect(r.message.uuid).toBe(r.uuid);
      expect(r.sessionId).toBe(forkId);
      expect(r.message.sessionId).toBe(forkId);
      expect(r.type).toBe(source.records[i]!.type);
      // the link points at the copy of the record the source pointed at
      const parent = source.records[i]!.parentUuid;
      if (parent === null) expect(r.parentUuid).toBeNull();
      else expect(byNew.get(r.parentUuid!)).toBe(source.records.findIndex((s) => s.uuid === parent));
    });
    expect(fork.records.map((r) => r.message.type === "user" && r.message.text).filter(Boolean)).toEqual([
      "one",
      "two",
    ]);
  });

  it("fork upToUuid copies up to and including that record; an unknown uuid or id is an error naming it", async () => {
    const b = await fresh();
    const cwd = temp("ubq-a-");
    const id = await session(b, cwd, ["one", "two"]);
    const store = b.store;
    const source = (await store.get(id))!;
    const cut = source.records.find((r) => r.type === "assistant")!;
    const forkId = await store.fork(id, { upToUuid: cut.uuid });
    const fork = (await store.get(forkId))!;
    expect(fork.records.map((r) => r.type)).toEqual(["user", "assistant"]);
    await expect(store.fork(id, { upToUuid: "nope" })).rejects.toThrow(/no record with uuid "nope"/);
    await expect(store.fork("ghost")).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.fork("ghost")).rejects.toThrow(/No stored session with id "ghost"/);
  });

  it("fork into another cwd files the copy under that project", async () => {
    const st = await fresh();
    const a = temp("ubq-a-");
    const b = temp("ubq-b-");
    const id = await session(st, a, ["one"]);
    const store = st.store;
    const forkId = await store.fork(id, { cwd: b });
    expect((await store.list({ cwd: b })).map((s) => s.sessionId)).toEqual([forkId]);
    expect((await store.get(forkId))!.records.every((r) => r.cwd === b)).toBe(true);
  });

  it("delete removes a session; false when there is none", async () => {
    const b = await fresh();
    const cwd = temp("ubq-a-");
    const id = await session(b, cwd, ["one"]);
    const store = b.store;
    expect(await store.delete(id)).toBe(true);
    expect(await store.get(id)).toBeUndefined();
    expect(await store.delete(id)).toBe(false);
  });
}
