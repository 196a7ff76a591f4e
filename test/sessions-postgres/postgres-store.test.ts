/**
 * What only the Postgres store has: its migrations, the append's race proof under READ COMMITTED
 * (two clients interleaved by hand), a stale writer stopped mid-run, two runs continuing one
 * session at once, todos in the same database, and the errors when pg or the server is missing.
 * The behaviour it shares with the JSONL store is the sessions suite's (test/sessions, both stores).
 */
import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { z } from "zod";
import { summon, defineTool, definePlugin } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions from "ubiquity/plugins/sessions";
import todos from "ubiquity/plugins/todos";
import toolTodo from "ubiquity/plugins/tool-todo";
import sessionsPostgres, {
  APPEND_RECORD,
  appendRecordParams,
  createPool,
  migrate,
} from "../../plugins/sessions-postgres/index";
import { MissingDriverError, PostgresSessionStore, SchemaVersionError } from "ubiquity/plugins/sessions-postgres";
import { collect, ofType, resultOf } from "../helpers/collect";
import { postgresMissing, usePostgres } from "../helpers/postgres";
import { tempDirs } from "../helpers/temp-dirs";
import { record } from "./records";

const temp = tempDirs();

describe.skipIf(postgresMissing !== undefined)(
  `the Postgres session store${postgresMissing ? ` (skipped: ${postgresMissing})` : ""}`,
  () => {
    const server = usePostgres();
    const withStore = async <T>(fn: (store: PostgresSessionStore, url: string) => Promise<T>) => {
      const url = await server.database();
      const store = new PostgresSessionStore(url);
      try {
        return await fn(store, url);
      } finally {
        await store.close();
      }
    };

    it("migrations: versioned, idempotent, one applier among 8 processes starting at once; a newer schema is refused", async () => {
      const url = await server.database();
      const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: url, max: 1 }));
      try {
        const applied = await Promise.all(pools.map((p) => migrate(p)));
        expect(applied.filter((a) => a.length > 0)).toEqual([[1]]);
        expect(await migrate(pools[0]!)).toEqual([]);
        const { rows } = await pools[0]!.query("select version, name from ubiquity_schema_migrations order by version");
        expect(rows).toEqual([{ version: 1, name: "sessions, records and todos" }]);
        const tables = await pools[0]!.query(
          "select tablename from pg_tables where tablename like 'ubiquity_%' order by 1",
        );
        expect(tables.rows.map((r) => r.tablename)).toEqual([
          "ubiquity_records",
          "ubiquity_schema_migrations",
          "ubiquity_sessions",
          "ubiquity_todos",
        ]);
        await pools[0]!.query("insert into ubiquity_schema_migrations (version, name) values (99, 'from the future')");
        await expect(migrate(pools[0]!)).rejects.toBeInstanceOf(SchemaVersionError);
        await expect(migrate(pools[0]!)).rejects.toThrow(
          /version 99, newer than this ubiquity knows \(1\): upgrade ubiquity/,
        );
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it("the append under READ COMMITTED: a second writer blocked behind the first is refused once the first commits", async () => {
      await withStore(async (store, url) => {
        const sid = randomUUID();
        await store.appender(sid, "/tmp/p").append(record(sid, "r1", null), null);
        const a = new pg.Client({ connectionString: url });
        const b = new pg.Client({ connectionString: url });
        await a.connect();
        await b.connect();
        try {
          for (const c of [a, b])
            expect((await c.query("show transaction_isolation")).rows[0].transaction_isolation).toBe("read committed");
          await a.query("begin");
          expect((await a.query(APPEND_RECORD, appendRecordParams(sid, record(sid, "a2", "r1"), "r1"))).rowCount).toBe(
            1,
          );
          // B expects the same last record; it must wait for A's row lock...
          let bDone = false;
          const bAppend = b
            .query(APPEND_RECORD, appendRecordParams(sid, record(sid, "b2", "r1"), "r1"))
            .finally(() => (bDone = true));
          await new Promise((r) => setTimeout(r, 300));
          expect(bDone).toBe(false);
          await a.query("commit");
          // ...and then finds last_uuid moved on: nothing written.
          expect((await bAppend).rowCount).toBe(0);
          // The same race on a session that does not exist yet (both expect no record).
          const fresh = randomUUID();
          await a.query("begin");
          expect(
            (await a.query(APPEND_RECORD, appendRecordParams(fresh, record(fresh, "x1", null), null))).rowCount,
          ).toBe(1);
          const second = b.query(APPEND_RECORD, appendRecordParams(fresh, record(fresh, "y1", null), null));
          await new Promise((r) => setTimeout(r, 200));
          await a.query("commit");
          expect((await second).rowCount).toBe(0);
          expect((await store.get(fresh))!.records.map((r) => r.uuid)).toEqual(["x1"]);
        } finally {
          await a.end();
          await b.end();
        }
        expect((await store.get(sid))!.records.map((r) => r.uuid)).toEqual(["r1", "a2"]);
        // An append naming a record of a session that is gone is refused too (never recreates it).
        expect(await store.delete(sid)).toBe(true);
        await expect(store.appender(sid, "/tmp/p").append(record(sid, "r3", "a2"), "a2")).rejects.toThrow(
          /was written by another run/,
        );
        expect(await store.get(sid)).toBeUndefined();
      });
    });

    it("a writer whose session another writer appended to stops its run: error_stale_writer, no further record, no further tool", async () => {
      const url = await server.database();
      const store = new PostgresSessionStore(url);
      try {
        let foreign = "";
        const intrude = defineTool({
          name: "Intrude",
          description: "Append a foreign record.",
          inputSchema: z.object({}),
          execute: async () => {
            const [session] = await store.list();
            // The call's tool_use record is written as the tool starts (its assistant record before): wait for it to land.
            const deadline = Date.now() + 60_000;
            while ((await store.get(session!.sessionId))!.records.at(-1)!.type !== "tool_use" && Date.now() < deadline)
              await new Promise((r) => setTimeout(r, 10));
            const appender = store.appender(session!.sessionId, session!.cwd);
            const last = await appender.last();
            foreign = randomUUID();
            await appender.append(record(session!.sessionId, foreign, last, session!.cwd), last);
            return "done";
          },
        });
        let echoed = 0;
        const echo = defineTool({
          name: "Echo",
          description: "echo",
          inputSchema: z.object({ text: z.string() }),
          execute: () => `echo ${++echoed}`,
        });
        const model = scriptedModel([
          { text: "intruding", toolCalls: [{ toolName: "Intrude", input: {}, id: "c1" }] },
          { text: "echo", toolCalls: [{ toolName: "Echo", input: { text: "x" }, id: "c2" }] },
          "done",
        ]);
        const cwd = temp("ubq-project-");
        const messages = await collect(
          summon("go", {
            model,
            tools: [intrude, echo],
            presets: [],
            plugins: [sessions(), sessionsPostgres()],
            sessionStore: { postgres: { connectionString: url } },
            cwd,
          }),
        );
        const result = resultOf(messages);
        expect(result).toMatchObject({ subtype: "error_stale_writer", isError: true });
        expect(result.result).toMatch(/was written by another run.*stopped instead of forking.*--resume/);
        expect(echoed).toBe(0);
        expect(ofType(messages, "assistant")).toHaveLength(1);
        const stored = (await store.get(result.sessionId))!.records;
        expect(stored.map((r) => r.type)).toEqual(["user", "assistant", "tool_use", "user"]);
        expect(stored.at(-1)!.uuid).toBe(foreign);
        for (let i = 1; i < stored.length; i++) expect(stored[i]!.parentUuid).toBe(stored[i - 1]!.uuid);
      } finally {
        await store.close();
      }
    });

    it("a record another writer adds after the run replayed the session is refused, not skipped over", async () => {
      await withStore(async (store, url) => {
        const cwd = temp("ubq-project-");
        const options = { presets: [], sessionStore: { postgres: { connectionString: url } }, cwd };
        const first = resultOf(
          await collect(
            summon("first", {
              ...options,
              plugins: [sessions(), sessionsPostgres()],
              model: scriptedModel(["first answer"]),
            }),
          ),
        );
        // Between the replay (session.load, stage -1000) and the writer opening (stage 0), another writer appends.
        const intruder = definePlugin(() => ({
          name: "test:intruder",
          apply(kernel) {
            kernel.hooks.session.start.tapPromise({ name: "test:intruder", stage: -500 }, async () => {
              const appender = store.appender(first.sessionId, cwd);
              const last = await appender.last();
              await appender.append(record(first.sessionId, "late", last, cwd), last);
            });
          },
        }));
        const model = scriptedModel(["never"]);
        const again = resultOf(
          await collect(
            summon("again", {
              ...options,
              plugins: [sessions(), sessionsPostgres(), intruder()],
              resume: first.sessionId,
              model,
            }),
          ),
        );
        expect(again.subtype).toBe("error_stale_writer");
        expect(model.requests).toHaveLength(0);
        const records = (await store.get(first.sessionId))!.records;
        expect(records.at(-1)!.uuid).toBe("late");
        for (let i = 1; i < records.length; i++) expect(records[i]!.parentUuid).toBe(records[i - 1]!.uuid);
      });
    });

    it("two runs continuing one session at once: no fork, one continues, the other is refused and says so", async () => {
      await withStore(async (store, url) => {
        const cwd = temp("ubq-project-");
        const options = {
          presets: [],
          plugins: [sessions(), sessionsPostgres()],
          sessionStore: { postgres: { connectionString: url } },
          cwd,
        };
        const first = resultOf(await collect(summon("first", { ...options, model: scriptedModel(["first answer"]) })));
        // Both runs replay the session before either writes (a barrier after session.load, before the writer opens).
        let arrived = 0;
        let release!: () => void;
        const bothLoaded = new Promise<void>((r) => (release = r));
        const barrier = definePlugin(() => ({
          name: "test:barrier",
          apply(kernel) {
            kernel.hooks.session.start.tapPromise({ name: "test:barrier", stage: -500 }, async () => {
              if (++arrived === 2) release();
              await bothLoaded;
            });
          },
        }));
        const [a, b] = await Promise.all(
          ["a", "b"].map((p) =>
            collect(
              summon(p, {
                ...options,
                plugins: [...options.plugins, barrier()],
                resume: first.sessionId,
                model: scriptedModel([`${p} answer`]),
              }),
            ).then(resultOf),
          ),
        );
        expect([a!.sessionId, b!.sessionId]).toEqual([first.sessionId, first.sessionId]);
        expect([a!.subtype, b!.subtype].sort()).toEqual(["error_stale_writer", "success"]);
        const sessionsNow = await store.list();
        expect(sessionsNow.map((s) => s.sessionId)).toEqual([first.sessionId]);
        const records = (await store.get(first.sessionId))!.records;
        for (let i = 1; i < records.length; i++) expect(records[i]!.parentUuid).toBe(records[i - 1]!.uuid);
        const winner = a!.subtype === "success" ? "a" : "b";
        expect(records.filter((r) => r.type === "user").map((r) => (r.message as { text: string }).text)).toEqual([
          "first",
          winner,
        ]);
      });
    });

    it("todo lists live in the same database (no task files)", async () => {
      await withStore(async (store, url) => {
        const cwd = temp("ubq-project-");
        const todoDir = temp();
        const options = {
          presets: [],
          plugins: [todos(), toolTodo(), sessions(), sessionsPostgres()],
          sessionStore: { postgres: { connectionString: url } },
          cwd,
          todoDir,
        };
        const model = scriptedModel([
          {
            toolCalls: [
              {
                toolName: "TodoWrite",
                input: {
                  todos: [
                    { content: "write the store", status: "in_progress" },
                    { content: "test it", status: "pending" },
                  ],
                },
                id: "t1",
              },
            ],
          },
          "planned",
        ]);
        expect(resultOf(await collect(summon("plan", { ...options, model }))).isError).toBe(false);
        expect(readdirSync(todoDir)).toEqual([]);
        const { rows } = await store.query<{ body: { content: string; status: string } }>(
          "select body from ubiquity_todos order by (body->>'position')::int",
        );
        expect(rows.map((r) => [r.body.content, r.body.status])).toEqual([
          ["write the store", "in_progress"],
          ["test it", "pending"],
        ]);
        // The next run is told about the unfinished list, read back from the database.
        const next = scriptedModel(["ok"]);
        await collect(summon("go on", { ...options, model: next }));
        expect(JSON.stringify(next.requests[0]!.prompt)).toContain("write the store");
      });
    });

    it("a server that cannot be reached past outageTimeoutMs ends the run with an error naming the store and the bound", async () => {
      const cwd = temp("ubq-project-");
      const url = "postgresql://nobody:secret@127.0.0.1:1/none";
      const result = resultOf(
        await collect(
          summon("hi", {
            model: scriptedModel(["never"]),
            presets: [],
            plugins: [sessions(), sessionsPostgres()],
            sessionStore: { postgres: { connectionString: url, outageTimeoutMs: 300 } },
            cwd,
          }),
        ),
      );
      expect(result.isError).toBe(true);
      expect(result.result).toMatch(
        /PostgreSQL session store at postgresql:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none failed: .*ECONNREFUSED.*\(outageTimeoutMs: 300\)/,
      );
      expect(result.result).not.toContain("secret");
    });
  },
);

