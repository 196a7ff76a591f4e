/**
 * What a newcomer's trial (zd, 2026-12-07: a developer who picked Ubiquity because it runs on any
 * model the AI SDK reaches — OpenAI's Responses and Chat APIs, Anthropic with caching and thinking,
 * Gemini, an OpenAI-compatible local server, a gateway — with a model per subagent, a cheap
 * compaction model, a fallback, prices for models the table does not know, reasoning per provider
 * and each model's cost in the result; the packed package in an empty project, fake servers on
 * 127.0.0.1 behind the real provider packages) met:
 * - an OpenAI-compatible server that sends no usage in its stream (one that ignores
 *   `stream_options.include_usage`, as older LM Studio, llama.cpp and proxies do) made every
 *   response read as 0 tokens: `totalCostUsd` was 0 with a price set ("free", where it is
 *   unknown), and `maxBudgetUsd` / `maxBudgetTokens` were never reached — the run spent on under a
 *   cap that counted nothing. Such a response is now unpriced (`null`, with a warning naming the
 *   cause), and the budget charges it its request's worst case;
 * - the result had no cost per model (`modelUsage` has tokens only; Claude's `costUSD` per model
 *   was "not known per model here"): `result.modelCostUsd` now has each model's USD (null when
 *   unknown), keyed as `modelUsage`, and `--message-format claude` prints it as `costUSD`;
 * - a local model without tool support (Ollama's "… does not support tools", vLLM without its
 *   tool-call flags) ended "HTTP 400: … does not support tools", naming no way on: the error now
 *   names the server flags and `availableTools: []` / `--tools ""`, which run it without tools; and
 *   one served without its tool-call parser wrote `{"name": "Glob", "arguments": …}` as its answer,
 *   which ended "success" on that text: a warning now says the server did not read it as a call;
 * - Anthropic's `overloaded_error` event inside a stream that had started with HTTP 200 (what its
 *   docs say to expect under load) ended the run at once: no retry and no `fallbackModel`, though
 *   the docs list 529 as retried and the AI SDK marks it retryable. It is now retried as a whole
 *   call, then failed over;
 * - `apiKey` (the models guide's `{ model: "groq:…", apiKey: process.env.MY_GROQ_KEY }`) went to every
 *   provider of the run: with an Anthropic `fallbackModel` or subagent, the Groq key was sent to
 *   Anthropic's API as `x-api-key` (and Anthropic's own key was not used, so the fallback failed
 *   too). A model on another provider now gets the run's credentials only when
 *   `providerSettings.baseURL` sends it to the same server; otherwise it reads its own variables.
 * The rest ran as the docs say: a subagent on Anthropic under an OpenAI main model, thinking
 * budgets and `reasoning` levels reaching OpenAI, Anthropic and Gemini in their own fields, a 429
 * with `Retry-After` then a 503 failing over to another provider, an unknown tool and malformed
 * tool-call JSON answered with an error result the model could read, and a 401's echoed key masked.
 * Noticed and left: malformed tool-call JSON reaches the model as "Invalid arguments for Glob: ✖
 * Invalid input: expected object, received string", and its call is replayed to it as `{}` (the
 * kernel's funnel, src/, owns both: "the arguments were not valid JSON" would serve a small model
 * better); a provider other than the run's model's still gets the run's non-credential
 * `providerSettings` (and with a shared `baseURL`, its own variables' key goes to that server).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withEnv } from "../helpers/env";
import { defineTool, openaiCompatible, summon, type Logger, type Message } from "ubiquity";
import { createModel } from "ubiquity/plugins/model";
import { startProviderServer } from "ubiquity/testing";
import { z } from "zod";
import { toClaudeMessage } from "../../runner/claude-messages";
import { tempDirs } from "../helpers/temp-dirs";

const tempDir = tempDirs();

type Result = Extract<Message, { type: "result" }>;

async function collect(run: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of run) out.push(m);
  return out;
}
const resultOf = (messages: Message[]): Result => messages.findLast((m): m is Result => m.type === "result")!;

/** A logger that keeps the warnings. */
function warnings(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const noop = () => {};
  return { lines, debug: noop, info: noop, error: noop, warn: (...a: unknown[]) => void lines.push(a.join(" ")) };
}

