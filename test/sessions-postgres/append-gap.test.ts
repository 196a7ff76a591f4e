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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { StaleWriterError, type TranscriptNote, type TranscriptRecord } from "ubiquity/plugins/sessions";
import { PostgresSessionStore } from "ubiquity/plugins/sessions-postgres";
import { postgresMissing, startPostgres, type TestPostgres } from "../helpers/postgres";

function record(sessionId: string, uuid: string, parentUuid: string | null): TranscriptRecord {
  return {
    uuid,
    parentUuid,
    sessionId,
    type: "user",
    timestamp: new Date().toISOString(),
    cwd: "/tmp/p",
    message: { type: "user", uuid, sessionId, text: uuid } as TranscriptRecord["message"],
  };
}

const note = (sessionId: string, kind: string): TranscriptNote => ({
  type: "note",
  kind,
  sessionId,
  timestamp: new Date().toISOString(),
  data: { jobId: "job-1" },
});

/** Every insert of a note of kind `cut` has its connection ended by the server (the statement does not commit). */
const CUT_NOTES = `
  create function cut_note() returns trigger language plpgsql as $$
  begin
    if new.kind = 'note' and new.body->>'kind' = 'cut' then
      perform pg_terminate_backend(pg_backend_pid());
      raise exception 'terminating connection due to administrator command' using errcode = 'admin_shutdown';
    end if;
    return new;
  end $$;
  create trigger cut_note before insert on ubiquity_records for each row execute function cut_note();`;

/**
 * A proxy to the server that forwards everything but the answer to the first statement carrying
 * `marker`: that connection is reset instead (the statement ran). With `downAfterResend`, the
 * next statement carrying `marker` (its re-send) is answered and then the proxy goes down,
 * refusing every connection until `up()`.
 */
async function cuttingProxy(upstreamPort: number, marker: string, { downAfterResend = true } = {}) {
  let seen = 0;
  let down = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("error", () => {});
    client.on("close", () => sockets.delete(client));
    if (down) return void client.resetAndDestroy();
    const upstream = connect(upstreamPort, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("error", () => {});
    let cutAnswer = false;
    let lastAnswer = false;
    client.on("data", (chunk) => {
      if (down) return void client.resetAndDestroy();
      if (chunk.includes(marker)) {
        seen++;
        if (seen === 1) cutAnswer = true;
        else lastAnswer = downAfterResend;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (cutAnswer) {
        // The server ran the append (this is its answer): the client never hears of it.
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
      if (lastAnswer) down = true;
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    seen: () => seen,
    up: () => void (down = false),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(postgresMissing !== undefined)("the Postgres store after a failed append or a lost answer", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("a note whose connection was cut past the outage bound: no later append of the writer is stored", async () => {
    const url = await server.database();
    const store = new PostgresSessionStore(url, { outageTimeoutMs: 300 });
    const admin = new pg.Client({ connectionString: url });
    try {
      await store.list();
      await admin.connect();
      await admin.query(CUT_NOTES);
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
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    const store = new PostgresSessionStore(viaProxy.toString(), { outageTimeoutMs: 300 });
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
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    const store = new PostgresSessionStore(viaProxy.toString(), { outageTimeoutMs: 5000 });
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
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    const store = new PostgresSessionStore(viaProxy.toString(), { outageTimeoutMs: 5000 });
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
