/** supportsImages: the known families (also behind gateways), the text-only members, and modelCapabilities. */
import { describe, expect, it } from "vitest";
import { supportsImages } from "ubiquity/plugins/model";

describe("supportsImages", () => {
  it.each([
    "openai:gpt-4o",
    "openai:gpt-4o-mini",
    "openai:gpt-4.1",
    "openai:gpt-5",
    "openai:gpt-5-mini",
    "openai:o1",
    "openai:o3",
    "openai:o4-mini",
    "anthropic:claude-3-haiku-20240307",
    "anthropic:claude-3-5-sonnet-latest",
    "anthropic:claude-sonnet-4-5",
    "anthropic:claude-opus-4-1",
    "google:gemini-2.5-flash",
    "google-vertex:gemini-2.5-pro",
    "xai:grok-4",
    "xai:grok-2-vision-1212",
    "mistral:pixtral-large-latest",
    "groq:meta-llama/llama-4-scout-17b-16e-instruct",
    "openrouter:openai/gpt-4o",
    "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0",
    "bedrock:amazon.nova-pro-v1:0",
    "ollama:llava",
    "alibaba:qwen-vl-max",
  ])("%s takes images", (label) => expect(supportsImages(label)).toBe(true));

  it.each([
    "openai:gpt-3.5-turbo",
    "openai:o1-mini",
    "openai:o3-mini",
    "deepseek:deepseek-chat",
    "groq:llama-3.3-70b-versatile",
    "cohere:command-r-plus",
    "mistral:mistral-large-latest",
    "ollama:llama3.3",
    "azure:my-deployment",
    "test",
    "scripted:scripted",
  ])("%s does not", (label) => expect(supportsImages(label)).toBe(false));

  it("modelCapabilities wins: an exact label, else the longest matching prefix pattern", () => {
    const caps = {
      "azure:*": { images: true },
      "azure:text-*": { images: false },
      "openai:gpt-4o": { images: false },
      test: { images: true },
    };
    expect(supportsImages("azure:my-deployment", caps)).toBe(true);
    expect(supportsImages("azure:text-embedder", caps)).toBe(false);
    expect(supportsImages("openai:gpt-4o", caps)).toBe(false);
    expect(supportsImages("test", caps)).toBe(true);
    expect(supportsImages("openai:gpt-5", caps)).toBe(true); // untouched by the others
    expect(supportsImages("azure:x", { "azure:*": {} })).toBe(false); // an entry without `images` leaves the table's answer
  });
});
