/**
 * The queue's engine: BullMQ on Redis (`redis://…`), or on BullMQ's own Postgres backend
 * (`postgres://…`), so one PostgreSQL can serve both the queue and the session store. bullmq is an
 * optional peer: it loads only when a fleet command or `createFleet()` runs.
 */
import { UbiquityError, redactText, urlPasswords } from "../../src/index";
import { importOptional } from "../_kits/lazy/index";

type BullMQ = typeof import("bullmq");

/** Load bullmq, or say how to install it. */
export function loadBullmq(): Promise<BullMQ> {
  return importOptional(() => import("bullmq"), "bullmq", "the fleet", "npm i bullmq ioredis");
}

/** True for a Postgres URL (the queue then runs on BullMQ's Postgres backend). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The BullMQ connection options and backend factory for a queue URL. */
// biome-ignore lint/suspicious/noExplicitAny: BullMQ ties the connection options' type to the backend factory's generic (Redis options without one, Postgres options with createPostgresBackend); one return for both backends cannot name that pairing, and the callers pass the two on together
export async function queueConnection(url: string): Promise<{ bullmq: BullMQ; connection: any; backend?: any }> {
  const bullmq = await loadBullmq();
  // BullMQ keeps its tables in their own schema (`bullmq`), created on first connect.
  if (isPostgresUrl(url))
    return { bullmq, connection: { connectionString: url, migrate: true }, backend: bullmq.createPostgresBackend };
  if (!/^rediss?:\/\//i.test(url)) {
    // The URL may carry a password: never in the error.
    throw new UbiquityError(
      `the fleet's queue URL must start with redis://, rediss:// or postgres:// (got ${JSON.stringify(redactText(url, urlPasswords(url)))})`,
    );
  }
  const u = new URL(url);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  return {
    bullmq,
    connection: {
      host: u.hostname,
      port: u.port ? Number(u.port) : 6379,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
      ...(u.protocol === "rediss:" ? { tls: {} } : {}),
      // BullMQ's workers block on Redis: they must not give up on a slow command.
      maxRetriesPerRequest: null,
    },
  };
}

/** The default queue name. */
export const DEFAULT_QUEUE = "ubiquity-fleet";
