/**
 * What a newcomer's trial (zc, 2026-12-07: a backend developer runs Ubiquity as a service — an
 * HTTP API on node:http where each user has sessions in PostgreSQL resumed by id, several at
 * once, streamed as server-sent events, a run cancelled when its client hangs up, a per-user
 * spending cap with the cost in the response, background work on a fleet of workers on Redis,
 * SIGTERM and a health check; the packed package in an empty project, real PostgreSQL and Redis,
 * the scripted model) met:
 * - every user's session read the other users' todo lists: the default `todoScope: "project"`
 *   keys one list by cwd, and a list with unfinished work is described in each new session's first
 *   prompt, so Alice's "wire $40k to acct 1234" reached Bob's model. No page said what a service
 *   passes; docs/guide/scaling-out.md has "A service: many users in one process" (a session's own
 *   list, a cwd per user, the disconnect and SIGTERM signal, the cap, one run per session), run
 *   here as written;
 * - resuming an id the PostgreSQL store does not hold said "check the id (ubiquity sessions list)
 *   and sessionDir", an option such runs do not use: it now names the store it asked (the database,
 *   without its password) and the option that picks it;
 * - a job the worker refused (a stored `sessionId`, an option, a local cwd, a repository) said to
 *   start the worker with `--accept-job-options sessionId` / `--allow-cwd` / `--allow-repos`, flags
 *   of `ubiquity worker`, to a service that starts it with `startWorker()`: each now names the
 *   option of `startWorker()` too;
 * - the per-user cap passed what the user had left; at 0 the run ended "maxBudgetUsd must be greater
 *   than 0 … leave it unset for no cap", which, followed, lifts the cap of a user with nothing left:
 *   it now says not to start the run, and that unset is no cap at all.
 * The rest ran as the docs say: 30 sessions at once each with its own result, a resumed session
 * replayed from the database after a restart, `abortSignal` ending a run with "Run aborted: <the
 * reason>" stored, a second resume of a running session ending the first with
 * `error_stale_writer`, and a fleet job's session resumed by the service with `resume`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { createFleet, startWorker, type Fleet, type FleetWorker } from "ubiquity/plugins/fleet";
import { scriptedModel } from "ubiquity/testing";
import defaultPreset from "ubiquity/presets/default";
import { usePostgres } from "../helpers/postgres";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";
import { tempDirs } from "../helpers/temp-dirs";
import { tsNodeArgs } from "../helpers/ts-child";
import { repoRoot } from "../helpers/project";
import { completeTsBlocks } from "../docs/blocks";

const tempDir = tempDirs();
const pg = usePostgres();

async function collect(run: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of run) out.push(m);
  return out;
}

/** The service block of docs/guide/scaling-out.md ("A service: many users in one process"). */
function serviceBlock(): string {
  const file = join(repoRoot, "docs", "guide", "scaling-out.md");
  const block = completeTsBlocks(file).find((b) => b.server && b.code.startsWith("// service.ts"));
  if (!block) throw new Error(`${file} has no \`// service.ts\` block`);
  return block.code;
}

/** One server-sent-events reply, read to its end: the messages in order. */
async function post(port: number, path: string, prompt: string): Promise<Message[]> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", body: prompt });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as Message);
}

const resultOf = (messages: Message[]) => {
  const last = messages.at(-1);
  if (last?.type !== "result") throw new Error(`no result: ${JSON.stringify(messages.at(-1))}`);
  return last;
};

const toolText = (messages: Message[]) =>
  messages
    .filter((m) => m.type === "tool_result")
    .map((m) => (m.type === "tool_result" ? String(m.output.content) : ""))
    .join("\n");

