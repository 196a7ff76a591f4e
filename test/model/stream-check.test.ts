/** Which requests ask for a streamed answer (the stream check only judges those). */
import { describe, expect, it } from "vitest";
import { asksForStream } from "../../plugins/model/index";

const post = (body: string) => asksForStream("https://api.example/v1/messages", { method: "POST", body });

describe("asksForStream", () => {
  it("reads the top-level stream flag of the body, whatever the body's end", () => {
    const conversation = {
      model: "m",
      messages: [{ role: "user", content: 'say "stream":true} and {"stream":true}' }],
    };
    expect(post(JSON.stringify({ ...conversation, stream: true }))).toBe(true);
    expect(post(JSON.stringify({ stream: true }))).toBe(true);
    expect(post(JSON.stringify({ ...conversation, stream: true, stream_options: { include_usage: true } }))).toBe(true);
    expect(post(JSON.stringify({ ...conversation, stream: false }))).toBe(false);
    expect(post(JSON.stringify({ stream: true, ...conversation, stream2: 1 }))).toBe(true);
    expect(post(JSON.stringify({ ...conversation, options: { stream: true } }))).toBe(false);
    expect(post(JSON.stringify({ ...conversation, stream: "true" }))).toBe(false);
    expect(post(JSON.stringify(conversation))).toBe(false);
    expect(post('{"stream":true')).toBe(false); // not JSON
  });

  it("takes the streaming endpoints by their URL", () => {
    expect(asksForStream("https://g.example/v1/models/x:streamGenerateContent?alt=sse", { body: "{}" })).toBe(true);
    expect(asksForStream("https://b.example/model/x/converse-stream", undefined)).toBe(true);
    expect(asksForStream("https://b.example/model/x/converse", undefined)).toBe(false);
  });
});
