/**
 * The background tasks of a run: shells started with `Bash run_in_background` and subagents
 * started with `Agent run_in_background`. One registry per run (a subagent's run has its own),
 * created by the `ubiquity:background` plugin when the run starts; a tool that starts a task
 * asks {@link tasksOf} and refuses when there is none (the plugin is not in the list).
 *
 * The registry counts and caps tasks, lists them, stops them (one, or all when the session
 * ends), and tells its listeners about every start, output and end. What a task *is* — a process,
 * a run — stays with the plugin that started it, behind {@link TaskBody}.
 */
import type { RunContext } from "../../../src/index";

/** What kind of work a task is. */
export type TaskKind = "shell" | "agent";

/** Where a task is: running, or how it ended. */
export type TaskState = "running" | "completed" | "failed" | "killed";

/** A task as the model, the SDK and the terminal see it. */
export interface TaskInfo {
  /** Short and unique in the run: `shell-1`, `agent-2`. */
  id: string;
  kind: TaskKind;
  /** The command, or the agent's name and description. */
  description: string;
  state: TaskState;
  startedAt: string;
  endedAt?: string;
  /** How it ended, in a few words ("exit code 0", "stopped by KillShell", "stopped when the session ended"). */
  outcome?: string;
  /** A shell's exit code once it ended (null: killed by a signal). */
  exitCode?: number | null;
  /** The agent's name, for an agent. */
  name?: string;
}

/** The work behind a task, supplied by the plugin that starts it. */
export interface TaskBody {
  /** End the task (kill the process tree, abort the run); resolves once it has ended. */
  stop(reason: string): Promise<void>;
}

/** What the registry tells its listeners. */
export type TaskEvent =
  | { type: "started"; task: TaskInfo }
  | { type: "output"; task: TaskInfo; text: string }
  | { type: "ended"; task: TaskInfo };

/** Caps on a run's tasks, and the limits of each background shell. */
export interface TaskLimits {
  /** Shells running at once [10]. */
  maxShells: number;
  /** Agents running at once [4]. */
  maxAgents: number;
  /** Tasks started in the whole session, of both kinds [100]. */
  maxTotal: number;
  /** Output a background shell keeps for reading: its newest characters [1,000,000]. */
  shellOutputChars: number;
  /** Longest a background shell runs [7,200,000: 2 h]. */
  shellMaxDurationMs: number;
  /** Longest a background shell may write nothing before it is stopped [none]. */
  shellIdleTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when a task is stopped [2000]. */
  stopGraceMs: number;
  /** A foreground Bash call past its timeout moves to the background instead of being killed [false]. */
  backgroundOnTimeout: boolean;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = {
  maxShells: 10,
  maxAgents: 4,
  maxTotal: 100,
  shellOutputChars: 1_000_000,
  shellMaxDurationMs: 7_200_000,
  stopGraceMs: 2000,
  backgroundOnTimeout: false,
};

/** A task refused because a cap is reached; the message names the cap and what to do. */
export class TaskLimitError extends Error {
  override name = "TaskLimitError";
}

interface Entry {
  info: TaskInfo;
  body?: TaskBody;
  /** The model has been told how it ended. */
  reported: boolean;
  ended: Promise<void>;
  resolveEnded: () => void;
}

/** The background tasks of one run. */
export class TaskRegistry {
  readonly limits: TaskLimits;
  #tasks = new Map<string, Entry>();
  #listeners = new Set<(event: TaskEvent) => void>();
  #counts: Record<TaskKind, number> = { shell: 0, agent: 0 };
  #closed = false;
  /** The session's top registry: a subagent's registry counts against its caps and takes ids from it. */
  readonly #root: TaskRegistry;
  /** At the root: every registry of the session (its subagents' too). */
  readonly #family = new Set<TaskRegistry>();

  /** `parent`: the registry of the run that started this one (a subagent's parent), whose caps it shares. */
  constructor(limits: Partial<TaskLimits> = {}, parent?: TaskRegistry) {
    this.limits = { ...DEFAULT_TASK_LIMITS, ...limits };
    this.#root = parent ? parent.#root : this;
    this.#root.#family.add(this);
  }

