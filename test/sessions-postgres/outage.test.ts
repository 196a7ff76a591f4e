/**
 * The Postgres store under a database restart (issue 37, failures 1–2 and build 1): reads and
 * appends retry with backoff through a bounded outage (`outageTimeoutMs`, default 30 s), an append
 * whose answer was lost is not taken for a stale writer, and a run whose database restarts in the
 * middle completes with every record stored once. A real PostgreSQL, stopped (fast shutdown: every
 * connection is cut) and started again on the same folder and port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { summon, defineTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions from "ubiquity/plugins/sessions";
import sessionsPostgres, { PostgresSessionStore } from "ubiquity/plugins/sessions-postgres";
import { collect, resultOf } from "../helpers/collect";
import { postgresMissing, startPostgres, type TestPostgres } from "../helpers/postgres";
import { tempDirs } from "../helpers/temp-dirs";
import { record } from "./records";

const temp = tempDirs();

describe.skipIf(postgresMissing !== undefined)("the Postgres store through a database restart", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("an append issued while the database is down is stored once it is back; the outage is reported down, then up", async () => {
    const url = await server.database();
    const states: string[] = [];
    const store = new PostgresSessionStore(url, { onOutage: (state) => states.push(state) });
    try {
      const sessionId = randomUUID();
      const appender = store.appender(sessionId, "/tmp/p");
      await appender.append(record(sessionId, "r1", null), null);
      await server.down();
      const pending = appender.append(record(sessionId, "r2", "r1"), "r1");
      const read = store.get(sessionId);
      await server.up();
      await pending;
      // The read waited out the outage too (it sees r2 or not, as the two retries happen to order).
      expect((await read)?.records[0]?.uuid).toBe("r1");
      expect((await store.get(sessionId))?.records.map((r) => r.uuid)).toEqual(["r1", "r2"]);
      expect(states).toEqual(["down", "up"]);
    } finally {
      await store.close();
    }
  });

  it("an outage longer than outageTimeoutMs fails, naming the bound", async () => {
    const url = await server.database();
    const store = new PostgresSessionStore(url, { outageTimeoutMs: 500 });
    try {
      await store.list();
      await server.down();
      await expect(store.list()).rejects.toThrow(
        /PostgreSQL session store at .* failed: .*; it stayed unreachable for 0\.[5-9] s \(outageTimeoutMs: 500\)/,
      );
    } finally {
      await server.up();
      await store.close();
    }
  });

  it("a run whose database restarts mid-run completes, every message of the stream stored once, in order", async () => {
    const url = await server.database();
    const cwd = temp("ubq-project-");
    // Stops the database and starts it again a second later, while the run goes on writing.
    const restart = defineTool({
      name: "Restart",
      description: "Restart the database.",
      inputSchema: z.object({}),
      execute: async () => {
        await server.down();
        setTimeout(() => void server.up(), 1000);
        return "restarting";
      },
    });
    const model = scriptedModel([
      { text: "restart it", toolCalls: [{ toolName: "Restart", input: {}, id: "c1" }] },
      { text: "again", toolCalls: [{ toolName: "Restart", input: {}, id: "c2" }] },
      "survived",
    ]);
    const messages = await collect(
      summon("go", {
        model,
        tools: [restart],
        presets: [],
        plugins: [sessions(), sessionsPostgres()],
        sessionStore: { postgres: { connectionString: url } },
        cwd,
      }),
    );
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "success", isError: false, result: "survived" });
    const store = new PostgresSessionStore(url);
    try {
      const stored = await store.get(result.sessionId);
      const persisted = messages
        .filter((m) => !(m.type === "system" && m.subtype === "init") && m.type !== "stream_event")
        .map((m) => m.uuid);
      expect(stored?.records.map((r) => r.uuid)).toEqual(persisted);
    } finally {
      await store.close();
    }
  });
});
