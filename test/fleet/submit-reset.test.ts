/**
 * A submit whose connection resets after Redis ran the add but before its reply came back (the
 * fault behind a CI failure: Redis was SIGKILLed while `fleet.submit` calls were in flight). The
 * client sends the unanswered add again on reconnect; without an idempotent add that queued the
 * run twice under one session id, and the worker rightly refused the second job ("session … is
 * already in the store"). A TCP proxy between the fleet and a real Redis cuts exactly that
 * reply, so the fault happens on every run, not by chance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createServer, connect, type Server, type Socket } from "node:net";
import { createFleet } from "../../plugins/fleet/index";
import { redisMissing, startRedis, type TestRedis } from "../helpers/redis-server";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();
const MARKER = "cut-the-reply-to-this-add";

/** A proxy that forwards everything, except the reply to the first request carrying MARKER: it resets both sides instead. */
async function cuttingProxy(
  upstreamPort: number,
): Promise<{ port: number; cuts: () => number; close(): Promise<void> }> {
  let armed = true;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    let cutNextReply = false;
    client.on("data", (chunk) => {
      if (armed && chunk.includes(MARKER)) {
        armed = false;
        cutNextReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (!cutNextReply) return void client.write(chunk);
      // Redis has run the add (this is its reply): the client never hears of it.
      cuts++;
      client.resetAndDestroy();
      upstream.destroy();
    });
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on("close", () => {
        sockets.delete(a);
        b.destroy();
      });
      a.on("error", () => {});
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    cuts: () => cuts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(redisMissing !== undefined)("fleet.submit when the reply to its add is lost", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("queues the run once, and answers with that job's id", async () => {
    const proxy = await cuttingProxy(redis.port);
    const fleet = await createFleet({
      connection: `redis://127.0.0.1:${proxy.port}`,
      store: temp(),
      queueName: "submit-reset",
    });
    try {
      const before = await fleet.submit({ prompt: "first", cwd: temp() });
      const id = await fleet.submit({ prompt: MARKER, cwd: temp() });
      const after = await fleet.submit({ prompt: "last", cwd: temp() });
      expect(proxy.cuts()).toBe(1);
      // Redis ran the add twice (each run takes the next number from the queue's counter)...
      const counter = execFileSync("redis-cli", ["-p", String(redis.port), "GET", "bull:submit-reset:id"], {
        encoding: "utf8",
      }).trim();
      expect(Number(counter)).toBe(4);
      // ...and the queue holds one job per submit: the resent add answered with the first one.
      const runs = await fleet.status();
      expect(runs.map((r) => r.id).sort()).toEqual([before, id, after].sort());
      expect(new Set(runs.map((r) => r.sessionId)).size).toBe(3);
    } finally {
      await fleet.close();
      await proxy.close();
    }
  }, 120_000);
});
