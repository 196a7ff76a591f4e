/**
 * `ubiquity:checkpoints`: before each turn's first writing tool call (Write, Edit, Bash, a writing
 * MCP tool: any tool whose `isReadOnly` is false for the call), snapshot the run's permitted
 * folders into a shadow git store outside the workspace, tied to the turn's assistant message
 * and noted in the session transcript; `rewindFiles` and `ubiquity rewind` restore them. Bash's
 * writes are caught like the file tools': the snapshot is of the folders, not of a tool's input.
 * Off unless `checkpoints` is set (the runner's terminal mode sets it). A run's first snapshot
 * also prunes the store of checkpoints older than `keepDays`, in the background.
 */
import { existsSync } from "node:fs";
import type { Kernel, PluginContext, RunContext } from "../../src/index";
import { definePlugin, readOption } from "../_kits/authoring/index";
import { sessionsOptions } from "../sessions/index";
import { todosOptions } from "../todos/index";
import { isInside, resolveReal } from "../_kits/paths/index";
import type { ToolCall } from "../../src/index";
import { warn } from "../_kits/sources/index";
import { storageRoot } from "../_kits/storage/index";
import { checkpointSettings, checkpointsOptions } from "./options";
import { holdRunLock, releaseRunLock } from "./lock";
import { storeDirFor } from "./place";
import { lazyImport } from "../_kits/lazy/index";
import { rewindCommand } from "./command";
import type { CheckpointNote } from "./api";

export {
  listCheckpoints,
  rewindFiles,
  rewindConversation,
  CheckpointNotFoundError,
  ActiveRunError,
} from "./rewind-api";
export type {
  CheckpointInfo,
  CheckpointQuery,
  RewindOptions,
  RewindResult,
  FileChange,
  FileAction,
  RefusedChange,
  NotCovered,
  NotCoveredReason,
} from "./api";

/** The plugin's name. */
export const NAME = "ubiquity:checkpoints";

// The shadow store (git, its objects, retention) loads with a run's first snapshot: a run that
// writes nothing never loads it (issue 40).
const storeCode = lazyImport(() => import("./store"));

// The snapshot is taken at `tool.allowed`: once the verdict is final (rules, modes, the person's
// answer), before the tool runs, so a denied call takes none.

interface RunState {
  lock?: string;
  /** Set when a folder proved too large: this run takes no more snapshots. */
  off?: boolean;
  /** Snapshots of this run, by the assistant message they are tied to (pending or done). */
  taken: Map<string, Promise<void>>;
  /** The prune this run's first snapshot started (it never rejects); the run's end waits for it. */
  pruning?: Promise<void>;
}

