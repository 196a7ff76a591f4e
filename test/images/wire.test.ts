/**
 * Images reach the provider in its own wire format, through the real @ai-sdk packages against
 * the fake provider servers: a Read of an image file arrives as an image in the OpenAI Responses
 * request, in the Anthropic request and (moved to a user message, the only place that format
 * carries one) in the OpenAI chat request; a text-only model gets a text result and no byte of
 * the image. The stream and the transcript-facing `tool_result` never carry the base64.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summon, type Message, type SummonOptions } from "ubiquity";
import { ReadTool } from "../../plugins/tool-read/index";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { modelLayer } from "../model/helpers";
import { jpeg, png } from "./fixtures";

const temp = tempDirs();
let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A two-turn run against the fake server: the model calls Read on `file`, then answers. */
async function readThrough(model: string, file: string, bytes: Buffer, extra: Partial<SummonOptions> = {}) {
  const cwd = temp("ubq-images-");
  writeFileSync(join(cwd, file), bytes);
  server = await startProviderServer([
    { toolCalls: [{ name: "Read", input: { file_path: file }, id: "call_1" }] },
    "I see it.",
  ]);
  const messages: Message[] = await collect(
    summon("look at the file", {
      ...modelLayer(),
      tools: [new ReadTool()],
      cwd,
      model,
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      ...extra,
    }),
  );
  return {
    messages,
    result: resultOf(messages),
    second: JSON.stringify(server.requests[1]?.body ?? null),
    base64: bytes.toString("base64"),
  };
}

/** Every object in a parsed body that satisfies `match`. */
function find(value: unknown, match: (o: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap((v) => find(v, match));
  if (typeof value !== "object" || value === null) return [];
  const o = value as Record<string, unknown>;
  return [...(match(o) ? [o] : []), ...Object.values(o).flatMap((v) => find(v, match))];
}

describe("Read of an image, to a model that sees images", () => {
  it("OpenAI Responses: the function_call_output carries an input_image with the PNG's base64 data URL", async () => {
    const image = png(3, 2);
    const r = await readThrough("openai:gpt-4o", "shot.png", image);
    expect(r.result.isError, r.result.result).toBe(false);
    expect(server!.requests.map((q) => q.family)).toEqual(["openai-responses", "openai-responses"]);
    const outputs = find(server!.requests[1]!.body, (o) => o.type === "function_call_output");
    expect(outputs).toHaveLength(1);
    const images = find(outputs[0], (o) => o.type === "input_image");
    expect(images).toEqual([expect.objectContaining({ image_url: `data:image/png;base64,${r.base64}` })]);
    expect(find(outputs[0], (o) => o.type === "input_text")[0]!.text).toContain("PNG image, 3×2 pixels");
    // The stream (and so the transcript) keeps the text and the metadata, not the image.
    const [result] = ofType(r.messages, "tool_result");
    expect(result!.output.content).toContain("is an image (PNG image, 3×2 pixels, ");
    expect(JSON.stringify(r.messages)).not.toContain(r.base64);
    expect(result!.output.metadata).toMatchObject({
      sent: true,
      image: { mediaType: "image/png", width: 3, height: 2, bytes: image.length },
    });
  });

  it("Anthropic: the tool_result block carries an image block with base64 source and media type", async () => {
    const image = jpeg(640, 480);
    const r = await readThrough("anthropic:claude-sonnet-4-5", "photo", image); // no extension: the bytes say JPEG
    expect(r.result.isError, r.result.result).toBe(false);
    const results = find(server!.requests[1]!.body, (o) => o.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(find(results[0], (o) => o.type === "image")).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: r.base64 } },
    ]);
    expect(JSON.stringify(results[0])).toContain("JPEG image, 640×480 pixels");
  });

  it("OpenAI chat format: the image moves to a user message after the tool message (the tool message stays text)", async () => {
    const r = await readThrough("openai.chat:gpt-4o", "shot.png", png(4, 4));
    expect(r.result.isError, r.result.result).toBe(false);
    const body = server!.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    const roles = body.messages.map((m) => m.role);
    expect(roles.slice(-3)).toEqual(["assistant", "tool", "user"]);
    const tool = body.messages.at(-2)!;
    expect(JSON.stringify(tool.content)).not.toContain(r.base64);
    expect(JSON.stringify(tool.content)).toContain("the image follows in the next user message");
    expect(find(body.messages.at(-1), (o) => o.type === "image_url")).toEqual([
      { type: "image_url", image_url: { url: `data:image/png;base64,${r.base64}` } },
    ]);
  });
});

