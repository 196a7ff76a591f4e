/**
 * Issue 38 over ACP: `session/cancel` while the answer streams ends that prompt "cancelled", and
 * the turn stays in the session as interrupted (the prompt, the text that streamed, the marker);
 * the next `session/prompt` is answered next, and the cancelled request is never sent again.
 * The built bin, the ACP SDK's own client, and a loopback OpenAI-compatible server reached
 * through an `openai-compatible:<model>` string and OPENAI_COMPATIBLE_BASE_URL.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { acpProject, messageText, startAgent, until, updatesOf, type AgentProcess } from "./helpers";

afterAll(removeTempProjects);
beforeAll(requireDist);

const running: AgentProcess[] = [];
let server: FakeProviderServer | undefined;
afterAll(async () => {
  await Promise.all(running.map((p) => p.close()));
  await server?.close();
});

/** The chat messages of a request, as `role:text` (system left out). */
function chatShape(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages
    .filter((m) => m.role !== "system")
    .map(
      (m) =>
        `${m.role}:${typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? "").join("|")}`,
    );
}

describe("ubiquity acp: a cancelled prompt stays in the session as interrupted", () => {
  it("session/cancel mid-stream, then the next prompt: it runs next, after the partial answer and the marker", async () => {
    // The first answer sends one delta and stalls (only the cancel ends it); the next is answered at once.
    server = await startProviderServer((_request, index) =>
      index === 0 ? { fault: "stall-mid-stream" } : "the next prompt, answered",
    );
    const dir = tempProject({
      ".ubiquityrc.json": JSON.stringify({
        model: "openai-compatible:local-model",
        maxRetries: 0,
        marketPricing: false,
      }),
    });
    const proc = startAgent({ dir, sessions: join(dir, "sessions") }, [], {
      OPENAI_COMPATIBLE_BASE_URL: server.baseURL,
    });
    running.push(proc);
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: dir, mcpServers: [] });

    const first = proc.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write a long essay" }],
    });
    await until(() => messageText(proc, sessionId).length > 0);
    await proc.agent.notify("session/cancel", { sessionId });
    expect((await first).stopReason).toBe("cancelled");

    const chunksBefore = updatesOf(proc, sessionId).length;
    const next = await proc.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "now do this instead" }],
    });
    expect(next.stopReason).toBe("end_turn");
    const answered = updatesOf(proc, sessionId)
      .slice(chunksBefore)
      .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
      .join("");
    expect(answered).toBe("the next prompt, answered");

    // Two requests: the cancelled one, and the next prompt's — whose conversation has the
    // cancelled prompt once, answered by what streamed and the marker, then the new prompt alone.
    expect(server.requests).toHaveLength(2);
    const shape = chatShape(server.requests[1]!.body);
    expect(shape).toHaveLength(3);
    expect(shape[0]).toBe("user:write a long essay");
    expect(shape[1]).toMatch(/^assistant:x+\n\n\[interrupted by the user\]$/);
    expect(shape[2]).toBe("user:now do this instead");
  });
});

describe("ubiquity acp: a tool's own preconditions come before the approval question", () => {
  it("an Edit of a file never read is refused without asking the client", async () => {
    const project = acpProject();
    writeFileSync(join(project.dir, "notes.txt"), "unsaved work\n");
    const proc = startAgent(project);
    running.push(proc);
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    const answer = await proc.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "please edit the notes" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    // Default mode asks before an Edit; this one could never run, so nobody was asked.
    expect(proc.permissions).toHaveLength(0);
    const failed = updatesOf(proc, sessionId).find(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "failed",
    );
    expect(JSON.stringify(failed)).toContain("has not been read in this run");
  });
});
