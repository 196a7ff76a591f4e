/**
 * Background agents: an Agent call with `run_in_background` starts the subagent as a task of
 * its caller's run (the run's `TaskRegistry`, kind `agent`: counted against `maxAgents` and
 * `maxTotal`, listed, stopped with the session) and returns at once with the task id. The
 * agent runs concurrently on the same kernel: its usage and cost are its caller's (the usage
 * ledger charges every ancestor), its permission prompts go to the same `canUseTool`, and
 * SendMessage reaches it through its inbox. When it ends, the registry's end event carries its
 * reply as the task's `outcome`, which is how the caller hears of it.
 */
import { describeError, driveRun, RunEnd, type ResultMessage, type RunContext, type ToolOutput } from "../../src/index";
import { NO_TASKS_MESSAGE, TaskLimitError, tasksOf, type TaskInfo, type TaskState } from "../_kits/tasks/index";
import { AgentInbox } from "./inbox";
import type { LaunchPlace, Prepared } from "./launch";
import { subagentOutput } from "./launch";

/** A background agent of a run, as SendMessage and the stop tap find it. */
export interface BackgroundAgent {
  taskId: string;
  name?: string;
  agentType: string;
  inbox: AgentInbox;
}

/** A run's background agents, by task id. */
export type BackgroundAgents = Map<string, BackgroundAgent>;

/** The longest reply kept as a task's outcome (the rest is cut, and the cut said). */
export const MAX_OUTCOME_CHARS = 50_000;

/** What starting one background agent needs from the plugin. */
export interface BackgroundLaunch {
  parent: RunContext;
  agentType: string;
  description: string;
  prompt: string;
  name?: string;
  /** The caller's run signal without its stretch's interrupt: a user interrupt of the caller leaves its agents running. */
  base: AbortSignal;
  agents: BackgroundAgents;
  /** Create the agent's run in `place` (and fire SubagentStart). */
  prepare: (place: LaunchPlace) => Promise<Prepared>;
  /** Called once the agent's run ended, before the task ends: text to add to its outcome (the worktree report). */
  finish?: () => Promise<string | undefined>;
  /** Where it works, when not in its caller's folder (said when it starts). */
  where?: string;
}

const cut = (text: string) =>
  text.length <= MAX_OUTCOME_CHARS
    ? text
    : `${text.slice(0, MAX_OUTCOME_CHARS)}\n[… ${text.length - MAX_OUTCOME_CHARS} more characters of the reply were cut]`;

/** The task's outcome: the reply (or why there is none), then what `finish` adds. */
function outcomeOf(
  agentType: string,
  agentId: string,
  result: ResultMessage | undefined,
  stopped: string | undefined,
  extra: string | undefined,
): { state: Exclude<TaskState, "running">; outcome: string } {
  const tail = extra ? `\n\n${extra}` : "";
  if (stopped !== undefined) return { state: "killed", outcome: `stopped: ${stopped}${tail}` };
  if (!result) return { state: "failed", outcome: `failed: the agent did not run${tail}` };
  const output = subagentOutput(agentType, agentId, result);
  return { state: output.isError ? "failed" : "completed", outcome: cut(output.content) + tail };
}

