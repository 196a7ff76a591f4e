import type { MessageBase } from "../../src/index";
import type { TaskInfo } from "../_kits/tasks/index";

/** A background task started (a shell from `Bash run_in_background`, an agent from `Agent run_in_background`). */
export interface SystemTaskStartedMessage extends MessageBase {
  type: "system";
  subtype: "task_started";
  task: TaskInfo;
}

/** Output of a background task, as it comes (only with `includePartialMessages`). */
export interface SystemTaskOutputMessage extends MessageBase {
  type: "system";
  subtype: "task_output";
  taskId: string;
  text: string;
}

/** A background task ended: by itself, stopped (KillShell, `stopTask()`, its limits), or with the session. */
export interface SystemTaskEndedMessage extends MessageBase {
  type: "system";
  subtype: "task_ended";
  task: TaskInfo;
}

declare module "../../src/messages" {
  interface PluginMessages {
    "system/task_started": SystemTaskStartedMessage;
    "system/task_output": SystemTaskOutputMessage;
    "system/task_ended": SystemTaskEndedMessage;
  }
}

/** On the kernel's `event` firehose: every start, output and end of a background task (also after the session's result). */
export interface TaskEvent {
  type: "task";
  event: "started" | "output" | "ended";
  task: TaskInfo;
  sessionId: string;
  /** The output, for `output`. */
  text?: string;
}

declare module "../../src/hooks" {
  interface PluginEvents {
    task: TaskEvent;
  }
}
