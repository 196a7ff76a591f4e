/**
 * toolProfile across a model switch, on the providers' real wire formats: a live session starts
 * on an OpenAI gpt-5.x model (offered apply_patch, not Edit/Write), patches a file, then
 * `setModel` moves it to an Anthropic model (offered Edit and Write, not apply_patch). The
 * history carries the apply_patch call and its result to Anthropic intact, read-before-write
 * holds across the switch (what the patch wrote counts as read), acceptEdits approves both tools
 * as edit tools, and the cache-break detector names the tool change exactly once. A fallback
 * model gets its own surface for the call it answers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { startProviderServer, type FakeProviderServer, type RecordedRequest } from "ubiquity/testing";
import { inbox } from "../live/helpers";
import { capturingLogger } from "../model/helpers";
import { tempDir } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Tool names a request offered, in its family's wire format. */
function offeredTools(request: RecordedRequest): string[] {
  const tools = (request.body as { tools?: { name?: string; function?: { name: string } }[] }).tools ?? [];
  return tools.map((t) => t.name ?? t.function?.name ?? "?");
}

const PATCH = ["*** Begin Patch", "*** Update File: a.txt", "@@", " first", "-hello", "+hi", "*** End Patch"].join(
  "\n",
);

describe("toolProfile", () => {
  it("switches apply_patch for Edit when setModel moves an OpenAI session to Anthropic, history and state intact", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "a.txt"), "first\nhello\n");
    const turns = [
      // OpenAI (Responses API): read, patch, answer.
      {
        toolCalls: [{ name: "Read", input: { file_path: "a.txt" }, id: "call_read" }],
        usage: { inputTokens: 5000, outputTokens: 10 },
      },
      {
        toolCalls: [{ name: "apply_patch", input: { input: PATCH }, id: "call_patch" }],
        usage: { inputTokens: 5200, outputTokens: 30, cacheReadTokens: 4800 },
      },
      { text: "patched", usage: { inputTokens: 5400, outputTokens: 5, cacheReadTokens: 5100 } },
      // Anthropic: an Edit on the file the patch wrote (no new Read), then an answer.
      {
        toolCalls: [
          { name: "Edit", input: { file_path: "a.txt", old_string: "hi", new_string: "hey" }, id: "toolu_edit" },
        ],
        usage: { inputTokens: 5600, outputTokens: 20, cacheWriteTokens: 5500 },
      },
      { text: "edited", usage: { inputTokens: 5800, outputTokens: 5, cacheReadTokens: 5500 } },
    ];
    server = await startProviderServer((_request, index) => turns[index] ?? "unexpected");
    const logger = capturingLogger();
    const input = inbox();
    input.push("patch it");
    const session = summon(input, {
      model: "openai:gpt-5.1",
      apiKey: "sk-test",
      providerSettings: { baseURL: server.baseURL },
      cwd,
      permissionMode: "acceptEdits",
      detectCacheBreaks: true,
      persistSession: false,
      maxRetries: 0,
      logger,
    });
    const messages: Message[] = [];
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type !== "result") continue;
      if (++results === 1) {
        await session.setModel("anthropic:claude-sonnet-4-5");
        input.push("now edit it");
      } else input.end();
    }

    expect(server.requests.map((r) => r.family)).toEqual([
      "openai-responses",
      "openai-responses",
      "openai-responses",
      "anthropic",
      "anthropic",
    ]);
    const openai = offeredTools(server.requests[0]!);
    const anthropic = offeredTools(server.requests[3]!);
    expect(openai).toContain("apply_patch");
    expect(openai).not.toContain("Edit");
    expect(openai).not.toContain("Write");
    expect(anthropic).toContain("Edit");
    expect(anthropic).toContain("Write");
    expect(anthropic).not.toContain("apply_patch");
    // Every other tool keeps its place: the unchanged part of the tool block is the same list.
    expect(openai.filter((n) => n !== "apply_patch")).toEqual(anthropic.filter((n) => n !== "Edit" && n !== "Write"));

    const results_ = messages.filter((m): m is Extract<Message, { type: "tool_result" }> => m.type === "tool_result");
    expect(results_.map((r) => [r.toolName, r.output.isError ?? false])).toEqual([
      ["Read", false],
      ["apply_patch", false],
      ["Edit", false],
    ]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("first\nhey\n");

    // The Anthropic request carries the OpenAI turns: the apply_patch call answered by its result.
    const history = (
      server.requests[3]!.body as {
        messages: {
          role: string;
          content: { type: string; name?: string; id?: string; tool_use_id?: string }[] | string;
        }[];
      }
    ).messages;
    const blocks = history.flatMap((m) => (typeof m.content === "string" ? [] : m.content));
    const use = blocks.find((b) => b.type === "tool_use" && b.name === "apply_patch");
    expect(use).toBeDefined();
    expect(blocks.filter((b) => b.type === "tool_result" && b.tool_use_id === use!.id)).toHaveLength(1);
    expect(blocks.filter((b) => b.type === "tool_use")).toHaveLength(2);
    expect(blocks.filter((b) => b.type === "tool_result")).toHaveLength(2);

    // The detector names the change once: the model and the edit tools.
    const breaks = logger.lines.filter((l) => l.includes("prompt cache break"));
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toContain("model changed (openai:gpt-5.1 -> anthropic:claude-sonnet-4-5)");
    expect(breaks[0]).toMatch(
      /tool set changed \(\+Write, \+Edit, -apply_patch\)|tool set changed \(\+Edit, \+Write, -apply_patch\)/,
    );
  });

  it("offers a fallback model its own surface for the call it answers", async () => {
    const cwd = tempDir();
    server = await startProviderServer((request) =>
      request.family === "anthropic" ? "from the fallback" : { status: 503 },
    );
    const messages: Message[] = [];
    for await (const m of summon("go", {
      model: "openai:gpt-5.1-codex",
      fallbackModel: "anthropic:claude-haiku-4-5",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      cwd,
      persistSession: false,
      maxRetries: 0,
    }))
      messages.push(m);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "from the fallback" });
    const [primary, fallback] = [server.requests[0]!, server.requests.at(-1)!];
    expect(primary.family).toBe("openai-responses");
    expect(offeredTools(primary)).toContain("apply_patch");
    expect(offeredTools(primary)).not.toContain("Edit");
    expect(fallback.family).toBe("anthropic");
    expect(offeredTools(fallback)).toContain("Edit");
    expect(offeredTools(fallback)).not.toContain("apply_patch");
  });

  it("a subagent on an OpenAI model under an Anthropic parent edits with apply_patch", async () => {
    let anthropicCalls = 0;
    server = await startProviderServer((request) => {
      if (request.family !== "anthropic") return "sub done";
      return anthropicCalls++ === 0
        ? {
            toolCalls: [
              {
                name: "Agent",
                input: { subagent_type: "patcher", description: "patch", prompt: "Patch it" },
                id: "toolu_a",
              },
            ],
          }
        : "parent done";
    });
    const messages: Message[] = [];
    for await (const m of summon("go", {
      model: "anthropic:claude-sonnet-4-5",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      cwd: tempDir(),
      persistSession: false,
      maxRetries: 0,
      permissionMode: "bypassPermissions",
      agents: {
        patcher: {
          description: "Patches",
          prompt: "You patch files",
          model: "openai:gpt-5.1",
          tools: ["Read", "Edit"],
        },
      },
    }))
      messages.push(m);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "parent done" });
    const parent = offeredTools(server.requests[0]!);
    const sub = offeredTools(server.requests.find((r) => r.family === "openai-responses")!);
    expect(parent).toContain("Edit");
    expect(parent).not.toContain("apply_patch");
    // Its definition names Edit: the patch tool stands in for it on this model.
    expect(sub).toEqual(["Read", "apply_patch"]);
  });

  it("a user's toolProfile entry wins over the defaults, and false offers both", async () => {
    server = await startProviderServer(["a", "b"]);
    const cwd = tempDir();
    const base = {
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      cwd,
      persistSession: false,
      maxRetries: 0,
    } as const;
    for await (const _ of summon("x", {
      ...base,
      model: "anthropic:claude-sonnet-4-5",
      toolProfile: { "anthropic:*": "apply_patch" },
    }));
    for await (const _ of summon("x", { ...base, model: "anthropic:claude-sonnet-4-5", toolProfile: false }));
    expect(offeredTools(server.requests[0]!)).toContain("apply_patch");
    expect(offeredTools(server.requests[0]!)).not.toContain("Edit");
    expect(offeredTools(server.requests[1]!)).toEqual(expect.arrayContaining(["apply_patch", "Edit", "Write"]));
  });
});
