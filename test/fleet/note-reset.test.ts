/**
 * A job whose `fleet-job` note cannot be stored (its connection is cut every time the note's
 * insert runs, past the store's outage bound) while the database takes the run's later records.
 * Before: the note was lost, the run's prompt was stored after the gap, and the job's retry was
 * refused as a takeover of a session "which no job of this fleet runs". Now: nothing is written
 * after a failed append, so the try leaves no records, and the retry (the fault gone) runs the
 * job as its own. The fault is a real connection reset (the server ends the backend), injected
 * by a trigger on the note's insert: deterministic, whatever the machine's load.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { scriptedModel } from "ubiquity/testing";
import sessions from "ubiquity/plugins/sessions";
import sessionsPostgres, { PostgresSessionStore } from "ubiquity/plugins/sessions-postgres";
import { runJob, UnstoredResultError, type JobContext } from "../../plugins/fleet/run-job";
import { postgresStore, type FleetStore } from "../../plugins/fleet/store";
import { jobSchema, type FleetJob } from "../../plugins/fleet/jobs";
import { sessionJob } from "../../plugins/fleet/run-plugin";
import { postgresMissing, startPostgres, type TestPostgres } from "../helpers/postgres";
import { CUT_NOTES_SQL } from "../helpers/postgres-faults";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

describe.skipIf(postgresMissing !== undefined)("fleet: a connection reset at the job's note", () => {
  let server: TestPostgres;
  let url: string;
  let admin: pg.Client;
  let store: FleetStore;

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.database();
    // The schema first (the store migrates on first use), then the fault on its records table.
    const migrated = new PostgresSessionStore(url);
    await migrated.list();
    await migrated.close();
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(CUT_NOTES_SQL);
    store = await postgresStore(url, { outageTimeoutMs: 300 });
  });
  afterAll(async () => {
    await store?.close();
    await admin?.end();
    await server?.stop();
  });

  function context(dir: string, sessionId: string, attempt: number): JobContext {
    return {
      job: jobSchema.parse({ prompt: "go", cwd: dir, sessionId }) as FleetJob,
      jobId: "job-1",
      attempt,
      config: { presets: [], plugins: [sessions(), sessionsPostgres()], model: scriptedModel(() => "done") },
      store,
      workdir: join(dir, "work"),
      worker: "w1",
      signal: new AbortController().signal,
      progress: () => {},
      allowCwd: [dir],
    };
  }

  it("the try that lost its note stores nothing after it, and the job's retry runs as its own", async () => {
    const dir = join(temp(), "project");
    mkdirSync(dir);
    const sessionId = randomUUID();
    await admin.query("insert into fault_notes values ('fleet-job')");
    const first = await runJob(context(dir, sessionId, 0)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(first, String(first)).toBeInstanceOf(UnstoredResultError);
    // Nothing after the note that is missing (it was the try's first append): no record at all.
    expect(await store.read(sessionId)).toBeUndefined();

    // The queue tries the job again (attempt 1) once the database takes notes again.
    await admin.query("delete from fault_notes");
    const outcome = await runJob(context(dir, sessionId, 1));
    expect([outcome.subtype, outcome.result]).toEqual(["success", "done"]);
    const stored = await store.read(sessionId);
    expect(sessionJob(stored!.notes)).toBe("job-1");
  });
});
