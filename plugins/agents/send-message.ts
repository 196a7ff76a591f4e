/**
 * SendMessage: more instructions for a background agent while it runs. The message becomes the
 * agent's next user input (it enters its conversation at its next step), the way a live
 * session's user messages enter the main run.
 */
import { z } from "zod";
import { Tool, type RunContext, type ToolContext, type ToolOutput } from "../../src/index";
import { tasksOf } from "../_kits/tasks/index";
import type { BackgroundAgents } from "./background";

import { SEND_MESSAGE_TOOL } from "./agent-tool";

export { SEND_MESSAGE_TOOL };

const input = z.object({
  to: z.string().min(1).describe("The background agent: the name given when it was started, or its task id (agent-1)"),
  message: z
    .string()
    .min(1)
    .describe("What to tell it: it sees nothing of this conversation, so say everything it needs"),
});

/** What SendMessage receives. */
export type SendMessageInput = z.output<typeof input>;

/** How the message reads in the agent's conversation. */
export function inboxText(message: string): string {
  return `Message from the agent that started you (sent while you work):\n${message}`;
}

/** SendMessage, reaching the background agents of the calling run (`agentsOf` finds them). */
export class SendMessageTool extends Tool<typeof input> {
  readonly name = SEND_MESSAGE_TOOL;
  readonly description =
    "Send a message to one of your background agents (started with Agent run_in_background) while it runs, addressed by its name or task id. It reads the message at its next step and goes on with it in mind; its reply still comes to you when it finishes. A finished agent cannot be messaged: start a new one.";
  readonly inputSchema = input;

  constructor(private readonly agentsOf: (run: RunContext) => BackgroundAgents) {
    super();
  }

  // It changes nothing outside the agents of this run, and each of their calls is judged on its own.
  override isReadOnly(): boolean {
    return true;
  }
  override isConcurrencySafe(): boolean {
    return true;
  }

  async call({ to, message }: SendMessageInput, ctx: ToolContext): Promise<ToolOutput> {
    const run = ctx.run;
    if (!run)
      return {
        content:
          "SendMessage failed: the call has no run; call it through a run's tool funnel (runToolCall), which sets ToolContext.run",
        isError: true,
      };
    const agents = this.agentsOf(run);
    const registry = tasksOf(run);
    const running = [...agents.values()].filter((a) => registry?.get(a.taskId)?.state === "running");
    // A name names the running agent of that name (a finished one may have left it to a newer one).
    const agent =
      running.find((a) => a.name === to) ??
      [...agents.values()].find((a) => a.taskId === to) ??
      [...agents.values()].reverse().find((a) => a.name === to);
    const list = running.length
      ? `Running: ${running.map((a) => (a.name ? `"${a.name}" (${a.taskId})` : a.taskId)).join(", ")}.`
      : "No background agent is running.";
    if (!agent) return { content: `No background agent is called "${to}". ${list}`, isError: true };
    const task = registry?.get(agent.taskId);
    if (task?.state !== "running" || !agent.inbox.push(inboxText(message))) {
      return {
        content: `${agent.taskId}${agent.name ? ` ("${agent.name}")` : ""} has already finished (${task?.state ?? "ended"}), so it cannot be messaged: its reply comes (or came) to you with its end. Start a new agent to go on. ${list}`,
        isError: true,
      };
    }
    return {
      content: `Message queued for ${agent.taskId}${agent.name ? ` ("${agent.name}")` : ""}: it reads it at its next step.`,
      metadata: { taskId: agent.taskId },
    };
  }
}
