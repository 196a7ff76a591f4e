/** The session store the fleet bench runs on: a throw-away PostgreSQL when installed, else JSONL files. */
import { join } from "node:path";
import { postgresMissing, startPostgres } from "../../test/helpers/postgres";

/** A store for one bench round. */
export interface BenchStore {
  kind: string;
  url: string;
  stop(): Promise<void>;
}

export async function benchStore(dir: string): Promise<BenchStore> {
  if (postgresMissing) return { kind: `jsonl (${postgresMissing})`, url: join(dir, "sessions"), stop: async () => {} };
  const server = await startPostgres();
  return {
    kind: "postgres (ubiquity:sessions-postgres, throw-away server, fsync off)",
    url: await server.database(),
    stop: () => server.stop(),
  };
}