describe("the pg driver", () => {
  it("missing: an error naming npm i pg", async () => {
    const missing = () =>
      Promise.reject(Object.assign(new Error("Cannot find package 'pg'"), { code: "ERR_MODULE_NOT_FOUND" }));
    await expect(createPool("postgresql://x@127.0.0.1/db", {}, missing)).rejects.toBeInstanceOf(MissingDriverError);
    await expect(createPool("postgresql://x@127.0.0.1/db", {}, missing)).rejects.toThrow(
      "sessionStore.postgres needs the PostgreSQL driver, which is not installed: npm i pg",
    );
  });

  it("is not loaded unless a Postgres store is configured (the built package)", async () => {
    const { spawnSync } = await import("node:child_process");
    const { existsSync } = await import("node:fs");
    if (!existsSync("dist/sdk/index.mjs"))
      throw new Error(
        "dist/ is missing: these tests run the built package. Run `npm run build` first (`npm test` does it in pretest).",
      );
    // A fresh process runs the default preset and says whether node-postgres was loaded.
    const script = `
      const { summon } = await import("./dist/sdk/index.mjs");
      const { scriptedModel } = await import("./dist/src/testing/index.mjs");
      const [dir, url] = process.argv.slice(1);
      // The control's server is not there: fail at once instead of waiting out an outage (30 s by default).
      const store = url ? { sessionStore: { postgres: { connectionString: url, outageTimeoutMs: 1 } } } : {};
      for await (const m of summon("hi", { model: scriptedModel(["ok"]), sessionDir: dir, todoDir: dir, cwd: dir, ...store })) {}
      const { createRequire } = await import("node:module");
      console.log(JSON.stringify({ loaded: Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("/node_modules/pg/")) }));
    `;
    const run = (...args: string[]) => {
      const out = spawnSync(process.execPath, ["--input-type=module", "-e", script, temp(), ...args], {
        encoding: "utf8",
        env: { ...process.env, UBIQUITY_TRUST: "1" },
      });
      expect(out.status, out.stderr).toBe(0);
      return JSON.parse(out.stdout.trim().split("\n").at(-1)!) as { loaded: boolean };
    };
    expect(run()).toEqual({ loaded: false });
    // The control: configured (a server that is not there), it is loaded.
    expect(run("postgresql://x@127.0.0.1:1/none")).toEqual({ loaded: true });
  });
});
