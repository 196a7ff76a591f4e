import { definePlugin } from "../_kits/authoring/index";
import { getSessionsApi } from "../sessions/index";
import { getTodosApi } from "../todos/index";
import { sessionsPostgresOptions } from "./options";
import { PostgresSessionStore } from "./store";
import { PostgresTodoStore } from "./todos";

export { PostgresSessionStore, DEFAULT_OUTAGE_TIMEOUT_MS, type PostgresStoreOptions } from "./store";
export { PostgresAppender, APPEND_RECORD, APPEND_NOTE, appendRecordParams } from "./appender";
export { PostgresTodoStore } from "./todos";
export { MIGRATIONS, migrate, SchemaVersionError, type Migration } from "./migrations";
export {
  MissingDriverError,
  createPool,
  describeDatabase,
  isOutage,
  type PgPool,
  type PgClient,
  type PgResult,
  type DriverLoader,
} from "./driver";

/** The plugin's name. */
export const NAME = "ubiquity:sessions-postgres";

/** The Postgres session store plugin. */
export const sessionsPostgresPlugin = definePlugin({
  name: NAME,
  options: sessionsPostgresOptions,
  apply(kernel) {
    // One store (one pool) per database and kernel, ended with the kernel.
    const stores = new Map<string, PostgresSessionStore>();
    const storeOf = (options: Readonly<Record<string, unknown>>) => {
      // Raw options reach here too (`ubiquity sessions` reads a config): read through the slice's schema
      // (built only when a store is set: unset, there is nothing to read).
      if (options.sessionStore === undefined) return undefined;
      const read = sessionsPostgresOptions.shape.sessionStore.safeParse(options.sessionStore);
      const postgres = read.success ? read.data?.postgres : undefined;
      const connectionString = postgres?.connectionString;
      if (!connectionString) return undefined;
      const key = `${connectionString}\u0000${postgres.outageTimeoutMs ?? ""}`;
      let store = stores.get(key);
      if (!store)
        stores.set(
          key,
          (store = new PostgresSessionStore(connectionString, { outageTimeoutMs: postgres.outageTimeoutMs })),
        );
      return store;
    };
    getSessionsApi(kernel)?.useBackend(NAME, (options) => storeOf(options));
    getTodosApi(kernel)?.useStore(NAME, (run) => {
      const store = storeOf(run.options);
      return store && new PostgresTodoStore(store);
    });
    kernel.hooks.kernel.dispose.tapPromise(NAME, async () => {
      const all = [...stores.values()];
      stores.clear();
      await Promise.all(all.map((s) => s.close()));
    });
  },
});

export default sessionsPostgresPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
