/**
 * The events of files changing on disk during a session, as Claude Code fires them:
 * - FileChanged, for the file names its matchers list (each `|`-separated part a file of the
 *   working folder, or an absolute path) and the absolute paths SessionStart and FileChanged hooks
 *   answer with `watchPaths` (each answer replaces the list the last one gave). Its input has
 *   `file_path` and `event` (`add`, `change`, `unlink`); its matcher is matched against the file's
 *   name. It has no decision control: a block (exit 2) is shown to the user only, and a hook may
 *   write CLAUDE_ENV_FILE lines for the session's later Bash commands, as at SessionStart.
 * - ConfigChange, for the settings files of the session's sources (read, or created during it): `source` (`user_settings`,
 *   `project_settings`, `local_settings`, what its matcher is matched against) and `file_path`.
 *   Settings are read once when a run starts, so a change never applies to the running session:
 *   a block (exit 2, `decision: "block"`) is reported with its reason and has nothing more to stop.
 * Only a session's main conversation watches; everything stops when the session ends.
 */
import { isAbsolute, join } from "node:path";
import type { RunContext } from "../../src/index";
import { MAX_SESSION_SCRIPT_BYTES, readEnvFiles, sessionScriptOf, setSessionScript } from "../_kits/process/index";
import { getSandboxApi } from "../sandbox/api";
import { getSettingsApi } from "../settings/api";
import { SessionEnvFiles } from "./env-file";
import { type FileEvent, FileWatch } from "./file-watch";
import { type KernelHooks, NAME } from "./kernel-hooks";

/** What one session watches, and the hooks its changes started (run one at a time, in order). */
export interface SessionWatch {
  files?: FileWatch;
  /** FileChanged's matcher paths (always watched) and the last `watchPaths` answer. */
  fixed: string[];
  dynamic: string[];
  settings?: FileWatch;
  queue: Promise<void>;
  /** Changes waiting in the queue, by event and path: a file that changes again before its turn waits once. */
  waiting: Map<string, FileEvent>;
  /** The session ended: changes still waiting are dropped. */
  closed?: boolean;
}

/** Start watching for `run` (its SessionStart hooks answered `watchPaths`, if any). */
export function startWatching(hooks: KernelHooks, run: RunContext, watchPaths: readonly string[] | undefined): void {
  if (run.agent) return;
  const watching: SessionWatch = { fixed: [], dynamic: [], queue: Promise.resolve(), waiting: new Map() };
  const warn = (event: string) => (message: string) => run.logger.warn(`[${NAME}] ${event}: ${message}`);
  if (hooks.has("FileChanged", run)) {
    watching.fixed = matcherPaths(hooks, run);
    watching.dynamic = [...(watchPaths ?? [])];
    watching.files = new FileWatch(
      (path, event) => later(watching, `file:${path}`, event, (e) => fireFileChanged(hooks, run, watching, path, e)),
      warn("FileChanged"),
    );
    watching.files.set([...watching.fixed, ...watching.dynamic]);
  }
  if (hooks.has("ConfigChange", run)) {
    // Every file the enabled sources name: one created during the session is a change too.
    const places = getSettingsApi(hooks.kernel).places;
    watching.settings = new FileWatch(
      (path, event) => {
        const source = places.find((p) => p.path === path)?.source;
        if (source)
          later(watching, `config:${path}`, event, () => fireConfigChange(hooks, run, path, `${source}_settings`));
      },
      // A source's folder that does not exist (no ~/.claude) is no one's mistake: said at debug.
      (message) => run.logger.debug(`[${NAME}] ConfigChange: ${message}`),
    );
    watching.settings.set([...new Set(places.map((p) => p.path))]);
  }
  if (watching.files || watching.settings) hooks.stateOf(run).watch = watching;
}

/** The session ends: nothing is watched any more, the hooks under way are waited for, changes still waiting dropped. */
export async function stopWatching(hooks: KernelHooks, run: RunContext): Promise<void> {
  const watching = hooks.stateOf(run).watch;
  if (!watching) return;
  watching.closed = true;
  watching.files?.close();
  watching.settings?.close();
  await watching.queue;
}

