/**
 * More of a harness turn under HarnessAgent: the agent's instructions and tool filtering reach
 * Ubiquity, allow-edits lets edits through and still asks for Bash, a message steered into a
 * running turn enters at the next turn boundary of the same turn, and a failed stretch ends the
 * turn with an error part naming the failure.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { HarnessAgent } from "@ai-sdk/harness/agent";
import { scriptedModel } from "ubiquity/testing";
import { localSandbox, ubiquityHarness } from "ubiquity/harness";
import { agentFor, outline, partsOf, tempRoots } from "./helpers";

const root = tempRoots();

function systemText(prompt: unknown): string {
  return (prompt as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === "system")
    .map((m) => String(m.content))
    .join("\n");
}

describe("a harness turn", () => {
  it("HarnessAgent's instructions reach the system prompt; inactiveTools removes a built-in from the model's list", async () => {
    const r = root();
    const model = scriptedModel(["ok"]);
    const agent = new HarnessAgent({
      harness: ubiquityHarness({ model, sessionDir: join(r.state, "sessions"), todoDir: join(r.state, "todos") }),
      sandbox: localSandbox({ root: r.root }),
      instructions: "Always answer in haiku.",
      inactiveTools: ["Bash"],
    });
    const session = await agent.createSession({ sessionId: "s-settings" });
    try {
      await agent.generate({ session, prompt: "hi" });
      expect(systemText(model.requests[0]!.prompt)).toContain("Always answer in haiku.");
      const offered = model.requests[0]!.tools?.map((t) => t.name) ?? [];
      expect(offered).toContain("Read");
      expect(offered).not.toContain("Bash");
      // AskUserQuestion is offered: its questions go to the host as askUserQuestions.
      expect(offered).toContain("AskUserQuestion");
    } finally {
      await session.destroy();
    }
  });

  it("a prompt given as a user message with parts reaches the model as those parts", async () => {
    const r = root();
    const model = scriptedModel(["seen"]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "s-parts" });
    try {
      const messages: ModelMessage[] = [
        {
          role: "user",
          content: [
            { type: "text", text: "first part" },
            { type: "text", text: "second part" },
          ],
        },
      ];
      expect(await (await agent.generate({ session, messages })).text).toBe("seen");
      const user = (
        model.requests[0]!.prompt as Array<{ role: string; content: Array<{ type: string; text?: string }> }>
      ).find((m) => m.role === "user")!;
      expect(user.content.map((p) => p.text)).toEqual(["first part", "second part"]);
    } finally {
      await session.destroy();
    }
  });

  it("`config` loads a Ubiquity config file; options given in code win over it", async () => {
    const r = root();
    mkdirSync(r.state, { recursive: true });
    const file = join(r.state, "ubiquity.config.json");
    writeFileSync(
      file,
      JSON.stringify({ appendSystemPrompt: "From the config file.", systemPrompt: "Config's own base prompt." }),
    );
    const model = scriptedModel(["ok"]);
    const agent = agentFor(r, { model, config: file, systemPrompt: "The code's base prompt." });
    const session = await agent.createSession({ sessionId: "s-config" });
    try {
      await agent.generate({ session, prompt: "hi" });
      const system = systemText(model.requests[0]!.prompt);
      expect(system).toContain("From the config file.");
      expect(system).toContain("The code's base prompt.");
      expect(system).not.toContain("Config's own base prompt.");
    } finally {
      await session.destroy();
    }
  });

  it("AskUserQuestion goes to the host as askUserQuestions; the host's answers reach the model", async () => {
    const r = root();
    const model = scriptedModel([
      {
        toolCalls: [
          {
            toolName: "AskUserQuestion",
            input: {
              questions: [
                {
                  question: "Which database?",
                  header: "DB",
                  options: [
                    { label: "Postgres", description: "relational" },
                    { label: "Redis", description: "key-value" },
                  ],
                },
              ],
            },
          },
        ],
      },
      "Going with Postgres.",
    ]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "s-questions" });
    try {
      const asking = await agent.stream({ session, prompt: "set up storage" });
      const asked = await partsOf(asking.fullStream);
      expect(outline(asked)).toEqual(["call:askUserQuestions", "finish"]);
      const call = asked.find((p) => p.type === "tool-call") as unknown as {
        toolCallId: string;
        providerExecuted?: boolean;
        input: { questions: Array<{ id: string; options: Array<{ id: string }> }> };
      };
      expect(call.providerExecuted).toBeFalsy();
      expect(call.input.questions.map((q) => [q.id, q.options.map((o) => o.id)])).toEqual([
        ["q0", ["Postgres", "Redis"]],
      ]);
      const history: ModelMessage[] = [{ role: "user", content: "set up storage" }, ...(await asking.responseMessages)];
      const reply: ModelMessage = {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: call.toolCallId,
            toolName: "askUserQuestions",
            output: { type: "json", value: { action: "answered", answers: { q0: { optionIds: ["Postgres"] } } } },
          },
        ],
      };
      const answered = await partsOf((await agent.stream({ session, messages: [...history, reply] })).fullStream);
      expect(outline(answered)).toEqual(["text:Going with Postgres.", "finish"]);
      const sent = JSON.stringify(model.requests[1]!.prompt);
      expect(sent).toContain("The user answered:");
      expect(sent).toContain("Which database?");
      expect(sent).toContain("Postgres");
    } finally {
      await session.destroy();
    }
  });

  it("allow-all (HarnessAgent's default) runs Ubiquity in bypassPermissions; what still asks (an ask rule) is denied", async () => {
    const r = root();
    const dir = r.dir("s-all");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "touch ran.txt" } }] },
      { toolCalls: [{ toolName: "Write", input: { file_path: join(dir, "asked.txt"), content: "x" } }] },
      "Done.",
    ]);
    const agent = agentFor(r, { model, askTools: ["Write"] });
    const session = await agent.createSession({ sessionId: "s-all" });
    try {
      const parts = await partsOf((await agent.stream({ session, prompt: "touch, then write" })).fullStream);
      expect(outline(parts)).toEqual(["call:Bash", "result:Bash", "call:Write", "error:Write", "text:Done.", "finish"]);
      expect(String(parts.find((p) => p.type === "tool-error")!.error)).toContain(
        'permissionMode "allow-reads" or "allow-edits"',
      );
      expect(existsSync(join(dir, "ran.txt"))).toBe(true);
      expect(existsSync(join(dir, "asked.txt"))).toBe(false);
    } finally {
      await session.destroy();
    }
  });

  it("allow-edits: Write runs without a prompt, Bash still asks", async () => {
    const r = root();
    const dir = r.dir("s-edits");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: join(dir, "a.txt"), content: "a\n" } }] },
      // A write acceptEdits asks about (a plain in-project `touch` runs in it, as in Claude Code).
      { toolCalls: [{ toolName: "Bash", input: { command: "printf b > b.txt" } }] },
    ]);
    const agent = agentFor(r, { model }, "allow-edits");
    const session = await agent.createSession({ sessionId: "s-edits" });
    try {
      const parts = await partsOf((await agent.stream({ session, prompt: "write a, then b" })).fullStream);
      expect(outline(parts)).toEqual(["call:Write", "result:Write", "call:Bash", "approval", "finish"]);
      expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
      expect(existsSync(join(dir, "b.txt"))).toBe(false);
    } finally {
      await session.destroy();
    }
  });

  it("a message steered into a running turn enters at its next turn boundary, in the same turn", async () => {
    const r = root();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 0.4" } }] },
      "Done, and noted the extra request.",
    ]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "s-steer" });
    try {
      const result = await agent.stream({ session, prompt: "run it" });
      const parts: Array<Record<string, unknown> & { type: string }> = [];
      for await (const part of result.fullStream) {
        parts.push(part as Record<string, unknown> & { type: string });
        if (part.type === "tool-call") await agent.experimental_steer({ session, text: "also: be brief" });
      }
      expect(outline(parts)).toEqual(["call:Bash", "result:Bash", "text:Done, and noted the extra request.", "finish"]);
      const prompt = model.requests[1]!.prompt as Array<{
        role: string;
        content: Array<{ type: string; text?: string }>;
      }>;
      expect(prompt.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "also: be brief" }] });
      expect(prompt.at(-2)?.role).toBe("tool");
    } finally {
      await session.destroy();
    }
  });

  it("a message steered in while the final answer streams starts a new stretch of the same turn", async () => {
    const r = root();
    const model = scriptedModel([{ text: "First answer.", delayMs: 800 }, "Second answer, for the steered message."]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "s-steer-late" });
    try {
      const result = await agent.stream({ session, prompt: "answer" });
      const parts: Array<Record<string, unknown> & { type: string }> = [];
      let steered = false;
      for await (const part of result.fullStream) {
        parts.push(part as Record<string, unknown> & { type: string });
        if (!steered) {
          steered = true;
          // Once the model is answering (its response is on the way), not before the prompt entered.
          while (model.requests.length === 0) await new Promise((tick) => setTimeout(tick, 5));
          await agent.experimental_steer({ session, text: "and one more thing" });
        }
      }
      expect(outline(parts)).toEqual(["text:First answer.", "text:Second answer, for the steered message.", "finish"]);
      expect(model.requests).toHaveLength(2);
      const prompt = model.requests[1]!.prompt as Array<{
        role: string;
        content: Array<{ type: string; text?: string }>;
      }>;
      expect(prompt.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "and one more thing" }] });
    } finally {
      await session.destroy();
    }
  });

  it("a failed stretch (the provider's error) ends the turn with an error part naming it; the session goes on", async () => {
    const r = root();
    const model = scriptedModel([{ error: { status: 400, message: "context too long for this model" } }, "fine now"]);
    const agent = agentFor(r, { model, maxRetries: 0 });
    const session = await agent.createSession({ sessionId: "s-error" });
    try {
      const parts = await partsOf((await agent.stream({ session, prompt: "go" })).fullStream);
      const error = parts.find((p) => p.type === "error");
      expect(error).toBeDefined();
      expect(String((error!.error as Error).message)).toContain("context too long for this model");
      expect(await (await agent.generate({ session, prompt: "again" })).text).toBe("fine now");
    } finally {
      await session.destroy();
    }
  });
});

describe("a turn stopped by stopWhen", () => {
  it("suspends after the tool step; continueStream delivers the rest of the same turn", async () => {
    const r = root();
    const dir = r.dir("s-stop");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: join(dir, "s.txt"), content: "s\n" } }] },
      "All done.",
    ]);
    const agent = new HarnessAgent({
      harness: ubiquityHarness({ model, sessionDir: join(r.state, "sessions"), todoDir: join(r.state, "todos") }),
      sandbox: localSandbox({ root: r.root }),
      stopWhen: ({ steps }) => steps.length >= 1,
    });
    const session = await agent.createSession({ sessionId: "s-stop" });
    try {
      const first = await partsOf((await agent.stream({ session, prompt: "write s.txt" })).fullStream);
      expect(outline(first)).toEqual(["call:Write", "result:Write", "finish"]);
      expect(session.hasUnfinishedTurn()).toBe(true);
      const rest = await partsOf((await agent.continueStream({ session })).fullStream);
      expect(outline(rest)).toEqual(["text:All done.", "finish"]);
      expect(readFileSync(join(dir, "s.txt"), "utf8")).toBe("s\n");
      expect(session.hasUnfinishedTurn()).toBe(false);
    } finally {
      await session.destroy();
    }
  });
});

describe("session ids", () => {
  it("a harness session id Ubiquity would refuse still works: the state names the Ubiquity session", async () => {
    const r = root();
    const model = scriptedModel(["one", "two"]);
    const agent = agentFor(r, { model });
    const session = await agent.createSession({ sessionId: "user@example.com:chat" });
    await agent.generate({ session, prompt: "hello" });
    const state = await session.stop();
    const id = (state.data as { ubiquitySessionId: string }).ubiquitySessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const resumed = await agent.createSession({ sessionId: "user@example.com:chat", resumeFrom: state });
    try {
      expect(await (await agent.generate({ session: resumed, prompt: "again" })).text).toBe("two");
      expect((model.requests[1]!.prompt as Array<{ role: string }>).filter((m) => m.role === "user")).toHaveLength(2);
    } finally {
      await resumed.destroy();
    }
  });
});

describe("parking", () => {
  it("a session suspended by stopWhen and then driven on is not closed when its park time runs out", async () => {
    const r = root();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Glob", input: { pattern: "*" } }] },
      "Listed.",
      "Still here.",
    ]);
    const agent = new HarnessAgent({
      harness: ubiquityHarness({
        model,
        parkedTimeoutMs: 50,
        sessionDir: join(r.state, "sessions"),
        todoDir: join(r.state, "todos"),
      }),
      sandbox: localSandbox({ root: r.root }),
      stopWhen: ({ steps }) => steps.length >= 1,
    });
    const session = await agent.createSession({ sessionId: "s-park" });
    try {
      await partsOf((await agent.stream({ session, prompt: "list" })).fullStream);
      await partsOf((await agent.continueStream({ session })).fullStream);
      await new Promise((done) => setTimeout(done, 150));
      expect(await (await agent.generate({ session, prompt: "still there?" })).text).toBe("Still here.");
    } finally {
      await session.destroy();
    }
  });

  it("a detached session not resumed within parkedTimeoutMs is closed; resuming then continues from its transcript", async () => {
    const r = root();
    const model = scriptedModel(["Noted: FIG.", "It was FIG."]);
    const agent = agentFor(r, { model, parkedTimeoutMs: 50 });
    const session = await agent.createSession({ sessionId: "s-late" });
    await agent.generate({ session, prompt: "remember FIG" });
    const state = await session.detach();
    await new Promise((done) => setTimeout(done, 150));
    const resumed = await agent.createSession({ sessionId: "s-late", resumeFrom: state });
    try {
      expect(resumed.isResume).toBe(true);
      expect(await (await agent.generate({ session: resumed, prompt: "which?" })).text).toBe("It was FIG.");
      const users = (model.requests[1]!.prompt as Array<{ role: string }>).filter((m) => m.role === "user");
      expect(users).toHaveLength(2);
    } finally {
      await resumed.destroy();
    }
  });
});
