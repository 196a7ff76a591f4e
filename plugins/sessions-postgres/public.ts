/**
 * `ubiquity/plugins/sessions-postgres`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { MissingDriverError, PostgresSessionStore, SchemaVersionError } from "./index";
export type { PostgresStoreOptions, SessionsPostgresOptions } from "./index";