/** Start a background agent; resolves to the Agent call's output (the task id, or why it could not start). */
export async function startBackground(launch: BackgroundLaunch): Promise<ToolOutput> {
  const { parent, agentType, name, agents } = launch;
  // Refused before it ran: what was made for it (a worktree) goes again.
  const refuse = async (content: string): Promise<ToolOutput> => {
    await launch.finish?.().catch(() => undefined);
    return { content, isError: true };
  };
  const registry = tasksOf(parent);
  if (!registry) return refuse(`Agent ${agentType} could not start in the background: ${NO_TASKS_MESSAGE}.`);
  if (name !== undefined) {
    const taken = [...agents.values()].find((a) => a.name === name && registry.get(a.taskId)?.state === "running");
    if (taken)
      return refuse(
        `A background agent named "${name}" is already running (${taken.taskId}): message it with SendMessage, or give this one another name.`,
      );
  }
  const stop = new AbortController();
  const inbox = new AgentInbox();
  let stopped: string | undefined;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  let task: TaskInfo;
  try {
    task = registry.start(
      "agent",
      `${name ? `${name}: ` : ""}${agentType} — ${launch.description}`,
      () => ({
        async stop(reason: string) {
          stopped ??= reason;
          inbox.close();
          stop.abort(new Error(reason));
          await settled;
        },
      }),
      name === undefined ? {} : { name },
    );
  } catch (error) {
    if (error instanceof TaskLimitError) return refuse(`Agent ${agentType} was not started: ${error.message}`);
    await launch.finish?.().catch(() => undefined);
    throw error;
  }
  const taskId = task.id;
  agents.set(taskId, { taskId, name, agentType, inbox });

  const end = (ended: { state: Exclude<TaskState, "running">; outcome: string }) => {
    inbox.close();
    registry.end(taskId, ended.state, ended.outcome);
    settle();
  };

  let prepared: Prepared;
  try {
    prepared = await launch.prepare({ abortSignal: AbortSignal.any([stop.signal, launch.base]), input: inbox });
  } catch (error) {
    const extra = await launch.finish?.().catch(() => undefined);
    end({ state: "failed", outcome: `failed to start: ${describeError(error)}${extra ? `\n\n${extra}` : ""}` });
    return {
      content: `Agent ${agentType} could not start: ${describeError(error)}`,
      isError: true,
      metadata: { taskId },
    };
  }
  if ("refused" in prepared) {
    const extra = await launch.finish?.().catch(() => undefined);
    end({ state: "failed", outcome: `not started: ${prepared.refused.content}${extra ? `\n\n${extra}` : ""}` });
    return { ...prepared.refused, metadata: { ...prepared.refused.metadata, taskId } };
  }
  const { child, agentId } = prepared;
  // Not awaited: the call returns now, and the registry's end event tells the caller.
  void (async () => {
    let result: ResultMessage | undefined;
    let extra: string | undefined;
    try {
      result = await driveRun(child, launch.prompt);
    } finally {
      try {
        extra = await launch.finish?.();
      } catch (error) {
        extra = `(could not inspect its worktree: ${describeError(error)})`;
      }
      end(outcomeOf(agentType, agentId, result, stopped, extra));
    }
  })().catch((error: unknown) => parent.logger.error(`background agent ${taskId} failed:`, describeError(error)));

  const address = name ? `"${name}"` : taskId;
  return {
    content: [
      `Started ${taskId}${name ? ` (named "${name}")` : ""}: agent ${agentType} works on "${launch.description}" in the background${launch.where ? `, ${launch.where}` : ""}.`,
      `You will be told when it finishes, with its reply. Meanwhile go on with other work; send it more instructions with SendMessage { to: ${JSON.stringify(name ?? taskId)} }.`,
      `If you end your turn while it runs, the run waits for it and its reply comes to you as the next message: do not poll, and do not redo its work. (Message ${address} only while it runs.)`,
    ].join("\n"),
    metadata: { taskId, agentId, agentType, ...(name ? { name } : {}), background: true },
  };
}

/** The note that tells the model what ended in the background: each task's id, what it was, and how it ended (an agent's reply). */
export function describeEnded(ended: readonly TaskInfo[], running: readonly TaskInfo[]): string {
  const lines = ["Background work ended:"];
  for (const task of ended) {
    const what = task.kind === "agent" ? `agent ${task.description}` : `shell \`${task.description}\``;
    if (task.kind === "agent" && task.state === "completed")
      lines.push(`- ${task.id} (${what}) completed. Its reply:\n${task.outcome ?? "(none)"}`);
    else lines.push(`- ${task.id} (${what}) ${task.state}${task.outcome ? `: ${task.outcome}` : ""}`);
  }
  if (running.length) lines.push(`Still running: ${running.map((t) => `${t.id} (${t.description})`).join(", ")}.`);
  return lines.join("\n");
}

/** A promise that resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}

/**
 * The caller ended its turn while background agents still run: wait until one of them ends
 * (at once when one ended and the model was not told yet)
 * (or the run is aborted: that ends the work as an abort), then give the ended tasks as the
 * next prompt. Undefined when no agent of the run is running.
 */
export async function awaitAgents(run: RunContext, agents: BackgroundAgents): Promise<string | undefined> {
  const registry = tasksOf(run);
  if (!registry) return undefined;
  const running = () => registry.list().filter((t) => t.kind === "agent" && t.state === "running" && agents.has(t.id));
  const waiting = running();
  // One that ended while the model wrote its last response has not been told yet: that is news too.
  const untold = registry.unreported().some((t) => t.kind === "agent" && agents.has(t.id));
  if (waiting.length === 0 && !untold) return undefined;
  if (!untold) {
    run.logger.debug(
      `[ubiquity:agents] the turn ended with ${waiting.length} background agent(s) running: waiting for them`,
    );
    await Promise.race([...waiting.map((t) => registry.ended(t.id)), aborted(run.abortSignal)]);
  }
  // Aborted (or interrupted) while waiting: the work ends as an abort does, not as a finished turn.
  if (run.abortSignal.aborted) throw new RunEnd("Run aborted.");
  return describeEnded(registry.takeUnreported(), running());
}
