import { describe, expect, it } from "vitest";
import { readFileSync, utimesSync } from "node:fs";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions, { SessionStore, SessionNotFoundError } from "ubiquity/plugins/sessions";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "./helpers";

const temp = tempDirs();

async function session(sessionDir: string, cwd: string, prompts: string[]) {
  let id: string | undefined;
  for (const prompt of prompts) {
    const messages = await collect(
      summon(prompt, { model: scriptedModel([`re: ${prompt}`]), presets: [], plugins: [sessions()], sessionDir, cwd, ...(id ? { resume: id } : {}) }),
    );
    id = resultOf(messages).sessionId;
  }
  return id!;
}

describe("SessionStore", () => {
  it("list: newest first, with summary, times and counts; cwd filter and limit", async () => {
    const dir = temp();
    const a = temp("ubq-a-");
    const b = temp("ubq-b-");
    const first = await session(dir, a, ["  first   prompt\n  on two lines ", "more"]);
    const second = await session(dir, b, ["x".repeat(300)]);
    const third = await session(dir, a, ["third"]);
    const store = new SessionStore({ dir });
    // The last write decides "newest"; spread the mtimes so the clock's resolution cannot tie them.
    for (const [i, id] of [first, second, third].entries()) {
      const at = new Date(Date.now() + (i + 1) * 1000);
      utimesSync((await store.get(id))!.path, at, at);
    }
    const all = await store.list();
    expect(all.map((s) => s.sessionId)).toEqual([third, second, first]);
    const info = all.find((s) => s.sessionId === first)!;
    expect(info).toMatchObject({ summary: "first prompt on two lines", messageCount: 6, cwd: a });
    expect(Date.parse(info.createdAt)).toBeLessThanOrEqual(Date.parse(info.updatedAt));
    expect(all.find((s) => s.sessionId === second)!.summary).toBe(`${"x".repeat(99)}…`);
    expect((await store.list({ cwd: a })).map((s) => s.sessionId)).toEqual([third, first]);
    expect((await store.list({ limit: 1 })).map((s) => s.sessionId)).toEqual([third]);
    expect(await new SessionStore({ dir: temp() }).list()).toEqual([]);
  });

  it("orders by last write: resuming an old session makes it the newest", async () => {
    const dir = temp();
    const cwd = temp("ubq-a-");
    const old = await session(dir, cwd, ["old"]);
    const recent = await session(dir, cwd, ["recent"]);
    const store = new SessionStore({ dir });
    const stored = await store.get(old);
    const future = new Date(Date.now() + 60_000);
    utimesSync(stored!.path, future, future);
    expect((await store.list({ cwd })).map((s) => s.sessionId)).toEqual([old, recent]);
  });

  it("get: the records of a session, undefined for an unknown or malformed id", async () => {
    const dir = temp();
    const cwd = temp("ubq-a-");
    const id = await session(dir, cwd, ["hello"]);
    const store = new SessionStore({ dir });
    const got = await store.get(id);
    expect(got!.records.map((r) => r.type)).toEqual(["user", "assistant", "result"]);
    expect(got!.sessionId).toBe(id);
    expect(await store.get("missing")).toBeUndefined();
    expect(await store.get("../escape")).toBeUndefined();
  });

  it("fork: remaps every uuid and parent link, replaces the session id, leaves the source untouched", async () => {
    const dir = temp();
    const cwd = temp("ubq-a-");
    const id = await session(dir, cwd, ["one", "two"]);
    const store = new SessionStore({ dir });
    const source = (await store.get(id))!;
    const before = readFileSync(source.path, "utf8");
    const forkId = await store.fork(id);
    expect(forkId).not.toBe(id);
    expect(readFileSync(source.path, "utf8")).toBe(before);
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
    expect(fork.records.map((r) => r.message.type === "user" && r.message.text).filter(Boolean)).toEqual(["one", "two"]);
  });

  it("fork upToUuid copies up to and including that record; an unknown uuid or id is an error naming it", async () => {
    const dir = temp();
    const cwd = temp("ubq-a-");
    const id = await session(dir, cwd, ["one", "two"]);
    const store = new SessionStore({ dir });
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
    const dir = temp();
    const a = temp("ubq-a-");
    const b = temp("ubq-b-");
    const id = await session(dir, a, ["one"]);
    const store = new SessionStore({ dir });
    const forkId = await store.fork(id, { cwd: b });
    expect((await store.list({ cwd: b })).map((s) => s.sessionId)).toEqual([forkId]);
    expect((await store.get(forkId))!.records.every((r) => r.cwd === b)).toBe(true);
  });

  it("delete removes a session; false when there is none", async () => {
    const dir = temp();
    const cwd = temp("ubq-a-");
    const id = await session(dir, cwd, ["one"]);
    const store = new SessionStore({ dir });
    expect(await store.delete(id)).toBe(true);
    expect(await store.get(id)).toBeUndefined();
    expect(await store.delete(id)).toBe(false);
  });
});
