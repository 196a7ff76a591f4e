/**
 * The `pg` driver, imported only when a Postgres store is configured: it is an optional peer
 * dependency, so a program that never configures one never needs it installed.
 */
import { UbiquityError } from "../../src/index";
import { isMissingModule } from "../_kits/lazy/index";

/** What a query resolves to (the part of pg's QueryResult the store reads). */
export interface PgResult<R> {
  rows: R[];
  rowCount: number | null;
}

/** A connection taken from the pool. */
export interface PgClient {
  query<R extends object = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<PgResult<R>>;
  release(): void;
  /** A checked-out client's connection error comes here (the pool listens only while it is idle). */
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * The part of a `pg` Pool the store uses. Declared here so that the package's type declarations
 * do not need `pg`'s types (`@types/pg`) in a program that never configures the store.
 */
export interface PgPool {
  query<R extends object = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<PgResult<R>>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

type PoolConstructor = new (config: Record<string, unknown>) => PgPool;

/** `pg` is not installed: the message names the fix. */
export class MissingDriverError extends UbiquityError {
  override name = "MissingDriverError";
}

/** How `pg` is loaded (a test passes one that fails). */
export type DriverLoader = () => Promise<unknown>;

/** A pool for `connectionString` (idle clients do not keep the process alive). */
export async function createPool(
  connectionString: string,
  config: Record<string, unknown> = {},
  load: DriverLoader = () => import("pg"),
): Promise<PgPool> {
  let pg: { Pool: PoolConstructor };
  try {
    const loaded = await load();
    const module = loaded as { default?: { Pool: PoolConstructor }; Pool?: PoolConstructor };
    pg = (module.default ?? module) as { Pool: PoolConstructor };
  } catch (error) {
    if (isMissingModule(error, "pg")) {
      throw new MissingDriverError(
        "sessionStore.postgres needs the PostgreSQL driver, which is not installed: npm i pg",
      );
    }
    throw error;
  }
  return new pg.Pool({ connectionString, max: 4, idleTimeoutMillis: 10_000, allowExitOnIdle: true, ...config });
}

// Errors of a database that cannot be reached for now (a restart, a failover, a dropped
// connection): pg's connection errors, and the server's shutdown and start-up refusals.
const OUTAGE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

/** True when `error` (or its cause) says the database is unreachable for now, not that a statement is wrong. */
export function isOutage(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0;
    e && depth < 6;
    depth++
  ) {
    if (typeof e.code === "string" && OUTAGE_CODES.has(e.code)) return true;
    if (
      typeof e.message === "string" &&
      /Connection terminated|terminating connection|the database system is (starting up|shutting down)|Client has encountered a connection error/i.test(
        e.message,
      )
    )
      return true;
    // An AggregateError (a host with several addresses) holds the connection errors.
    if (Array.isArray(e.errors) && e.errors.some(isOutage)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** The connection string without its password, for messages. */
export function describeDatabase(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "the configured PostgreSQL database";
  }
}
