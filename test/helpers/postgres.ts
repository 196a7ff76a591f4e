/**
 * A throw-away PostgreSQL for tests: `initdb` into a temp folder, `postgres` on 127.0.0.1 at a
 * free port (its socket in the same temp folder), removed afterwards. The Debian package's
 * binaries are found under /usr/lib/postgresql/<version>/bin (or `UBIQUITY_PG_BIN`, or `initdb`
 * on PATH). PostgreSQL refuses to run as root: as root the server runs as the `postgres` user
 * (the Debian package creates it) and the folder is given to it.
 *
 *   const pg = usePostgres();            // in a describe: starts before, stops after
 *   it.skipIf(!pg.available)(..., async () => { const url = await pg.database(); ... });
 *
 * Tests skip only when the binaries are absent (`postgresMissing` says why); with
 * `UBIQUITY_REQUIRE_POSTGRES=1` (.ci/run sets it) a missing PostgreSQL fails instead.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { freePort } from "./free-port";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

/** The folder holding `initdb` and `postgres`, or undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.UBIQUITY_PG_BIN) candidates.push(process.env.UBIQUITY_PG_BIN);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(debian, v, "bin")));
  }
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir) candidates.push(dir);
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres")));
}

/** Why PostgreSQL tests cannot run here (undefined when they can). */
export const postgresMissing: string | undefined = postgresBinDir()
  ? undefined
  : "PostgreSQL is not installed (no initdb/postgres under /usr/lib/postgresql/*/bin, UBIQUITY_PG_BIN or PATH): apt-get install -y postgresql";

if (postgresMissing && process.env.UBIQUITY_REQUIRE_POSTGRES === "1")
  throw new Error(`UBIQUITY_REQUIRE_POSTGRES=1 but ${postgresMissing}`);

/** A running throw-away server. */
export interface TestPostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` (trust authentication, no password). */
  connectionString: string;
  port: number;
  /** A fresh, empty database on the server; returns its connection string. */
  database(): Promise<string>;
  /** Stop the server (fast shutdown) and remove its folder. */
  stop(): Promise<void>;
  /** Stop the server (fast shutdown: clients are cut off), keeping its folder: a restart's first half. */
  down(): Promise<void>;
  /** Start it again on the same folder and port; resolves once it accepts connections. */
  up(): Promise<void>;
}

/** uid/gid to run the server as: ours, or the `postgres` user's when we are root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      "PostgreSQL refuses to run as root and there is no `postgres` user to run it as: useradd --system postgres (the Debian package creates it)",
    );
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Start a throw-away server; resolves once it accepts connections. */
export async function startPostgres(options: { fsync?: boolean } = {}): Promise<TestPostgres> {
  // The free port is found before postgres binds it: another test's server may take it meanwhile.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !/could not bind|Address already in use/i.test(String(error))) throw error;
    }
  }
}

async function startOnce(options: { fsync?: boolean }): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing);
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), "ubq-pg-"));
  const data = join(root, "data");
  if (user) chownSync(root, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
    {
      ...as,
      cwd: root,
      encoding: "utf8",
    },
  );
  if (init.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  const fsync = options.fsync ? "on" : "off";
  const connectionString = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import("pg");
  let child!: ChildProcess;
  let exited!: Promise<void>;
  /** Start the server on the folder and port; resolves once it accepts connections. */
  const start = async (first: boolean) => {
    child = spawn(
      join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        root,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `fsync=${fsync}`,
        "-c",
        `synchronous_commit=${fsync}`,
        "-c",
        "max_connections=200",
      ],
      { ...as, cwd: root, stdio: ["ignore", "ignore", "pipe"] },
    );
    running.add(child);
    let log = "";
    child.stderr!.on("data", (chunk: Buffer) => void (log = (log + chunk.toString()).slice(-8000)));
    exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) {
        running.delete(child);
        // A restart keeps the folder: the data is the point of restarting.
        if (first) rmSync(root, { recursive: true, force: true });
        throw new Error(`postgres exited with ${child.exitCode}: ${log}`);
      }
      const client = new pg.Client({ connectionString });
      try {
        await client.connect();
        await client.query("select 1");
        await client.end();
        break;
      } catch (error) {
        await client.end().catch(() => {});
        if (Date.now() > deadline) {
          child.kill("SIGKILL");
          throw new Error(`postgres did not accept connections within 30 s: ${String(error)}\n${log}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  // A stop waits for a start still going on (its readiness check would take the stop for a crash).
  let starting: Promise<void> = Promise.resolve();
  const launch = () => (starting = start(false));
  /** Fast shutdown (clients are cut off); SIGKILL after 10 s. */
  const halt = async () => {
    await starting.catch(() => {});
    if (child.exitCode === null) {
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
  };
  await start(true);
  return {
    connectionString,
    port,
    async database() {
      const name = `t_${randomBytes(6).toString("hex")}`;
      const client = new pg.Client({ connectionString });
      await client.connect();
      try {
        await client.query(`create database ${name}`);
      } finally {
        await client.end();
      }
      return `postgresql://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await halt();
      rmSync(root, { recursive: true, force: true });
    },
    down: halt,
    up: launch,
  };
}

/**
 * One server for a describe block: started in `beforeAll` (when the binaries exist), stopped in
 * `afterAll`. `available` is false when PostgreSQL is missing (pair with `it.skipIf`).
 */
export function usePostgres(options: { fsync?: boolean } = {}) {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    if (!postgresMissing) server = await startPostgres(options);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);
  const need = () => {
    if (!server) throw new Error(postgresMissing ?? "the test PostgreSQL has not started (use it inside a test)");
    return server;
  };
  return {
    available: !postgresMissing,
    /** Why the tests are skipped, for a `describe.skipIf` title. */
    missing: postgresMissing,
    get connectionString() {
      return need().connectionString;
    },
    database: () => need().database(),
  };
}
