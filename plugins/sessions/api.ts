/**
 * `getSessionsApi(kernel)`: how another plugin puts its own store behind the sessions plugin
 * (`ubiquity:sessions-postgres` does) or answers loads of sessions no store holds (`useLoader`),
 * finds the store a run or command uses, and waits for a session's records to be stored (a
 * worker checkpoints with it).
 */
import type { ModelMessage } from "ai";
import type { Kernel, ResolvedOptions, RunContext } from "../../src/index";
import { storageRoot } from "../_kits/storage/index";
import type { SessionBackend } from "./backend";
import { SessionStore } from "./store";

/** Picks the store for some options (the run's, or a command's config); undefined leaves it to the next. */
export type BackendFactory = (
  options: ResolvedOptions | Readonly<Record<string, unknown>>,
  cwd: string,
) => SessionBackend | undefined;

/** What a load asks for: a session id (`resume`), or the latest session of a folder (`continueConversation`). */
export interface SessionLoadRequest {
  sessionId?: string;
  latest: boolean;
  cwd: string;
  /** With `forkSession`: the run gets a new id and the stored session stays untouched. */
  fork: boolean;
}

/** A stored session, replayed as conversation. */
export interface LoadedSession {
  sessionId: string;
  history: ModelMessage[];
  /** The model the session last answered with (`provider:model`): a resumed run that names no model runs on it. */
  model?: string;
}

/** Answers a load when it knows the session; undefined leaves it to the next loader. */
export type SessionLoader = (request: SessionLoadRequest, run: RunContext) => Promise<LoadedSession | undefined>;

/** The sessions plugin's extension points on one kernel. */
export interface SessionsApi {
  /**
   * Answer loads after the plugin's own store (which answers first), in registration order: what
   * `kernel.hooks.session.load` taps did before 0.2 (call it inside your plugin's `apply`).
   */
  useLoader(name: string, loader: SessionLoader): void;
  /** Load the session `request` names: the store, then each loader, until one knows it. */
  load(request: SessionLoadRequest, run: RunContext): Promise<LoadedSession | undefined>;
  /** Put a store in front of the JSONL files: the latest registered factory that answers wins. */
  useBackend(name: string, factory: BackendFactory): void;
  /** The store these options point at (the JSONL files under `sessionDir` unless a factory answers). */
  backendFor(options: ResolvedOptions | Readonly<Record<string, unknown>>, cwd: string): SessionBackend;
  /** Wait until every record written so far of a session this kernel is writing is stored; rejects with the `StaleWriterError` when the store refused it. */
  flush(sessionId: string): Promise<void>;
  /** Where `run`'s session is written (hooks get it as `transcript_path`), or undefined when the run keeps none. */
  transcriptPath(run: RunContext): string | undefined;
}

const apis = new WeakMap<Kernel, SessionsApi>();

/** The sessions API of a kernel, or undefined when the `ubiquity:sessions` plugin is not in it. */
export function getSessionsApi(kernel: Kernel): SessionsApi | undefined {
  return apis.get(kernel);
}

/** The JSONL store of some options: `sessionDir`, else ~/.ubiquity/sessions. */
export function jsonlBackendFor(options: Readonly<Record<string, unknown>>, cwd: string): SessionStore {
  const { sessionDir } = options; // a string or unset where the sessions slice validated it
  return new SessionStore({
    dir: storageRoot(typeof sessionDir === "string" ? sessionDir : undefined, cwd, "sessions"),
  });
}

/** Create and register the API of a kernel (the sessions plugin does this in `apply`). */
export function createSessionsApi(
  kernel: Kernel,
  flush: (sessionId: string) => Promise<void>,
  transcriptPath: (run: RunContext) => string | undefined = () => undefined,
  own?: SessionLoader,
): SessionsApi {
  const factories: { name: string; factory: BackendFactory }[] = [];
  const loaders: { name: string; loader: SessionLoader }[] = own ? [{ name: "ubiquity:sessions", loader: own }] : [];
  const api: SessionsApi = {
    useLoader(name, loader) {
      loaders.push({ name, loader });
    },
    async load(request, run) {
      for (const { loader } of loaders) {
        const loaded = await loader(request, run);
        if (loaded) return loaded;
      }
      return undefined;
    },
    useBackend(name, factory) {
      factories.push({ name, factory });
    },
    backendFor(options, cwd) {
      for (let i = factories.length - 1; i >= 0; i--) {
        const backend = factories[i]!.factory(options, cwd);
        if (backend) return backend;
      }
      return jsonlBackendFor(options, cwd);
    },
    flush,
    transcriptPath,
  };
  apis.set(kernel, api);
  return api;
}