interface Raw {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
}
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const close of closers.splice(0)) await close();
});

/** A server on 127.0.0.1 whose answers are written by `answer` (each provider's own wire format, byte for byte). */
async function rawServer(
  answer: (res: ServerResponse, index: number, body: Record<string, unknown>) => void,
): Promise<Raw> {
  const requests: Raw["requests"] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text || "{}") as Record<string, unknown>;
    requests.push({ path: req.url ?? "", body });
    answer(res, requests.length - 1, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

/** An OpenAI chat-completions stream of `deltas`, ending with `finish` and, when given, a usage chunk. */
function chatStream(res: ServerResponse, deltas: Record<string, unknown>[], finish: string, usage?: object) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta: object, finishReason: string | null) => ({
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "local",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  for (const delta of deltas) res.write(`data: ${JSON.stringify(chunk(delta, null))}\n\n`);
  res.write(`data: ${JSON.stringify(chunk({}, finish))}\n\n`);
  if (usage) res.write(`data: ${JSON.stringify({ ...chunk({}, null), choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

const echo = defineTool({
  name: "Echo",
  description: "Echo the text",
  inputSchema: z.object({ text: z.string() }),
  isReadOnly: true,
  execute: async ({ text }) => text,
});

/** A local server that never reports usage: each answer calls Echo again, so only a cap ends the run. */
async function usagelessServer(): Promise<Raw> {
  return rawServer((res, i) =>
    chatStream(
      res,
      [
        {
          role: "assistant",
          tool_calls: [
            { index: 0, id: `t${i}`, type: "function", function: { name: "Echo", arguments: '{"text":"again"}' } },
          ],
        },
      ],
      "tool_calls",
    ),
  );
}

describe("a server that reports no usage", () => {
  it("is unpriced, not free: totalCostUsd and its model's cost are null, and a warning names the cause", async () => {
    const server = await rawServer((res) => chatStream(res, [{ role: "assistant", content: "hello" }], "stop"));
    const logger = warnings();
    const result = resultOf(
      await collect(
        summon("hi", {
          model: openaiCompatible("qwen2.5-coder:7b", { baseURL: server.url }),
          modelPricing: { "qwen2.5-coder": { input: 0.2, output: 0.6 } },
          persistSession: false,
          logger,
        }),
      ),
    );
    expect(result.subtype).toBe("success");
    // The request asked for usage; the server sent none.
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(result.totalCostUsd).toBeNull();
    expect(result.modelCostUsd).toEqual({ "openai-compatible:qwen2.5-coder:7b": null });
    expect(logger.lines.join("\n")).toMatch(
      /openai-compatible:qwen2\.5-coder:7b answered without reporting its token usage: its cost is unknown.*include_usage/,
    );
  });

  it("is charged its worst case under maxBudgetTokens, so the cap still stops the run", async () => {
    const server = await usagelessServer();
    const result = resultOf(
      await collect(
        summon("echo until stopped", {
          model: openaiCompatible("local", { baseURL: server.url }),
          tools: [echo],
          maxTokens: 1000,
          maxBudgetTokens: 5000, // each request's worst case is about 1,800 tokens
          maxTurns: 8,
          persistSession: false,
          logger: warnings(),
        }),
      ),
    );
    // Counted as 0 tokens, the run went on to maxTurns (8 requests) under a 5,000-token cap.
    expect(result.subtype).toBe("error_max_budget_tokens");
    expect(server.requests.length).toBe(2);
    expect(result.budget!.spentTokens).toBeGreaterThan(3000);
  });

  it("is charged its worst case under maxBudgetUsd too", async () => {
    const server = await usagelessServer();
    const result = resultOf(
      await collect(
        summon("echo until stopped", {
          model: openaiCompatible("local", { baseURL: server.url }),
          modelPricing: { local: { input: 1, output: 1 } }, // $1 per million: about $0.0018 a request here
          tools: [echo],
          maxTokens: 1000,
          maxBudgetUsd: 0.005,
          maxTurns: 8,
          persistSession: false,
          logger: warnings(),
        }),
      ),
    );
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(server.requests.length).toBe(2);
    expect(result.totalCostUsd).toBeNull();
  });
});

describe("each model's cost in the result", () => {
  it("modelCostUsd has every model that answered (a subagent's on another provider too), null when unpriced", async () => {
    // The main model delegates to the reviewer, which answers; then the main model answers.
    const go = async (modelPricing: Record<string, { input: number; output: number }>) => {
      const server = await startProviderServer((request, i) =>
        i === 0
          ? { toolCalls: [{ name: "Agent", input: { subagent_type: "reviewer", description: "r", prompt: "review" } }] }
          : { text: `answer ${request.family}`, usage: { inputTokens: 1_000_000, outputTokens: 100_000 } },
      );
      closers.push(() => server.close());
      return resultOf(
        await collect(
          summon("go", {
            model: "openai:gpt-main",
            apiKey: "test-key",
            providerSettings: { baseURL: server.baseURL },
            agents: { reviewer: { description: "Reviews", prompt: "Review.", model: "anthropic:claude-sub" } },
            modelPricing,
            marketPricing: false,
            persistSession: false,
          }),
        ),
      );
    };
    const priced = await go({ "gpt-main": { input: 1, output: 10 }, "claude-sub": { input: 3, output: 15 } });
    expect(priced.subtype).toBe("success");
    // gpt-main: 10+5 tokens, then 1M in and 100k out: 1 + 1 = $2.00014; claude-sub: 3 + 1.5 = $4.5.
    expect(priced.modelCostUsd!["openai:gpt-main"]).toBeCloseTo(2.00006, 5);
    expect(priced.modelCostUsd!["anthropic:claude-sub"]).toBeCloseTo(4.5, 6);
    expect(Object.keys(priced.modelCostUsd!).sort()).toEqual(Object.keys(priced.modelUsage).sort());
    expect(priced.totalCostUsd).toBeCloseTo(priced.modelCostUsd!["openai:gpt-main"]! + 4.5, 9);
    // Claude's result line carries it as costUSD.
    const claude = toClaudeMessage(priced) as { modelUsage: Record<string, { costUSD?: number | null }> };
    expect(claude.modelUsage["anthropic:claude-sub"]!.costUSD).toBeCloseTo(4.5, 6);

    const partly = await go({ "gpt-main": { input: 1, output: 10 } });
    expect(partly.totalCostUsd).toBeNull();
    expect(partly.modelCostUsd!["anthropic:claude-sub"]).toBeNull();
    expect(partly.modelCostUsd!["openai:gpt-main"]).toBeCloseTo(2.00006, 5);
  });
});

describe("a local model without tool support", () => {
  it("ends with an error naming the way on, and availableTools: [] runs it without tools", async () => {
    const server = await rawServer((res, _i, body) => {
      if (body.tools) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "registry.ollama.ai/library/gemma:2b does not support tools" } }));
        return;
      }
      chatStream(res, [{ role: "assistant", content: "hello without tools" }], "stop", {
        prompt_tokens: 12,
        completion_tokens: 3,
      });
    });
    const model = openaiCompatible("gemma:2b", { baseURL: server.url });
    const failed = resultOf(await collect(summon("hi", { model, persistSession: false })));
    expect(failed.isError).toBe(true);
    expect(failed.result).toContain("does not support tools");
    expect(failed.result).toMatch(/serve a model with tool calling .*--enable-auto-tool-choice.*availableTools: \[\]/);

    const plain = resultOf(await collect(summon("hi", { model, availableTools: [], persistSession: false })));
    expect(plain.subtype).toBe("success");
    expect(plain.result).toBe("hello without tools");
  });
});

describe("a local model that writes its tool call as text", () => {
  it("is not run, and a warning says the server did not read it as a call and how to serve the model", async () => {
    const written = [
      '{"name": "Glob", "arguments": {"pattern": "*.js"}}',
      '<tool_call>\n{"name": "Glob", "arguments": {"pattern": "*.js"}}\n</tool_call>',
    ];
    for (const text of written) {
      const server = await rawServer((res) =>
        chatStream(res, [{ role: "assistant", content: text }], "stop", { prompt_tokens: 50, completion_tokens: 9 }),
      );
      const logger = warnings();
      const messages = await collect(
        summon("list the js files", {
          model: openaiCompatible("qwen2.5-coder-7b-instruct", { baseURL: server.url }),
          persistSession: false,
          logger,
        }),
      );
      expect(messages.some((m) => m.type === "tool_use")).toBe(false);
      expect(resultOf(messages).result).toBe(text);
      expect(logger.lines.join("\n")).toMatch(
        /openai-compatible:qwen2\.5-coder-7b-instruct wrote a call of Glob as text instead of calling it: its server did not read it as a tool call.*--tool-call-parser/,
      );
    }
  });
});

/** An Anthropic messages stream: "Hel", then (when `overloaded`) the overloaded_error event Anthropic sends mid-stream, else "lo" and the end. */
function anthropicStream(res: ServerResponse, overloaded: boolean) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const event = (name: string, data: object) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  event("message_start", {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } });
  if (overloaded) {
    event("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    res.end();
    return;
  }
  event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } });
  event("content_block_stop", { type: "content_block_stop", index: 0 });
  event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } });
  event("message_stop", { type: "message_stop" });
  res.end();
}

describe("Anthropic's overloaded_error inside a started stream", () => {
  const run = (baseURL: string, extra: Record<string, unknown>) =>
    collect(
      summon("hi", {
        model: "anthropic:claude-sonnet-4-5",
        apiKey: "sk-ant-test",
        providerSettings: { baseURL },
        retryMaxWaitMs: 1,
        tools: [],
        persistSession: false,
        ...extra,
      }),
    );

  it("is retried as a whole call", async () => {
    const server = await rawServer((res, i) => anthropicStream(res, i === 0));
    const result = resultOf(await run(server.url, {}));
    expect(result.subtype).toBe("success");
    expect(result.result).toBe("Hello");
    expect(server.requests.length).toBe(2);
  });

  it("fails over to fallbackModel when the retries are spent", async () => {
    const server = await rawServer((res, _i, body) => anthropicStream(res, body.model === "claude-sonnet-4-5"));
    const messages = await run(server.url, { maxRetries: 1, fallbackModel: "anthropic:claude-haiku-4-5" });
    const result = resultOf(messages);
    expect(result.subtype).toBe("success");
    expect(server.requests.map((r) => r.body.model)).toEqual([
      "claude-sonnet-4-5",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
    ]);
    expect(messages.filter((m) => m.type === "assistant").map((m) => m.model)).toEqual(["anthropic:claude-haiku-4-5"]);
  });
});

describe("apiKey with models of several providers", () => {
  it("goes to the run's model's provider only: the Anthropic fallback and subagent send Anthropic's own key", async () => {
    // The local server (the run's model, keyed by apiKey) delegates once, then fails with 503s.
    const local = await startProviderServer((_request, i) =>
      i === 0
        ? { toolCalls: [{ name: "Agent", input: { subagent_type: "reviewer", description: "r", prompt: "review" } }] }
        : { status: 503 },
    );
    const anthropic = await startProviderServer(() => "answered by anthropic");
    closers.push(
      () => local.close(),
      () => anthropic.close(),
    );
    const result = await withEnv(
      {
        OPENAI_COMPATIBLE_BASE_URL: local.baseURL,
        ANTHROPIC_BASE_URL: anthropic.baseURL,
        ANTHROPIC_API_KEY: "sk-ant-from-env-123456",
      },
      async () =>
        resultOf(
          await collect(
            summon("go", {
              model: "openai-compatible:qwen2.5-coder",
              apiKey: "local-server-key-123456",
              fallbackModel: "anthropic:claude-haiku-4-5",
              agents: { reviewer: { description: "Reviews", prompt: "Review.", model: "anthropic:claude-sonnet-4-5" } },
              maxRetries: 0,
              persistSession: false,
            }),
          ),
        ),
    );
    expect(result.subtype).toBe("success");
    expect(local.requests[0]!.headers.authorization).toBe("Bearer local-server-key-123456");
    // The subagent's request and the fallback's: each with Anthropic's key, never the local server's.
    expect(anthropic.requests.map((r) => r.body && (r.body as { model?: string }).model)).toEqual([
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
    ]);
    for (const request of anthropic.requests) {
      expect(request.headers["x-api-key"]).toBe("sk-ant-from-env-123456");
      expect(JSON.stringify(request.headers)).not.toContain("local-server-key");
    }
  });
});

describe("apiKey beside a constructed model", () => {
  it("goes to a fallback of the provider the constructed model names", async () => {
    const failing = await startProviderServer(() => ({ status: 503 }));
    const fallback = await startProviderServer(() => "answered by the fallback");
    closers.push(
      () => failing.close(),
      () => fallback.close(),
    );
    const model = await createModel("anthropic:claude-sonnet-4-5", {
      apiKey: "sk-ant-explicit-123456",
      providerSettings: { baseURL: failing.baseURL },
    });
    vi.stubEnv("ANTHROPIC_BASE_URL", fallback.baseURL);
    const result = resultOf(
      await collect(
        summon("hi", {
          model,
          apiKey: "sk-ant-explicit-123456",
          fallbackModel: "anthropic:claude-haiku-4-5",
          maxRetries: 0,
          tools: [],
          persistSession: false,
        }),
      ),
    );
    expect(result.result).toBe("answered by the fallback");
    expect(fallback.requests[0]!.headers["x-api-key"]).toBe("sk-ant-explicit-123456");
  });
});

describe("apiKey on a resumed session's model", () => {
  it("still goes to that model's provider when the run names no model", async () => {
    const server = await startProviderServer(() => "hi");
    closers.push(() => server.close());
    const sessionDir = tempDir();
    vi.stubEnv("ANTHROPIC_BASE_URL", server.baseURL);
    const first = resultOf(
      await collect(
        summon("one", {
          model: "anthropic:claude-haiku-4-5",
          apiKey: "sk-ant-explicit-123456",
          sessionDir,
          tools: [],
        }),
      ),
    );
    const again = resultOf(
      await collect(
        summon("two", { resume: first.sessionId, apiKey: "sk-ant-explicit-123456", sessionDir, tools: [] }),
      ),
    );
    expect(again.subtype).toBe("success");
    expect(server.requests.map((r) => r.headers["x-api-key"])).toEqual([
      "sk-ant-explicit-123456",
      "sk-ant-explicit-123456",
    ]);
  });
});

describe("textToolCall", () => {
  it("reads a whole-text call of a tool of the run, and nothing else", async () => {
    const { textToolCall } = await import("../../plugins/model/text-tool-call");
    const tools = ["Glob", "Read"];
    expect(textToolCall('```json\n{"name":"Read","arguments":{"file_path":"a"}}\n```', tools)).toBe("Read");
    expect(textToolCall('{"function":{"name":"Glob","parameters":{"pattern":"*"}}}', tools)).toBe("Glob");
    expect(textToolCall('{"name":"list_files","arguments":{}}', tools)).toBeUndefined();
    expect(textToolCall('Use {"name":"Glob","arguments":{}} to list them.', tools)).toBeUndefined();
    expect(textToolCall('{"name":"Glob"}', tools)).toBeUndefined();
  });
});
