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
export async function createPool(connectionString: string, config: Record<string, unknown> = {}, load: DriverLoader = () => import("pg")): Promise<PgPool> {
  let pg: { Pool: PoolConstructor };
  try {
    const loaded = await load();
    const module = loaded as { default?: { Pool: PoolConstructor }; Pool?: PoolConstructor };
    pg = (module.default ?? module) as { Pool: PoolConstructor };
  } catch (error) {
    if (isMissingModule(error, "pg")) {
      throw new MissingDriverError("sessionStore.postgres needs the PostgreSQL driver, which is not installed: npm i pg");
    }
    throw error;
  }
  return new pg.Pool({ connectionString, max: 4, idleTimeoutMillis: 10_000, allowExitOnIdle: true, ...config });
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