/**
 * Run `fire` after the hooks already started (one change at a time, in the order they came). A
 * file that changes again while its change still waits is not queued twice: the waiting one
 * reports what happened last, so a file rewritten faster than its hooks run cannot grow the
 * queue without end.
 */
export function later(
  watching: SessionWatch,
  key: string,
  event: FileEvent,
  fire: (event: FileEvent) => Promise<void>,
): void {
  const queued = watching.waiting.has(key);
  watching.waiting.set(key, event);
  if (queued) return;
  watching.queue = watching.queue
    .then(() => {
      const last = watching.waiting.get(key) ?? event;
      watching.waiting.delete(key);
      return watching.closed ? undefined : fire(last);
    })
    .catch(() => {});
}

/**
 * A SessionStart (a compaction's too, fired by another plugin through the API) or FileChanged
 * answer's `watchPaths` replaces the list the last one gave; none (or an empty list) keeps it.
 */
export function applyWatchPaths(hooks: KernelHooks, run: RunContext, paths: readonly string[] | undefined): void {
  const watching = hooks.stateOf(run).watch;
  if (watching) watchAlso(watching, paths);
}

function watchAlso(watching: SessionWatch, paths: readonly string[] | undefined): void {
  if (!paths?.length || !watching.files) return;
  watching.dynamic = [...paths];
  watching.files.set([...new Set([...watching.fixed, ...watching.dynamic])]);
}

/** FileChanged's matchers, each `|`-separated part a file: absolute, or in the working folder. */
function matcherPaths(hooks: KernelHooks, run: RunContext): string[] {
  const paths: string[] = [];
  for (const group of hooks.configFor(run)?.FileChanged ?? []) {
    if (!group.matcher) continue;
    for (const part of group.matcher.split("|").map((p) => p.trim()))
      if (part) paths.push(isAbsolute(part) ? part : join(run.cwd, part));
  }
  return [...new Set(paths)];
}

async function fireFileChanged(
  hooks: KernelHooks,
  run: RunContext,
  watching: SessionWatch,
  filePath: string,
  event: FileEvent,
): Promise<void> {
  const files = new SessionEnvFiles(getSandboxApi(hooks.kernel), "filechanged");
  try {
    const outcome = await hooks.fire(
      "FileChanged",
      run,
      { extra: { filePath, event } },
      { envFile: (contained) => files.next(contained) },
    );
    // No decision control: what a blocking hook said is for the user only.
    if (outcome.blocked) run.logger.warn(`FileChanged hook (${filePath}): ${outcome.blocked}`);
    addToSessionScript(
      run,
      readEnvFiles(files.hostPaths, (problem) => run.logger.warn(`FileChanged hook's CLAUDE_ENV_FILE: ${problem}`)),
    );
    watchAlso(watching, outcome.watchPaths);
  } finally {
    files.remove();
  }
}

async function fireConfigChange(hooks: KernelHooks, run: RunContext, filePath: string, source: string): Promise<void> {
  const outcome = await hooks.fire("ConfigChange", run, { extra: { source, filePath } });
  if (outcome.blocked)
    run.logger.warn(
      `ConfigChange hook blocked the change to ${filePath}: ${outcome.blocked} (settings are read once when a run starts, so it does not apply to this session either way)`,
    );
}

/** What a FileChanged hook wrote to CLAUDE_ENV_FILE runs after the session's script so far (later exports win). */
function addToSessionScript(run: RunContext, text: string): void {
  if (!text.trim()) return;
  const before = sessionScriptOf(run);
  const script = before ? `${before}\n${text}` : text;
  if (Buffer.byteLength(script) > MAX_SESSION_SCRIPT_BYTES) {
    run.logger.warn(
      `FileChanged hook's CLAUDE_ENV_FILE would take the session's environment script past ${MAX_SESSION_SCRIPT_BYTES} bytes; ignored`,
    );
    return;
  }
  setSessionScript(run, script);
}
