/**
 * A throw-away redis-server for tests: 127.0.0.1, a free port, a temp folder, no persistence
 * (`--save '' --appendonly no`), killed afterwards. Tests skip with `redisMissing` as the reason
 * only when the binary is absent (.ci/run installs it and sets UBIQUITY_REQUIRE_REDIS=1).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { freePort } from "./free-port";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The redis-server binary, or undefined when it is not installed. */
export function redisBinary(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

/** Why the Redis tests cannot run here (undefined when they can); with UBIQUITY_REQUIRE_REDIS=1 (.ci/run) a missing server fails instead. */
export const redisMissing: string | undefined = redisBinary()
  ? undefined
  : "redis-server is not installed: apt-get install -y redis-server (.ci/run installs it)";

if (redisMissing && process.env.UBIQUITY_REQUIRE_REDIS === "1")
  throw new Error(`UBIQUITY_REQUIRE_REDIS=1 but ${redisMissing}`);

export { freePort };

/** True when a Redis answers PING on `port`. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    socket.once("error", () => resolve(false));
    socket.on("data", (d) => {
      reply += d;
      if (reply.includes("\r\n")) {
        socket.destroy();
        resolve(reply.startsWith("+PONG"));
      }
    });
    socket.once("connect", () => socket.write("PING\r\n"));
  });
}

/** A running throw-away Redis. */
export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL the server (connections reset); with `persistent`, every acknowledged write survives. */
  down(): Promise<void>;
  /** Start it again on the same port and folder; resolves once it answers. */
  up(): Promise<void>;
}

/**
 * Start one; resolves once it accepts connections. `persistent`: an append-only file synced on
 * every write (as a production BullMQ Redis runs), so `down()`/`up()` is a restart, not a wipe.
 */
export async function startRedis(options: { persistent?: boolean } = {}): Promise<TestRedis> {
  const binary = redisBinary();
  if (!binary) throw new Error("redis-server is not installed (apt-get install -y redis-server)");
  const dir = mkdtempSync(join(tmpdir(), "ubq-redis-"));
  const port = await freePort();
  const persistence = options.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      binary,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        ...persistence,
        "--maxmemory-policy",
        "noeviction",
        "--loglevel",
        "warning",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${output}`);
      if (await ping(port)) break;
      if (Date.now() > deadline) throw new Error(`redis-server did not start on ${port}: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    down: kill,
    up: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