interface KernelState {
  /** `<session>\0<agent>\0<toolUseId>` → the uuid of the assistant message that made the call. */
  anchors: Map<string, string>;
  /** Session id → the uuid of the user message that started its current run. */
  prompts: Map<string, string>;
  /** Set once git was found missing (said once, not at every turn). */
  noGit?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const key = (sessionId: string, agentId: string | undefined, toolUseId: string) =>
  `${sessionId}\0${agentId ?? ""}\0${toolUseId}`;

/** The permitted folders that exist, real paths, none inside another. */
function foldersOf(run: RunContext): string[] {
  const real = [...new Set(run.roots.map((r) => resolveReal(r) ?? r))].filter((r) => existsSync(r));
  return real.filter((r) => !real.some((o) => o !== r && isInside(o, r)));
}

/** Ubiquity's own stores (checkpoints, sessions, todos): never snapshotted, even inside a permitted folder. */
function storesOf(run: RunContext, dir: string | undefined): string[] {
  return [
    storageRoot(dir, run.cwd, "checkpoints"),
    storageRoot(readOption(sessionsOptions, run.options, "sessionDir"), run.cwd, "sessions"),
    storageRoot(readOption(todosOptions, run.options, "todoDir"), run.cwd, "todos"),
  ].map((p) => resolveReal(p) ?? p);
}

/**
 * The run whose folders a call's checkpoint covers, the assistant message it is tied to, and the
 * main run (whose store keeps it): a subagent's call counts for the parent's turn that started
 * it — except a subagent working in a folder of its own (a worktree), whose checkpoints cover
 * that folder and are tied to its own turns.
 */
function anchorOf(state: KernelState, call: ToolCall): { top: RunContext; main: RunContext; uuid?: string } {
  let run = call.run;
  let id = call.toolUseId;
  while (run.agent && run.parent && run.cwd === run.parent.cwd) {
    id = run.agent.parentToolUseId;
    run = run.parent;
  }
  let main = run;
  while (main.parent) main = main.parent;
  return { top: run, main, uuid: state.anchors.get(key(run.sessionId, run.agent?.agentId, id)) };
}

/** Snapshot `top`'s folders before the tool call of message `uuid` writes, note it in the session, start retention once. */
async function snapshot(
  kernel: Kernel,
  context: PluginContext<KernelState, RunState>,
  { top, main, uuid }: { top: RunContext; main: RunContext; uuid: string },
  settings: NonNullable<ReturnType<typeof checkpointSettings>>,
): Promise<void> {
  // The main run's store, which its session's rewind reads (also for a worktree's folders).
  const { ShadowStore, TooManyFilesError } = await storeCode();
  const store = new ShadowStore(storeDirFor(main.cwd, settings.dir));
  const promptUuid = context.state.prompts.get(top.sessionId);
  const checkpoint = await store
    .snapshot(
      foldersOf(top),
      { maxBytes: settings.maxBytes, exclude: storesOf(main, settings.dir) },
      {
        sessionId: top.sessionId,
        messageUuid: uuid,
        ...(promptUuid ? { promptUuid } : {}),
        createdAt: new Date().toISOString(),
      },
    )
    .catch((error: unknown) => {
      // A folder too large: this run takes no more snapshots.
      if (error instanceof TooManyFilesError) context.run(top).off = true;
      throw error;
    });
  const note: CheckpointNote = {
    messageUuid: uuid,
    ...(promptUuid ? { promptUuid } : {}),
    commit: checkpoint.commit,
    store: checkpoint.store,
  };
  kernel.emit({ type: "sessions.note", sessionId: top.sessionId, kind: "checkpoint", data: { ...note } });
  // Retention, once per run, at its first snapshot (a run that writes nothing costs nothing):
  // not awaited, so this tool call goes on; a later snapshot of this store waits its turn.
  const state = context.run(top);
  if (!state.pruning) {
    const keepDays = settings.keepDays;
    state.pruning = store.prune({ before: Date.now() - keepDays * DAY_MS, keepSessions: [top.sessionId] }).then(
      () => undefined,
      (error: unknown) =>
        warn(
          kernel,
          NAME,
          `could not prune checkpoints older than ${keepDays} days from ${store.dir} (${(error as Error).message}); the run goes on and a later run tries again. If it keeps failing, delete ${store.dir} (every checkpoint of the project goes with it)`,
        ),
    );
  }
}

/** The checkpoints plugin. */
export const checkpointsPlugin = definePlugin({
  name: NAME,
  options: checkpointsOptions,
  state: (): KernelState => ({ anchors: new Map(), prompts: new Map() }),
  runState: (): RunState => ({ taken: new Map() }),
  commands: { rewind: rewindCommand },
  apply(kernel, context) {
    const settingsOf = (run: RunContext) => checkpointSettings(context.optionsOf(run).checkpoints);

    kernel.hooks.event.tap(NAME, (event) => {
      if (event.type !== "message") return;
      const m = event.message;
      const state = context.state;
      if (m.type === "user" && m.agentId === undefined) state.prompts.set(m.sessionId, m.uuid);
      if (m.type !== "assistant") return;
      for (const block of m.content)
        if (block.type === "tool_call") state.anchors.set(key(m.sessionId, m.agentId, block.toolUseId), m.uuid);
    });

    kernel.hooks.session.start.tap(NAME, (run) => {
      const settings = run.agent ? undefined : settingsOf(run);
      if (!settings) return;
      try {
        context.run(run).lock = holdRunLock(storeDirFor(run.cwd, settings.dir), run.sessionId);
      } catch (error) {
        warn(
          kernel,
          NAME,
          `cannot mark the run active in the checkpoint store (${(error as Error).message}); a rewind elsewhere will not see it running`,
        );
      }
    });

    kernel.hooks.session.end.tapPromise(NAME, async (run) => {
      const state = context.run(run);
      // The prune finishes before the lock goes: until then its session counts as active, and a
      // rewind in another process (refused while the lock is held) does not start under it.
      // (A worktree agent's first snapshot starts a prune too: its run waits for it as well.)
      await state.pruning;
      if (state.lock) releaseRunLock(state.lock);
      // Anchors of this session's finished calls are not needed any more.
      const prefix = `${run.sessionId}\0`;
      if (run.agent) return;
      for (const k of context.state.anchors.keys()) if (k.startsWith(prefix)) context.state.anchors.delete(k);
      context.state.prompts.delete(run.sessionId);
    });

    kernel.hooks.tool.allowed.tapPromise(NAME, async (_verdict, call) => {
      const settings = settingsOf(call.run);
      if (!settings) return;
      let readOnly = false;
      try {
        readOnly = call.tool.isReadOnly(call.input) === true;
      } catch {
        // a tool that cannot say is treated as writing
      }
      if (readOnly) return;
      const { top, main, uuid } = anchorOf(context.state, call);
      if (!uuid || context.run(top).off) return;
      const taken = context.run(top).taken;
      let pending = taken.get(uuid);
      if (!pending) {
        pending = snapshot(kernel, context, { top, main, uuid }, settings).catch((error: unknown) => {
          // A failed snapshot must not stop the agent: say so (once, when git is missing), and the call goes on without one.
          const message = (error as Error).message;
          if (/need git on PATH/.test(message)) {
            if (context.state.noGit) return;
            context.state.noGit = true;
          }
          warn(kernel, NAME, `no checkpoint before ${call.toolName} (${call.toolUseId}): ${message}`);
        });
        taken.set(uuid, pending);
      }
      await pending;
    });
  },
});

export default checkpointsPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
export { chatRewind, type ChatRewindContext } from "./chat";
