/**
 * What each provider's server answers to a request that used its hosted search, in its own
 * stream format (taken from the shapes the provider packages parse): the provider-executed
 * search call, its results, and a summary citing them, with usage. Played by the fake provider
 * server as a raw body, so the real provider package reads it.
 */
import type { FakeTurn } from "ubiquity/testing";

const sse = (events: { event?: string; data: unknown }[]) =>
  events.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`).join("");

/** Usage of every search answer below. */
export const SEARCH_USAGE = { inputTokens: 700, outputTokens: 60 };

/** Anthropic Messages: server_tool_use web_search, web_search_tool_result, text. */
export function anthropicSearchAnswer(query: string): FakeTurn {
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const add = (type: string, data: Record<string, unknown> = {}) =>
    events.push({ event: type, data: { type, ...data } });
  add("message_start", {
    message: {
      id: "msg_search",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: SEARCH_USAGE.inputTokens, output_tokens: 1 },
    },
  });
  add("content_block_start", {
    index: 0,
    content_block: { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: {} },
  });
  add("content_block_delta", {
    index: 0,
    delta: { type: "input_json_delta", partial_json: JSON.stringify({ query }) },
  });
  add("content_block_stop", { index: 0 });
  add("content_block_start", {
    index: 1,
    content_block: {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_01",
      content: [
        {
          type: "web_search_result",
          url: "https://docs.example.com/guide",
          title: "The Guide",
          encrypted_content: "enc1",
          page_age: "March 3, 2026",
        },
        {
          type: "web_search_result",
          url: "https://blocked.example.net/post",
          title: "A Post",
          encrypted_content: "enc2",
          page_age: null,
        },
      ],
    },
  });
  add("content_block_stop", { index: 1 });
  add("content_block_start", { index: 2, content_block: { type: "text", text: "" } });
  add("content_block_delta", { index: 2, delta: { type: "text_delta", text: "The guide explains the SDK." } });
  add("content_block_stop", { index: 2 });
  add("message_delta", {
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: SEARCH_USAGE.outputTokens, server_tool_use: { web_search_requests: 1 } },
  });
  add("message_stop");
  return { fault: "raw", contentType: "text/event-stream", body: sse(events) };
}

/** OpenAI Responses: a web_search_call item with its sources, and a message with a url_citation. */
export function openaiSearchAnswer(query: string): FakeTurn {
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const add = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  const response = { id: "resp_search", object: "response", created_at: 1_700_000_000, model: "gpt-5" };
  const search = {
    type: "web_search_call",
    id: "ws_1",
    status: "completed",
    action: { type: "search", query, sources: [{ type: "url", url: "https://docs.example.com/guide" }] },
  };
  const annotation = {
    type: "url_citation",
    start_index: 0,
    end_index: 9,
    url: "https://news.example.org/story",
    title: "The Story",
  };
  const message = {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "The guide explains the SDK.", annotations: [annotation] }],
  };
  add("response.created", { response: { ...response, status: "in_progress", output: [] } });
  add("response.output_item.added", {
    output_index: 0,
    item: { type: "web_search_call", id: "ws_1", status: "in_progress" },
  });
  add("response.output_item.done", { output_index: 0, item: search });
  add("response.output_item.added", { output_index: 1, item: { ...message, status: "in_progress", content: [] } });
  add("response.output_text.delta", {
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: "The guide explains the SDK.",
  });
  add("response.output_text.annotation.added", {
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    annotation_index: 0,
    annotation,
  });
  add("response.output_item.done", { output_index: 1, item: message });
  const usage = {
    input_tokens: SEARCH_USAGE.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: SEARCH_USAGE.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: SEARCH_USAGE.inputTokens + SEARCH_USAGE.outputTokens,
  };
  add("response.completed", {
    response: { ...response, status: "completed", output: [search, message], usage, incomplete_details: null },
  });
  return { fault: "raw", contentType: "text/event-stream", body: sse(events) };
}

/** Google Gemini: text, then the grounding metadata of its search. */
export function googleSearchAnswer(query: string): FakeTurn {
  const candidate = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    content: { role: "model", parts },
    index: 0,
    ...extra,
  });
  const grounding = {
    webSearchQueries: [query],
    groundingChunks: [
      { web: { uri: "https://docs.example.com/guide", title: "docs.example.com" } },
      { web: { uri: "https://other.example.org/page", title: "other.example.org" } },
    ],
  };
  const usageMetadata = {
    promptTokenCount: SEARCH_USAGE.inputTokens,
    candidatesTokenCount: SEARCH_USAGE.outputTokens,
    totalTokenCount: SEARCH_USAGE.inputTokens + SEARCH_USAGE.outputTokens,
  };
  const events = [
    {
      data: {
        candidates: [candidate([{ text: "The guide explains the SDK." }])],
        modelVersion: "gemini-2.5-flash",
        responseId: "r1",
      },
    },
    {
      data: {
        candidates: [candidate([{ text: "" }], { finishReason: "STOP", groundingMetadata: grounding })],
        usageMetadata,
        modelVersion: "gemini-2.5-flash",
        responseId: "r1",
      },
    },
  ];
  return { fault: "raw", contentType: "text/event-stream", body: sse(events) };
}

/** Anthropic Messages: the search tool failed (web_search_tool_result_error). */
export function anthropicSearchError(code: string): FakeTurn {
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const add = (type: string, data: Record<string, unknown> = {}) =>
    events.push({ event: type, data: { type, ...data } });
  add("message_start", {
    message: {
      id: "msg_err",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 1 },
    },
  });
  add("content_block_start", {
    index: 0,
    content_block: { type: "server_tool_use", id: "srvtoolu_02", name: "web_search", input: { query: "q" } },
  });
  add("content_block_stop", { index: 0 });
  add("content_block_start", {
    index: 1,
    content_block: {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_02",
      content: { type: "web_search_tool_result_error", error_code: code },
    },
  });
  add("content_block_stop", { index: 1 });
  add("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } });
  add("message_stop");
  return { fault: "raw", contentType: "text/event-stream", body: sse(events) };
}
