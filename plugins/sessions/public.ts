/**
 * `ubiquity/plugins/sessions`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { SessionNotFoundError, SessionStore, StaleWriterError, getSessionsApi } from "./index";
export type {
  AtifOptions,
  ForkOptions,
  ForkedSession,
  ListOptions,
  PersistedMessage,
  SessionBackend,
  SessionInfo,
  SessionStoreOptions,
  SessionsApi,
  SessionsOptions,
  StoredSession,
  SystemSessionWriteFailedMessage,
  TranscriptNote,
  TranscriptRecord,
} from "./index";
