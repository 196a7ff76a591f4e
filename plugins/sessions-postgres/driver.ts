/**
 * The `pg` driver, imported only when a Postgres store is configured: it is an optional peer
 * dependency, so a program that never configures one never needs it installed.
 */
import type { Pool, PoolConfig } from "pg";
import { UbiquityError } from "../../src/index";

/** `pg` is not installed: the message names the fix. */
export class MissingDriverError extends UbiquityError {
  override name = "MissingDriverError";
}

/** How `pg` is loaded (a test passes one that fails). */
export type DriverLoader = () => Promise<{ default?: { Pool: typeof Pool }; Pool?: typeof Pool }>;

/** A pool for `connectionString` (idle clients do not keep the process alive). */
export async function createPool(connectionString: string, config: PoolConfig = {}, load: DriverLoader = () => import("pg")): Promise<Pool> {
  let pg: { Pool: typeof Pool };
  try {
    const loaded = await load();
    pg = (loaded.default ?? loaded) as { Pool: typeof Pool };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
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