  /**
   * Start a task: checks the caps, gives it an id, and calls `start(id)` for its body (a throw
   * there removes the task again and is rethrown). The body reports output and its end through
   * {@link output} and {@link end}.
   */
  start(
    kind: TaskKind,
    description: string,
    start: (id: string) => TaskBody,
    extra: Pick<TaskInfo, "name"> = {},
  ): TaskInfo {
    if (this.#closed) throw new TaskLimitError("the session is ending: no new background task can start");
    // The caps are the session's: what its subagents run counts too (a subagent gets no fresh cap).
    const root = this.#root;
    const family = [...root.#family];
    const running = family.flatMap((r) => r.list()).filter((t) => t.kind === kind && t.state === "running").length;
    const cap =
      kind === "shell"
        ? Math.min(this.limits.maxShells, root.limits.maxShells)
        : Math.min(this.limits.maxAgents, root.limits.maxAgents);
    if (running >= cap) {
      const stop = kind === "shell" ? "stop one with KillShell" : "wait for one to finish, or stop one";
      throw new TaskLimitError(
        `${running} background ${kind === "shell" ? "shells are" : "agents are"} already running, the most a session may have at once (${kind === "shell" ? "maxShells" : "maxAgents"}: ${cap}): ${stop} first.`,
      );
    }
    const started = family.reduce((sum, r) => sum + r.#tasks.size, 0);
    const maxTotal = Math.min(this.limits.maxTotal, root.limits.maxTotal);
    if (started >= maxTotal) {
      throw new TaskLimitError(
        `this session has started ${started} background tasks, the most it may (maxTotal: ${maxTotal}).`,
      );
    }
    // Ids are unique in the session (the stream carries a subagent's tasks too).
    const id = `${kind}-${++root.#counts[kind]}`;
    let resolveEnded!: () => void;
    const ended = new Promise<void>((r) => (resolveEnded = r));
    const entry: Entry = {
      info: { id, kind, description, state: "running", startedAt: new Date().toISOString(), ...extra },
      reported: false,
      ended,
      resolveEnded,
    };
    this.#tasks.set(id, entry);
    try {
      entry.body = start(id);
    } catch (error) {
      this.#tasks.delete(id);
      root.#counts[kind]--;
      throw error;
    }
    this.#tell({ type: "started", task: { ...entry.info } });
    return { ...entry.info };
  }

  /** Output of a running task (for listeners: events, the terminal). */
  output(id: string, text: string): void {
    const entry = this.#tasks.get(id);
    if (entry && text) this.#tell({ type: "output", task: { ...entry.info }, text });
  }

  /** A task ended (its body calls this once; later calls are ignored). */
  end(id: string, state: Exclude<TaskState, "running">, outcome: string, exitCode?: number | null): void {
    const entry = this.#tasks.get(id);
    if (entry?.info.state !== "running") return;
    entry.info = {
      ...entry.info,
      state,
      outcome,
      endedAt: new Date().toISOString(),
      ...(exitCode !== undefined ? { exitCode } : {}),
    };
    entry.resolveEnded();
    this.#tell({ type: "ended", task: { ...entry.info } });
  }

  /** The body behind a task (its starter's type: a shell's can be read), or undefined. */
  body<B extends TaskBody = TaskBody>(id: string): B | undefined {
    return this.#tasks.get(id)?.body as B | undefined;
  }

  /** One task, or undefined. */
  get(id: string): TaskInfo | undefined {
    const entry = this.#tasks.get(id);
    return entry && { ...entry.info };
  }

  /** Every task of the session, oldest first. */
  list(): TaskInfo[] {
    return [...this.#tasks.values()].map((e) => ({ ...e.info }));
  }

  /** Resolves when the task has ended (at once for an unknown or ended one). */
  async ended(id: string): Promise<void> {
    await this.#tasks.get(id)?.ended;
  }

  /** Stop a running task (`reason` reads after "stopped": "by KillShell"); false when there is no such running task. */
  async stop(id: string, reason: string): Promise<boolean> {
    const entry = this.#tasks.get(id);
    if (entry?.info.state !== "running") return false;
    await entry.body?.stop(reason);
    // A body that did not say how it ended is recorded as killed.
    this.end(id, "killed", `stopped ${reason}`);
    return true;
  }

  /** Stop every running task (the session ends); no task may start afterwards. */
  async close(reason: string): Promise<void> {
    this.#closed = true;
    await Promise.all(
      this.list()
        .filter((t) => t.state === "running")
        .map((t) => this.stop(t.id, reason)),
    );
  }

  /** The model has learned how this task ended (a KillShell or BashOutput answer said so). */
  markReported(id: string): void {
    const entry = this.#tasks.get(id);
    if (entry && entry.info.state !== "running") entry.reported = true;
  }

  /** Tasks that ended and were not reported yet, leaving them unreported. */
  unreported(): TaskInfo[] {
    return [...this.#tasks.values()]
      .filter((e) => e.info.state !== "running" && !e.reported)
      .map((e) => ({ ...e.info }));
  }

  /** Tasks that ended and were not reported yet; marks them reported. */
  takeUnreported(): TaskInfo[] {
    const out: TaskInfo[] = [];
    for (const entry of this.#tasks.values()) {
      if (entry.info.state !== "running" && !entry.reported) {
        entry.reported = true;
        out.push({ ...entry.info });
      }
    }
    return out;
  }

  /** Listen to starts, output and ends; returns the function that stops listening. */
  on(listener: (event: TaskEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(event: TaskEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}

const registries = new WeakMap<RunContext, TaskRegistry>();

/** The run's task registry, created by `ubiquity:background` (undefined without that plugin). */
export function tasksOf(run: RunContext | undefined): TaskRegistry | undefined {
  return run ? registries.get(run) : undefined;
}

/** Give a run its registry (the background plugin, when the run starts). */
export function attachTasks(run: RunContext, registry: TaskRegistry): TaskRegistry {
  registries.set(run, registry);
  return registry;
}

/** What to tell the model when a tool needs the registry and the plugin is missing. */
export const NO_TASKS_MESSAGE =
  "background tasks need the ubiquity:background plugin, which this run does not have: add it to plugins (the default preset has it), or run the work in the foreground";