describe.skipIf(!pg.available)("the service of docs/guide/scaling-out.md, run as written", () => {
  let child: ChildProcess | undefined;
  let port = 0;
  let exited: Promise<number | null>;
  let database = "";
  beforeAll(async () => {
    database = await pg.database();
    const dir = tempDir("ubq-trial-zc-svc-");
    // The block as written; the test model is priced here (a real model has a market price).
    writeFileSync(join(dir, "service.ts"), serviceBlock());
    writeFileSync(
      join(dir, "main.ts"),
      `import { registerPricing } from "ubiquity";\nregisterPricing("test", { input: 3, output: 15 });\nawait import("./service.ts");\n`,
    );
    const home = join(dir, "home");
    mkdirSync(home);
    child = spawn(
      process.execPath,
      [...tsNodeArgs, join(repoRoot, "test", "docs", "run-block.ts"), join(dir, "main.ts")],
      {
        cwd: dir,
        env: {
          ...process.env,
          HOME: home,
          DATABASE_URL: database,
          PORT: "0",
          UBIQUITY_MODEL: "test",
          USERS_DIR: join(dir, "users"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    exited = new Promise((resolve) => child!.once("exit", (code) => resolve(code)));
    let out = "";
    port = await new Promise<number>((resolve, reject) => {
      child!.stdout!.on("data", (chunk) => {
        out += chunk;
        const m = /port: (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      let err = "";
      child!.stderr!.on("data", (chunk) => void (err += chunk));
      child!.once("exit", (code) => reject(new Error(`the service exited (${code}): ${err}`)));
    });
  });
  afterAll(() => void child?.kill("SIGKILL"));

  it("keeps each conversation's todo list to its session, resumes by id, and ends on SIGTERM with exit 0", async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).text()).toBe("ok");
    const add = (content: string) => `call TodoWrite {"add":[{"content":${JSON.stringify(content)}}]}`;
    const alice = await post(port, "/users/alice/sessions", add("alice: wire the rent to acct 1234"));
    expect(resultOf(alice)).toMatchObject({ subtype: "success" });
    expect(resultOf(alice).totalCostUsd).toBeGreaterThan(0);
    expect(toolText(alice)).toContain("alice: wire the rent");
    // Bob's list is his own: with the default (one list per cwd) it held Alice's task too.
    const bob = await post(port, "/users/bob/sessions", add("bob: buy milk"));
    expect(toolText(bob)).toContain("bob: buy milk");
    expect(toolText(bob)).not.toContain("alice");
    // Alice's second conversation starts with a list of its own (one list per cwd held the first's).
    const second = await post(port, "/users/alice/sessions", add("alice: plan the trip"));
    expect(toolText(second)).toContain("alice: plan the trip");
    expect(toolText(second)).not.toContain("wire the rent");
    // Alice's session goes on by its id, with her list.
    const id = resultOf(alice).sessionId;
    const again = await post(port, `/users/alice/sessions/${id}`, add("alice: pay the phone bill"));
    expect(resultOf(again)).toMatchObject({ subtype: "success", sessionId: id });
    expect(toolText(again)).toContain("alice: wire the rent");
    expect(toolText(again)).not.toMatch(/bob|trip/);
    child!.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});

describe.skipIf(!pg.available)("resuming an id the PostgreSQL store does not hold", () => {
  it("names the database asked (without its password), not sessionDir", async () => {
    const url = new URL(await pg.database());
    url.password = "s3cret-pw";
    const messages = await collect(
      summon("go on", {
        model: scriptedModel(["unused"]),
        cwd: tempDir("ubq-trial-zc-"),
        resume: "00000000-0000-4000-8000-00000000abcd",
        sessionStore: { postgres: { connectionString: url.toString() } },
      }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_configuration");
    expect(result.result).toContain(`in the postgres session store at ${url.toString().replace("s3cret-pw", "***")}`);
    expect(result.result).toContain("sessionStore");
    expect(result.result).not.toContain("sessionDir");
    expect(result.result).not.toContain("s3cret-pw");
  });
});

describe("a per-user cap with nothing left", () => {
  it("maxBudgetUsd: 0 says not to start the run, never only to leave the cap unset", async () => {
    for (const cap of [{ maxBudgetUsd: 0 }, { maxBudgetTokens: 0 }]) {
      const model = scriptedModel(["unused"]);
      const messages = await collect(
        summon("hi", { model, persistSession: false, cwd: tempDir("ubq-trial-zc-"), ...cap }),
      );
      const result = resultOf(messages);
      expect(result.subtype).toBe("error_configuration");
      expect(result.result).toContain(
        "with nothing left to spend, do not start the run (unset, there is no cap at all)",
      );
      expect(result.result).not.toContain("leave it unset for no cap");
      expect(model.requests).toHaveLength(0);
    }
  });
});

describe.skipIf(!pg.available || !!redisMissing)("a job a worker started with startWorker() refuses", () => {
  let redis: TestRedis;
  let fleet: Fleet;
  let worker: FleetWorker;
  let store = "";
  let dir = "";
  beforeAll(async () => {
    redis = await startRedis();
    store = await pg.database();
    worker = await startWorker({
      connection: redis.url,
      store,
      concurrency: 2,
      allowRepositories: ["github.com/acme"],
      config: { presets: [defaultPreset], model: scriptedModel(() => "done"), permissionMode: "bypassPermissions" },
      log: () => {},
    });
    fleet = await createFleet({ connection: redis.url, store, attempts: 1 });
  });
  afterAll(async () => {
    await fleet?.close();
    await worker?.close();
    await redis?.stop();
  });

  it("names startWorker()'s option beside the flag: a stored sessionId, an option, a local cwd, a repository", async () => {
    dir = tempDir("ubq-trial-zc-fleet-");
    // A session the service already stored, continued in the background.
    const stored = resultOf(
      await collect(
        summon("start", {
          model: scriptedModel(["ok"]),
          cwd: dir,
          sessionStore: { postgres: { connectionString: store } },
        }),
      ),
    ).sessionId;
    const ids = [
      await fleet.submit({ prompt: "go on", repository: "https://github.com/acme/a.git", sessionId: stored }),
      await fleet.submit({
        prompt: "go on",
        repository: "https://github.com/acme/a.git",
        options: { permissionMode: "acceptEdits" },
      }),
      await fleet.submit({ prompt: "go on", cwd: dir }),
      await fleet.submit({ prompt: "go on", repository: "https://example.invalid/a.git" }),
    ];
    const runs = await fleet.wait(ids, { timeoutMs: 60_000 });
    expect(runs.map((r) => r.state)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(runs[0]!.error).toContain('acceptJobOptions: ["sessionId"] in startWorker()');
    expect(runs[1]!.error).toContain("in startWorker()");
    expect(runs[1]!.error).toMatch(/acceptJobOptions: \["permissionMode", "model"/);
    expect(runs[2]!.error).toContain('allowCwd: ["<dir>", …] in startWorker()');
    expect(runs[3]!.error).toContain("(--allow-repos; allowRepositories in startWorker())");
  });
});
