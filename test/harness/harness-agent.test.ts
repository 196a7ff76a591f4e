/**
 * ubiquityHarness driven by the AI SDK's own HarnessAgent (@ai-sdk/harness), with the scripted
 * model standing in for the LLM and the default preset's real tools on temp folders: tool calls,
 * their results and the final text arrive through HarnessAgent in order; a second turn sees the
 * first (also across detach/resume); an abort stops the work; a denial and a host's approval
 * answers show as such.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { z } from "zod";
import { HarnessAgent } from "@ai-sdk/harness/agent";
import { localSandbox, ubiquityHarness } from "ubiquity/harness";
import { scriptedModel } from "ubiquity/testing";
import { commandsGone } from "../helpers/processes";
import { agentFor, outline, partsOf, tempRoots } from "./helpers";

const root = tempRoots();

/** The text of every user message a model request carried. */
function userTexts(prompt: unknown): string[] {
  return (prompt as Array<{ role: string; content: Array<{ type: string; text?: string }> }>)
    .filter((m) => m.role === "user")
    .map((m) => m.content.map((p) => p.text ?? "").join(""));
}

describe("ubiquityHarness under HarnessAgent", () => {
  it("streams the tool call, its result and the final text in order, and the tool really ran", async () => {
    const r = root();
    const file = join(r.dir("s1"), "hello.txt");
    const model = scriptedModel([
      {
        text: "Writing it.",
        toolCalls: [{ toolName: "Write", input: { file_path: file, content: "hi from ubiquity\n" } }],
      },
      "Done: hello.txt holds the greeting.",
    ]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "s1" });
    try {
      const result = await agent.stream({ session, prompt: "write hello.txt" });
      const parts = await partsOf(result.fullStream);
      expect(outline(parts)).toEqual([
        "text:Writing it.",
        "call:Write",
        "result:Write",
        "text:Done: hello.txt holds the greeting.",
        "finish",
      ]);
      const call = parts.find((p) => p.type === "tool-call")!;
      expect(call).toMatchObject({
        toolName: "Write",
        providerExecuted: true,
        input: { content: "hi from ubiquity\n" },
      });
      expect(call.dynamic).toBeUndefined();
      expect(readFileSync(file, "utf8")).toBe("hi from ubiquity\n");
      expect(await result.text).toBe("Done: hello.txt holds the greeting.");
      expect((await result.steps).length).toBe(2);
      // The turn's usage is the stretch's own: both requests' tokens, counted by Ubiquity.
      const usage = await result.totalUsage;
      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.outputTokens).toBeGreaterThan(0);
      // The model got the prompt as the user's message, in the session's folder.
      expect(userTexts(model.requests[0]!.prompt)).toEqual(["write hello.txt"]);
    } finally {
      await session.destroy();
    }
  });

  it("a second turn on the same session sees the first, and so does one after detach and resume", async () => {
    const r = root();
    const model = scriptedModel(["The code word is PLUM.", "You told me PLUM.", "Still PLUM."]);
    const agent = agentFor(r, { model });
    const first = await agent.createSession({ sessionId: "chat-1" });
    expect(await (await agent.generate({ session: first, prompt: "remember PLUM" })).text).toBe(
      "The code word is PLUM.",
    );
    expect(await (await agent.generate({ session: first, prompt: "what was the word?" })).text).toBe(
      "You told me PLUM.",
    );
    expect(userTexts(model.requests[1]!.prompt)).toEqual(["remember PLUM", "what was the word?"]);
    // The useChat route's way: detach after each request, resume for the next.
    const state = await first.detach();
    const again = await agent.createSession({ sessionId: "chat-1", resumeFrom: state });
    try {
      expect(await (await agent.generate({ session: again, prompt: "and now?" })).text).toBe("Still PLUM.");
      expect(userTexts(model.requests[2]!.prompt)).toEqual(["remember PLUM", "what was the word?", "and now?"]);
      const assistantTurns = (model.requests[2]!.prompt as Array<{ role: string }>).filter(
        (m) => m.role === "assistant",
      );
      expect(assistantTurns).toHaveLength(2);
    } finally {
      await again.destroy();
    }
  });

  it("an abort stops the running tool and the calls after it: no side effect after the abort", async () => {
    const r = root();
    const dir = r.dir("s-abort");
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Bash", input: { command: "sleep 1 && touch late-marker" } },
          { toolName: "Write", input: { file_path: join(dir, "after.txt"), content: "should never exist" } },
        ],
      },
      "fresh start",
    ]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "s-abort" });
    try {
      const controller = new AbortController();
      const result = await agent.stream({ session, prompt: "run the slow thing", abortSignal: controller.signal });
      const parts: Array<Record<string, unknown> & { type: string }> = [];
      for await (const part of result.fullStream) {
        parts.push(part as Record<string, unknown> & { type: string });
        if (part.type === "tool-call" && part.toolName === "Bash")
          setTimeout(() => controller.abort(new Error("user pressed stop")), 150);
      }
      // Ubiquity answers every call it did not finish (the stream's results say so), then the turn ends as aborted.
      expect(outline(parts)).toEqual(["call:Bash", "call:Write", "error:Bash", "error:Write", "abort"]);
      expect(parts.filter((p) => p.type === "tool-error").map((p) => String(p.error))).toEqual([
        expect.stringMatching(/interrupt|abort/i),
        "Not run: interrupted by the user.",
      ]);
      // Once no process runs the command (it would touch its marker last), neither it nor the Write ran on.
      await commandsGone(dir, "late-marker");
      expect(existsSync(join(dir, "late-marker"))).toBe(false);
      expect(existsSync(join(dir, "after.txt"))).toBe(false);
      expect(model.requests).toHaveLength(1);
      // The session stays usable.
      expect(await (await agent.generate({ session, prompt: "start over" })).text).toBe("fresh start");
    } finally {
      await session.destroy();
    }
  });

  it("a call a deny rule forbids shows as a denied tool error, and nothing ran", async () => {
    const r = root();
    const dir = r.dir("s-deny");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "rm keep.txt" } }] },
      "I was not allowed to delete it.",
    ]);
    const agent = agentFor(r, { model, disallowedTools: ["Bash(rm:*)"] });
    const session = await agent.createSession({ sessionId: "s-deny" });
    writeFileSync(join(dir, "keep.txt"), "precious");
    try {
      const result = await agent.stream({ session, prompt: "delete keep.txt" });
      const parts = await partsOf(result.fullStream);
      expect(outline(parts)).toEqual(["call:Bash", "error:Bash", "text:I was not allowed to delete it.", "finish"]);
      expect(String(parts.find((p) => p.type === "tool-error")!.error)).toMatch(/denied|not allowed|rule/i);
      expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("precious");
    } finally {
      await session.destroy();
    }
  });

  it("under permissionMode allow-reads an ask is a tool-approval-request: denied, the call does not run; approved, it does", async () => {
    const r = root();
    const dir = r.dir("s-ask");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: join(dir, "no.txt"), content: "x" } }] },
      "Understood, I left it.",
      { toolCalls: [{ toolName: "Write", input: { file_path: join(dir, "yes.txt"), content: "approved\n" } }] },
      "Written.",
    ]);
    const agent = agentFor(r, { model }, "allow-reads");
    const session = await agent.createSession({ sessionId: "s-ask" });
    try {
      const asking = await agent.stream({ session, prompt: "write no.txt" });
      const asked = await partsOf(asking.fullStream);
      expect(outline(asked)).toEqual(["call:Write", "approval", "finish"]);
      const request = asked.find((p) => p.type === "tool-approval-request") as unknown as { approvalId: string };
      // The host answers as useChat's addToolApprovalResponse does: the history plus a tool message.
      const answer = (approvalId: string, approved: boolean, reason?: string) => ({
        role: "tool" as const,
        content: [{ type: "tool-approval-response" as const, approvalId, approved, ...(reason ? { reason } : {}) }],
      });
      const history: ModelMessage[] = [{ role: "user", content: "write no.txt" }, ...(await asking.responseMessages)];
      const denied = await partsOf(
        (await agent.stream({ session, messages: [...history, answer(request.approvalId, false, "not that file")] }))
          .fullStream,
      );
      expect(outline(denied)).toEqual(["error:Write", "text:Understood, I left it.", "finish"]);
      expect(String(denied.find((p) => p.type === "tool-error")!.error)).toContain("not that file");
      expect(existsSync(join(dir, "no.txt"))).toBe(false);

      // The asking request's signal fires once its response is over (as a finished HTTP request's may): the paused turn stays.
      const finished = new AbortController();
      const asking2 = await agent.stream({ session, prompt: "then write yes.txt", abortSignal: finished.signal });
      const second = await partsOf(asking2.fullStream);
      finished.abort(new Error("the response ended"));
      const approval = second.find((p) => p.type === "tool-approval-request") as unknown as { approvalId: string };
      expect(existsSync(join(dir, "yes.txt"))).toBe(false);
      // Across a detach, as a useChat route persists the paused turn between requests.
      const state = await session.detach();
      const resumed = await agent.createSession({ sessionId: "s-ask", resumeFrom: state });
      try {
        const messages: ModelMessage[] = [
          { role: "user", content: "then write yes.txt" },
          ...(await asking2.responseMessages),
          answer(approval.approvalId, true),
        ];
        const approved = await partsOf((await agent.stream({ session: resumed, messages })).fullStream);
        expect(outline(approved)).toEqual(["result:Write", "text:Written.", "finish"]);
        expect(readFileSync(join(dir, "yes.txt"), "utf8")).toBe("approved\n");
      } finally {
        await resumed.destroy();
      }
    } finally {
      await session.destroy().catch(() => undefined);
    }
  });
});

