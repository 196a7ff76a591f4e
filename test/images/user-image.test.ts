/**
 * A user message carrying an image (as the AI SDK's user content: an image part or a file part —
 * the live-session input puts them there; here a test plugin does, at the ASSEMBLE stage): a model
 * that sees images gets it in its wire format; a text-only model ends the run before anything is
 * sent, with an error naming the model and the fix. A call that is not a turn (a summary) to a
 * text-only model gets a note in place of the image instead.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ModelMessage, UserModelMessage } from "ai";
import { definePlugin, summon, type SummonOptions } from "ubiquity";
import { REQUEST_STAGE, type ModelRequest } from "ubiquity/plugin";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { guardImages } from "../../plugins/model/image-guard";
import type { ModelResolvedOptions } from "../../plugins/model/options";
import { collect, resultOf } from "../helpers/collect";
import { modelLayer } from "../model/helpers";
import { png } from "./fixtures";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const image = png(5, 5);
const base64 = image.toString("base64");
type Form = "file" | "image";
const imagePart = (form: Form) =>
  form === "file"
    ? ({ type: "file", mediaType: "image/png", data: { type: "data", data: base64 } } as const)
    : ({ type: "image", image: base64, mediaType: "image/png" } as const);

/** Puts an image into the first user message of every turn request (where live input puts one). */
const userImage = (form: Form) =>
  definePlugin(() => ({
    name: "test:user-image",
    apply(kernel) {
      kernel.hooks.model.request.tap({ name: "test:user-image", stage: REQUEST_STAGE.ASSEMBLE }, (request) => {
        const messages = request.messages.map((m, i): ModelMessage => {
          if (m.role !== "user" || i !== request.messages.findIndex((x) => x.role === "user")) return m;
          const text = typeof m.content === "string" ? m.content : "what is in this picture?";
          return { role: "user", content: [{ type: "text", text }, imagePart(form)] } satisfies UserModelMessage;
        });
        return { ...request, messages };
      });
    },
  }))();

async function send(model: string, form: Form, extra: Partial<SummonOptions> = {}) {
  server = await startProviderServer(["A grey square."]);
  const options: SummonOptions = {
    ...modelLayer(),
    tools: [],
    model,
    apiKey: "k",
    providerSettings: { baseURL: server.baseURL },
    ...extra,
  };
  options.plugins = [...(options.plugins ?? []), userImage(form)];
  return resultOf(await collect(summon("what is in this picture?", options)));
}

describe.each(["file", "image"] as const)("a user image as a %s part", (form) => {
  it("to a text-only model: a clear error naming the model, and the server saw no request", async () => {
    const result = await send("openai.chat:gpt-3.5-turbo", form);
    expect(result.isError).toBe(true);
    expect(result.subtype).toBe("error_during_execution");
    expect(result.result).toContain("openai:gpt-3.5-turbo does not accept images");
    expect(result.result).toContain("nothing was sent");
    expect(result.result).toContain('modelCapabilities: { "openai:gpt-3.5-turbo": { images: true } }');
    expect(server!.requests).toHaveLength(0);
  });

  it("to Anthropic: an image block with the base64 and media type", async () => {
    const result = await send("anthropic:claude-sonnet-4-5", form);
    expect(result.isError, result.result).toBe(false);
    const body = server!.requests[0]!.body as { messages: { role: string; content: unknown[] }[] };
    expect(body.messages[0]!.content).toContainEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: base64 },
    });
  });

  it("to OpenAI Responses: an input_image with the data URL", async () => {
    const result = await send("openai:gpt-4o", form);
    expect(result.isError, result.result).toBe(false);
    expect(JSON.stringify(server!.requests[0]!.body)).toContain(JSON.stringify(`data:image/png;base64,${base64}`));
  });
});

describe("the scripted model in tests", () => {
  it("takes no images by default and takes them when modelCapabilities says so", async () => {
    const run = (extra: Partial<SummonOptions>) => {
      const model = scriptedModel(["seen"]);
      return collect(
        summon("look", {
          presets: [],
          plugins: [...modelLayer().plugins, userImage("file")],
          tools: [],
          model,
          ...extra,
        }),
      ).then((m) => ({ model, result: resultOf(m) }));
    };
    const refused = await run({});
    expect(refused.result.result).toContain("scripted:scripted does not accept images");
    expect(refused.model.requests).toHaveLength(0);
    const accepted = await run({ modelCapabilities: { "scripted:scripted": { images: true } } });
    expect(accepted.result.isError, accepted.result.result).toBe(false);
    expect(JSON.stringify(accepted.model.requests[0]!.prompt)).toContain(base64);
  });
});

describe("guardImages outside a turn", () => {
  it("replaces a user image by a note for a summary call to a text-only model (the run goes on)", () => {
    const request = {
      purpose: "compact",
      model: scriptedModel([]),
      modelLabel: "openai:gpt-3.5-turbo",
      messages: [{ role: "user", content: [{ type: "text", text: "look" }, imagePart("file")] }],
    } as unknown as ModelRequest;
    const out = guardImages(request, {} as unknown as ModelResolvedOptions);
    expect(JSON.stringify(out.messages)).not.toContain(base64);
    expect(out.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "text", text: "[image not sent: openai:gpt-3.5-turbo does not accept images]" },
      ],
    });
  });
});

describe("guardImages on the OpenAI chat format", () => {
  const filePart = { type: "file" as const, mediaType: "image/png", data: { type: "data" as const, data: base64 } };
  const toolImage = (id: string): ModelMessage[] => [
    { role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "Read", input: {} }] },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: id,
          toolName: "Read",
          output: { type: "content", value: [{ type: "text", text: "an image" }, filePart] },
        },
      ],
    },
  ];
  const chat = (messages: ModelMessage[]) =>
    guardImages(
      {
        purpose: "turn",
        model: scriptedModel([], { provider: "groq.chat" }),
        modelLabel: "groq:llama-4-scout",
        messages,
      } as unknown as ModelRequest,
      {} as unknown as ModelResolvedOptions,
    ).messages;

  it("moves the images into the next prompt when one follows the tool messages (turns keep alternating)", () => {
    const out = chat([{ role: "user", content: "look" }, ...toolImage("c1"), { role: "user", content: "and now?" }]);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(out[3]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "The image from the Read result c1:" },
        filePart,
        { type: "text", text: "and now?" },
      ],
    });
    expect(JSON.stringify(out[2])).not.toContain(base64);
  });

  it("adds a user message after the last tool messages, and leaves a request without tool images as it was", () => {
    const out = chat([{ role: "user", content: "look" }, ...toolImage("c1")]);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    const plain: ModelMessage[] = [{ role: "user", content: "hi" }];
    expect(chat(plain)).toBe(plain);
  });
});