describe.each([
  {
    model: "google:gemini-2.5-flash",
    match: (o: Record<string, unknown>, b64: string) => (o.inlineData as { data?: string } | undefined)?.data === b64,
  },
  {
    model: "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0",
    settings: { region: "us-east-1" },
    match: (o: Record<string, unknown>, b64: string) =>
      JSON.stringify(o.image) === JSON.stringify({ format: "png", source: { bytes: b64 } }),
  },
  {
    model: "xai:grok-4",
    match: (o: Record<string, unknown>, b64: string) =>
      o.type === "input_image" && o.image_url === `data:image/png;base64,${b64}`,
  },
  {
    model: "mistral:pixtral-large-latest",
    match: (o: Record<string, unknown>, b64: string) =>
      o.type === "image_url" && o.image_url === `data:image/png;base64,${b64}`,
  },
])("Read of an image, other wire formats: $model", ({ model, settings, match }) => {
  it("arrives as an image part of that format (base64 once, never inside a JSON string)", async () => {
    const cwd = temp("ubq-images-");
    const bytes = png(2, 2);
    writeFileSync(join(cwd, "a.png"), bytes);
    server = await startProviderServer([
      { toolCalls: [{ name: "Read", input: { file_path: "a.png" }, id: "call_1" }] },
      "ok",
    ]);
    const messages = await collect(
      summon("x", {
        ...modelLayer(),
        tools: [new ReadTool()],
        cwd,
        model,
        apiKey: "k",
        providerSettings: { baseURL: server.baseURL, ...settings },
      }),
    );
    expect(resultOf(messages).isError, resultOf(messages).result).toBe(false);
    const b64 = bytes.toString("base64");
    expect(find(server!.requests[1]!.body, (o) => match(o, b64))).toHaveLength(1);
    expect(JSON.stringify(server!.requests[1]!.body).split(b64)).toHaveLength(2);
  });
});

describe("Read of an image, to a model that does not see images", () => {
  it.each([
    ["openai.chat:gpt-3.5-turbo", "openai-chat"],
    ["deepseek:deepseek-chat", "openai-chat"],
  ])("%s: a text result naming the image and the model; nothing binary is sent", async (model) => {
    const r = await readThrough(model, "shot.png", png(800, 600));
    expect(r.result.isError, r.result.result).toBe(false);
    const [result] = ofType(r.messages, "tool_result");
    const label = model.replace(".chat", "");
    expect(result!.output).toMatchObject({
      isError: false,
      metadata: { sent: false, image: { width: 800, height: 600 } },
    });
    expect(result!.output.content).toContain(`shot.png is an image (PNG image, 800×600 pixels`);
    expect(result!.output.content).toContain(`The model of this run (${label}) cannot see images`);
    expect(r.second).toContain("cannot see images");
    expect(r.second).not.toContain(r.base64);
    expect(r.second).not.toContain("base64");
  });

  it("modelCapabilities overrides the table: a model declared image-capable gets the image", async () => {
    const r = await readThrough("deepseek:deepseek-chat", "shot.png", png(2, 2), {
      modelCapabilities: { "deepseek:*": { images: true } },
    });
    expect(r.second).toContain(r.base64);
  });
});
