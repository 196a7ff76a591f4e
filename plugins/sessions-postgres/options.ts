/** The option the Postgres session store reads: where the database is. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The sessions-postgres plugin's slice of the config schema. */
export const sessionsPostgresOptions = lazyOptions(["sessionStore"], () => ({
  sessionStore: z
    .strictObject({
      postgres: z
        .strictObject({
          connectionString: z
            .string()
            .min(1)
            .describe(
              "postgresql://user:password@host:5432/database (node-postgres syntax); the tables are created on first use",
            ),
          outageTimeoutMs: z
            .number()
            .nonnegative()
            .optional()
            .describe(
              "How long reads and appends retry, with backoff, while the database cannot be reached (a restart, a failover) before the run fails [30000]",
            ),
        })
        .describe("Keep sessions and todo lists in PostgreSQL (needs the pg package: npm i pg)"),
    })
    .optional()
    .describe("Where sessions are kept [JSONL files under sessionDir]"),
}));
export type SessionsPostgresOptions = z.input<typeof sessionsPostgresOptions>;
export type SessionsPostgresResolvedOptions = ResolvedOptions & Readonly<SessionsPostgresOptions>;
