import { describe, expect, it } from "vitest";
import { redactValue, secretsOf } from "ubiquity";

describe("redaction", () => {
  it("masks secret-named keys and known secret strings, not token counts", () => {
    const value = {
      apiKey: "sk-live-123456",
      maxTokens: 4096,
      maxThinkingTokens: 1024,
      usage: { cacheReadTokens: 10 },
      providerSettings: { headers: { "x-api-key": "abcd1234", Authorization: "Bearer zzzz" }, secretAccessKey: "aws-secret", region: "us-east-1" },
      note: "the key sk-live-123456 leaked into a message",
    };
    const out = redactValue(value, secretsOf({ apiKey: value.apiKey, providerSettings: value.providerSettings }));
    expect(out).toEqual({
      apiKey: "[redacted]",
      maxTokens: 4096,
      maxThinkingTokens: 1024,
      usage: { cacheReadTokens: 10 },
      providerSettings: { headers: { "x-api-key": "[redacted]", Authorization: "[redacted]" }, secretAccessKey: "[redacted]", region: "us-east-1" },
      note: "the key [redacted] leaked into a message",
    });
  });
});