describe("ubiquityHarness: host tools and resuming in another process", () => {
  it("a HarnessAgent tool is executed by the host; its result reaches the model, shown once", async () => {
    const r = root();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "weather", input: { city: "Oslo" } }] },
      "It is 21 degrees in Oslo.",
    ]);
    const executed: unknown[] = [];
    const agent = new HarnessAgent({
      harness: ubiquityHarness({ model, sessionDir: join(r.state, "sessions"), todoDir: join(r.state, "todos") }),
      sandbox: localSandbox({ root: r.root }),
      tools: {
        // A plain tool object: `tool()` of the app's `ai` may be another copy than the one @ai-sdk/harness pins.
        weather: {
          description: "The weather in a city",
          inputSchema: z.object({ city: z.string() }),
          execute: async (input: { city: string }) => (executed.push(input), { city: input.city, degrees: 21 }),
        },
      },
    });
    const session = await agent.createSession({ sessionId: "s-host" });
    try {
      const parts = await partsOf((await agent.stream({ session, prompt: "weather in Oslo?" })).fullStream);
      expect(outline(parts)).toEqual(["call:weather", "result:weather", "text:It is 21 degrees in Oslo.", "finish"]);
      expect(parts.find((p) => p.type === "tool-call")!.providerExecuted).toBeFalsy();
      expect(executed).toEqual([{ city: "Oslo" }]);
      expect(parts.filter((p) => p.type === "tool-result").map((p) => p.output)).toEqual([
        { city: "Oslo", degrees: 21 },
      ]);
      // The model was offered the host's tool with its schema, and got the host's result.
      expect(model.requests[0]!.tools?.map((t) => t.name)).toContain("weather");
      expect(JSON.stringify(model.requests[1]!.prompt)).toContain('\\"degrees\\":21');
    } finally {
      await session.destroy();
    }
  });

  it("a stopped session resumes from its transcript in a new harness (as in another process)", async () => {
    const r = root();
    const before = scriptedModel(["Noted: PLUM."]);
    const first = agentFor(r, { model: before });
    const session = await first.createSession({ sessionId: "s-move" });
    await first.generate({ session, prompt: "remember PLUM" });
    const state = await session.stop();
    expect(state).toMatchObject({ harnessId: "ubiquity", data: { ubiquitySessionId: "s-move" } });

    const after = scriptedModel(["It was PLUM."]);
    const second = agentFor(r, { model: after });
    const resumed = await second.createSession({ sessionId: "s-move", resumeFrom: JSON.parse(JSON.stringify(state)) });
    try {
      expect(await (await second.generate({ session: resumed, prompt: "which word?" })).text).toBe("It was PLUM.");
      expect(userTexts(after.requests[0]!.prompt)).toEqual(["remember PLUM", "which word?"]);
    } finally {
      await resumed.destroy();
    }
  });
});
