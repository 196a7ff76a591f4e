/**
 * A `useChat` route (Next.js App Router: app/api/chat/route.ts) serving a Ubiquity preset
 * through the AI SDK's HarnessAgent. The harness owns the conversation, so the route resumes the
 * chat's harness session instead of replaying the history into a model, and parks it again
 * when the response ends.
 */
import { HarnessAgent, getHarnessErrorMessage, type HarnessAgentResumeSessionState } from "@ai-sdk/harness/agent";
import { convertToModelMessages, type UIMessage } from "ai";
import { localSandbox, ubiquityHarness } from "ubiquity/harness";

const agent = new HarnessAgent({
  // Any Ubiquity options: model (or UBIQUITY_MODEL), permission rules, presets, MCP servers, …
  harness: ubiquityHarness({ disallowedTools: ["Bash(rm:*)"] }),
  // Each chat gets a folder under ./workspaces; Ubiquity's tools work there, on this machine.
  sandbox: localSandbox({ root: process.env.WORKSPACES ?? "./workspaces" }),
  // Ubiquity runs in acceptEdits; what it would ask about (Bash, …) comes to the UI as an approval (addToolApprovalResponse).
  permissionMode: "allow-edits",
});

// Resume state per chat id. Use durable storage in production.
const parked = new Map<string, HarnessAgentResumeSessionState>();

export async function POST(request: Request): Promise<Response> {
  const { id, messages } = (await request.json()) as { id?: string; messages: UIMessage[] };
  if (!id) return Response.json({ error: "The request has no chat id." }, { status: 400 });
  try {
    const resumeFrom = parked.get(id);
    const session = await agent.createSession(resumeFrom ? { sessionId: id, resumeFrom } : { sessionId: id });
    const result = await agent.stream({
      session,
      messages: await convertToModelMessages(messages),
      abortSignal: request.signal,
    });
    return result.toUIMessageStreamResponse({
      onError: getHarnessErrorMessage,
      onEnd: async () => void parked.set(id, await session.detach()),
    });
  } catch (error) {
    return Response.json({ error: getHarnessErrorMessage(error) }, { status: 500 });
  }
}
