/**
 * The Postgres session store under hostile input: session ids and record text are attacker
 * strings (they come from the fleet's queue), and the connection string's password must not
 * reach a run, its transcript, Bash's environment or an error.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import defaultPreset from "../../presets/default";
import { scriptedModel } from "../../src/testing/index";
import { PostgresSessionStore } from "../../plugins/sessions-postgres/index";
import { runJob } from "../../plugins/fleet/run-job";
import { postgresStore } from "../../plugins/fleet/store";
import { usePostgres } from "../helpers/postgres";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();
const PASSWORD = "pg-s3cret-pw";
/** The test server trusts every connection: a password in the URL is ignored, but travels everywhere the URL does. */
const withPassword = (url: string) => url.replace("://postgres@", `://postgres:${PASSWORD}@`);

describe("sessions-postgres attack", () => {
  const server = usePostgres();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it.skipIf(!server.available)(
    "a fleet run on the store never shows the connection password: not in its messages, its result, nor Bash's environment",
    async () => {
      const url = withPassword(await server.database());
      vi.stubEnv("UBIQUITY_FLEET_POSTGRES", url);
      const store = await postgresStore(url);
      try {
        const dir = temp();
        const model = scriptedModel(({ request }) => {
          const tools = request.prompt.filter((m) => m.role === "tool");
          return tools.length
            ? { text: JSON.stringify(tools) }
            : { toolCalls: [{ id: "e1", toolName: "Bash", input: { command: "env; echo done" } }] };
        });
        const config = {
          presets: [defaultPreset],
          model,
          marketPricing: false,
          permissionMode: "bypassPermissions",
          cwd: dir,
        };
        const outcome = await runJob({
          job: { prompt: "go", cwd: dir, sessionId: "pw-1" },
          jobId: "1",
          attempt: 0,
          config,
          store,
          workdir: dir,
          worker: "w",
          signal: new AbortController().signal,
          progress: () => {},
          allowCwd: [dir],
        });
        const stored = JSON.stringify(await store.records("pw-1"));
        expect(stored).toContain("HOME=");
        expect(outcome.result + stored).not.toContain(PASSWORD);
      } finally {
        await store.close();
      }
    },
  );

  it.skipIf(!server.available)("an unreachable store's error names the database without its password", async () => {
    const store = new PostgresSessionStore(`postgresql://postgres:${PASSWORD}@127.0.0.1:1/agents`, {
      outageTimeoutMs: 300,
    });
    try {
      const message = await store.list({ limit: 1 } as never).then(
        () => "",
        (e: Error) => e.message,
      );
      expect(message).toMatch(/127\.0\.0\.1:1/);
      expect(message).not.toContain(PASSWORD);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!server.available)(
    "hostile session ids and record text are data, never SQL: the other sessions stay",
    async () => {
      const url = await server.database();
      const store = await postgresStore(url);
      const raw = new PostgresSessionStore(url);
      try {
        const dir = temp();
        const text = "x'); drop table ubiquity_sessions; --";
        const config = { presets: [defaultPreset], model: scriptedModel([text]), marketPricing: false, cwd: dir };
        await runJob({
          job: { prompt: text, cwd: dir, sessionId: "keep-1" },
          jobId: "1",
          attempt: 0,
          config,
          store,
          workdir: dir,
          worker: "w",
          signal: new AbortController().signal,
          progress: () => {},
          allowCwd: [dir],
        });
        for (const id of ["keep-1' or '1'='1", "keep-1; drop table ubiquity_records; --", "../keep-1", "%", "_eep-1"]) {
          expect(await raw.get(id)).toBeUndefined();
          expect(await raw.exists(id)).toBe(false);
          expect(await raw.delete(id)).toBe(false);
        }
        const records = await store.records("keep-1");
        expect(records.at(-1)?.message).toMatchObject({ type: "result", result: text });
        expect(records[0]?.message).toMatchObject({ type: "user", text });
      } finally {
        await store.close();
        await raw.close();
      }
    },
  );
});
