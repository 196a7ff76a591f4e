/**
 * The Postgres store after a failed append or a lost answer (the fault behind a fleet CI failure:
 * a job's `fleet-job` note was lost to a connection reset while its later records were stored, so
 * its retry was refused as another job's takeover). A writer issues its appends without waiting:
 * once one failed, the later ones must not be stored after the gap. An append whose answer was
 * lost while the database stays unreachable failed; it is not reported as a stale writer (the
 * worker would take it for a lost worker's write and run the job again). A note or a fork whose
 * answer was lost is stored by its re-send: the note is read once, the fork is no failure. The
 * faults are real: a trigger that has the server end the backend inserting a note, and a TCP proxy
 * in front of the server that drops exactly the answer to one statement (and then, for one test,
 * refuses every connection).
 */
import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { StaleWriterError, type TranscriptNote } from "ubiquity/plugins/sessions";
import { PostgresSessionStore } from "ubiquity/plugins/sessions-postgres";
import { postgresMissing, usePostgres } from "../helpers/postgres";
import { CUT_NOTES_SQL, cuttingProxy, throughProxy } from "../helpers/postgres-faults";
import { record } from "./records";

const note = (sessionId: string, kind: string): TranscriptNote => ({
  type: "note",
  kind,
  sessionId,
  timestamp: new Date().toISOString(),
  data: { jobId: "job-1" },
});

describe.skipIf(postgresMissing !== undefined)("the Postgres store after a failed append or a lost answer", () => {
  const server = usePostgres();

  it("a note whose connection was cut past the outage bound: no later append of the writer is stored", async () => {
    const url = await server.database();
    const store = new PostgresSessionStore(url, { outageTimeoutMs: 300 });
    const admin = new pg.Client({ connectionString: url });
    try {
      await store.list();
      await admin.connect();
      await admin.query(CUT_NOTES_SQL);
      await admin.query("insert into fault_notes values ('cut')");
      const sessionId = randomUUID();
      const appender = store.appender(sessionId, "/tmp/p");
      // Issued one after another without waiting, as the transcript writer does.
      const noted = appender.append(note(sessionId, "cut"), null).catch((e: unknown) => e);
      const recorded = appender.append(record(sessionId, "r1", null), null).catch((e: unknown) => e);
      const later = appender.append(note(sessionId, "fine"), null).catch((e: unknown) => e);
      expect(String(await noted)).toMatch(/terminating connection|stayed unreachable/);
      expect(await recorded).toBe(await noted);
      expect(await later).toBe(await noted);
      const { rows } = await admin.query("select kind from ubiquity_records where session_id = $1", [sessionId]);
      expect(rows).toEqual([]);
      // Another writer (a new appender) writes the session from its start.
      const next = store.appender(sessionId, "/tmp/p");
      await next.append(note(sessionId, "fine"), null);
      await next.append(record(sessionId, "r1", null), null);
      expect((await store.get(sessionId))?.records.map((r) => r.uuid)).toEqual(["r1"]);
    } finally {
      await admin.end();
      await store.close();
    }
  });

  it("an append whose answer was lost while the database stays unreachable fails as unreachable, not as a stale writer", async () => {
    const url = new URL(await server.database());
    const marker = `lost-answer-${randomUUID()}`;
    const proxy = await cuttingProxy(Number(url.port), marker);
    const store = new PostgresSessionStore(throughProxy(url.toString(), proxy), { outageTimeoutMs: 300 });
    try {
      const sessionId = randomUUID();
      const appender = store.appender(sessionId, "/tmp/p");
      await appender.append(record(sessionId, "r1", null), null);
      const error = await appender.append(record(sessionId, marker, "r1"), "r1").catch((e: unknown) => e);
      // The append ran, its answer was cut, its re-send found r1 no longer last, and the store could not be read.
      expect(proxy.seen()).toBe(2);
      expect(error).not.toBeInstanceOf(StaleWriterError);
      expect(String(error)).toMatch(/stayed unreachable for .* \(outageTimeoutMs: 300\)/);
      proxy.up();
      const direct = new PostgresSessionStore(url.toString());
      try {
        expect((await direct.get(sessionId))?.records.map((r) => r.uuid)).toEqual(["r1", marker]);
      } finally {
        await direct.close();
      }
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it("a note whose answer was lost is stored by its re-send, and read once", async () => {
    const url = new URL(await server.database());
    const marker = `lost-note-${randomUUID()}`;
    const proxy = await cuttingProxy(Number(url.port), marker, { downAfterResend: false });
    const store = new PostgresSessionStore(throughProxy(url.toString(), proxy), { outageTimeoutMs: 5000 });
    try {
      const sessionId = randomUUID();
      const appender = store.appender(sessionId, "/tmp/p");
      await appender.append(note(sessionId, marker), null);
      await appender.append(record(sessionId, "r1", null), null);
      expect(proxy.seen()).toBe(2);
      expect((await store.get(sessionId))?.notes.map((n) => n.kind)).toEqual([marker]);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it("a fork whose answer was lost is the fork its re-send finds, not a failure (the copy was stored)", async () => {
    const url = new URL(await server.database());
    const marker = `lost-fork-${randomUUID()}`;
    const direct = new PostgresSessionStore(url.toString());
    const proxy = await cuttingProxy(Number(url.port), marker, { downAfterResend: false });
    const store = new PostgresSessionStore(throughProxy(url.toString(), proxy), { outageTimeoutMs: 5000 });
    try {
      const sessionId = randomUUID();
      const appender = direct.appender(sessionId, "/tmp/p");
      await appender.append(record(sessionId, "r1", null), null);
      await appender.append(record(sessionId, marker, "r1"), "r1");
      // Through the proxy, the first statement carrying the marker is the fork's copy (its records' text).
      const forked = await store.forkRecords(sessionId);
      expect(proxy.seen()).toBe(2);
      const stored = await direct.get(forked.sessionId);
      expect(stored?.records.map((r) => r.uuid)).toEqual(forked.records.map((r) => r.uuid));
      expect(stored?.records.map((r) => r.message.type === "user" && r.message.text)).toEqual(["r1", marker]);
      // A fork onto an id another session holds is still refused.
      await expect(direct.forkRecords(sessionId, { sessionId: forked.sessionId })).rejects.toThrow(/duplicate key/);
    } finally {
      await store.close();
      await direct.close();
      await proxy.close();
    }
  });
});
