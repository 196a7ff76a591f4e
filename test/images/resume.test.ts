/**
 * Sessions and images. A transcript keeps what the `tool_result` message holds — the text that
 * names the image and its metadata — never the base64, so a resumed session sees that text. A
 * compaction checkpoint stores the history as the model saw it, images included: resuming it to a
 * model that sees images sends them again; to a text-only model its tool-result images become a
 * note, and so do the images of earlier user messages (only the prompt being answered ends the run
 * with the usual clear error, before anything is sent; the session goes on after it).
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { summon, type Message, type SummonOptions, type UserInput } from "ubiquity";
import sessions, { type TranscriptRecord } from "ubiquity/plugins/sessions";
import { ReadTool } from "../../plugins/tool-read/index";
import { scriptedModel, type Script } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { readRecords, tempDirs, transcriptFiles } from "../sessions/helpers";
import { modelLayer } from "../model/helpers";
import { png } from "./fixtures";

const temp = tempDirs();
const image = png(6, 4);
const base64 = image.toString("base64");
const sees = { modelCapabilities: { "scripted:vision": { images: true } } };

function setup() {
  const sessionDir = temp();
  const cwd = temp("ubq-project-");
  writeFileSync(join(cwd, "shot.png"), image);
  const run = async (prompt: string, script: Script, modelId: string, extra: Partial<SummonOptions> = {}) => {
    const model = scriptedModel(script, { modelId });
    const messages: Message[] = await collect(
      summon(prompt, {
        presets: [],
        plugins: [...modelLayer().plugins, sessions()],
        tools: [new ReadTool()],
        sessionDir,
        cwd,
        model,
        ...sees,
        ...extra,
      }),
    );
    return { messages, model, result: resultOf(messages) };
  };
  return { sessionDir, run };
}

const readShot: Script = [
  { toolCalls: [{ toolName: "Read", input: { file_path: "shot.png" }, id: "c1" }] },
  "a small grey image",
];

describe("a session that read an image", () => {
  it("keeps the text and metadata in its transcript, not the image, and resumes on a text-only model", async () => {
    const s = setup();
    const first = await s.run("look at shot.png", readShot, "vision");
    expect(first.result.isError, first.result.result).toBe(false);
    expect(JSON.stringify(first.model.requests[1]!.prompt)).toContain(base64); // the model saw the image
    const [file] = transcriptFiles(s.sessionDir);
    const text = readFileSync(file!, "utf8");
    expect(text).not.toContain(base64);
    expect(text).toContain("shot.png is an image (PNG image, 6×4 pixels");

    const second = await s.run("and now?", ["still grey"], "text-only", { resume: first.result.sessionId });
    expect(second.result.isError, second.result.result).toBe(false);
    const prompt = JSON.stringify(second.model.requests[0]!.prompt);
    expect(prompt).toContain("shot.png is an image (PNG image, 6×4 pixels");
    expect(prompt).not.toContain(base64);
  });

  describe("with a compaction checkpoint holding images", () => {
    /** A first session, then a checkpoint record (as a summary writes one) whose history carries `extra` after the tool round trip. */
    async function checkpointed(extra: ModelMessage[] = []) {
      const s = setup();
      const first = await s.run("look at shot.png", readShot, "vision");
      const [file] = transcriptFiles(s.sessionDir);
      const last = readRecords(file!).at(-1)!;
      const history: ModelMessage[] = [
        { role: "user", content: "[summary] the user asked about shot.png" },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "Read", input: { file_path: "shot.png" } }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "Read",
              output: {
                type: "content",
                value: [
                  { type: "text", text: "shot.png is an image" },
                  { type: "file", mediaType: "image/png", data: { type: "data", data: base64 } },
                ],
              },
            },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "a small grey image" }] },
        ...extra,
      ];
      const message = {
        type: "system",
        subtype: "compact_boundary",
        tokensBefore: 9000,
        tokensAfter: 3000,
        trigger: "auto",
        uuid: "cb-1",
        sessionId: first.result.sessionId,
      };
      const record: TranscriptRecord = {
        uuid: "cb-1",
        parentUuid: last.uuid,
        sessionId: first.result.sessionId,
        type: "system",
        timestamp: new Date().toISOString(),
        cwd: last.cwd,
        message: message as TranscriptRecord["message"],
        history,
      };
      appendFileSync(file!, `${JSON.stringify(record)}\n`);
      return { s, sessionId: first.result.sessionId };
    }

    it("resumed on a model that sees images: the image is sent again", async () => {
      const { s, sessionId } = await checkpointed();
      const next = await s.run("again", ["ok"], "vision", { resume: sessionId });
      expect(next.result.isError, next.result.result).toBe(false);
      expect(JSON.stringify(next.model.requests[0]!.prompt)).toContain(base64);
    });

    it("resumed on a text-only model: the tool-result image becomes a note, the run goes on", async () => {
      const { s, sessionId } = await checkpointed();
      const next = await s.run("again", ["ok"], "text-only", { resume: sessionId });
      expect(next.result.isError, next.result.result).toBe(false);
      const prompt = JSON.stringify(next.model.requests[0]!.prompt);
      expect(prompt).not.toContain(base64);
      expect(prompt).toContain("[image not sent: scripted:text-only does not accept images]");
    });

    it("resumed on a text-only model with an earlier user image in it: the image becomes a note, the run goes on", async () => {
      const { s, sessionId } = await checkpointed([
        {
          role: "user",
          content: [
            { type: "text", text: "and this?" },
            { type: "image", image: base64, mediaType: "image/png" },
          ],
        },
        { role: "assistant", content: "a square" },
      ]);
      const next = await s.run("again", ["ok"], "text-only", { resume: sessionId });
      // Before, the session could not go on on that model: every prompt ended "does not accept images".
      expect(next.result.isError, next.result.result).toBe(false);
      const prompt = JSON.stringify(next.model.requests[0]!.prompt);
      expect(prompt).not.toContain(base64);
      expect(prompt).toContain("and this?");
      expect(prompt).toContain("[image not sent: scripted:text-only does not accept images]");
      expect(ofType(next.messages, "assistant")).toHaveLength(1);
    });
  });
});

describe("a prompt with an image refused by a text-only model", () => {
  it("ends that run naming the fix, and the resumed session answers the next prompt (the image kept out, as a note)", async () => {
    const s = setup();
    async function* withImage(): AsyncIterable<UserInput> {
      yield {
        type: "user",
        text: "what is this?",
        content: [{ type: "image", image: base64, mediaType: "image/png" }],
      };
    }
    const model = scriptedModel(["never asked"], { modelId: "text-only" });
    const refused = resultOf(
      await collect(
        summon(withImage(), {
          presets: [],
          plugins: [...modelLayer().plugins, sessions()],
          sessionDir: s.sessionDir,
          model,
        }),
      ),
    );
    expect(refused.isError).toBe(true);
    expect(refused.result).toContain("scripted:text-only does not accept images, and the prompt carries an image");
    expect(model.requests).toHaveLength(0);
    // Before, the session was stuck: every later prompt ended the same way, for the image kept in it.
    const next = await s.run("then just say hello", ["a text answer"], "text-only", { resume: refused.sessionId });
    expect(next.result.isError, next.result.result).toBe(false);
    expect(next.result.result).toBe("a text answer");
    const sent = JSON.stringify(next.model.requests[0]!.prompt);
    expect(sent).not.toContain(base64);
    expect(sent).toContain("then just say hello");
  });
});

describe("a user image given as bytes", () => {
  async function* once(content: NonNullable<Extract<UserInput, object>["content"]>): AsyncIterable<UserInput> {
    yield { type: "user", text: "what is this?", content };
  }

  for (const [form, part] of [
    ["a Uint8Array image part", { type: "image", image: new Uint8Array(image), mediaType: "image/png" }],
    [
      "an ArrayBuffer file part",
      {
        type: "file",
        mediaType: "image/png",
        data: image.buffer.slice(image.byteOffset, image.byteOffset + image.byteLength),
      },
    ],
    ["a tagged Buffer file part", { type: "file", mediaType: "image/png", data: { type: "data", data: image } }],
  ] as const) {
    it(`${form}: reaches the model, and a resumed session sends the same image again`, async () => {
      const s = setup();
      const model = scriptedModel(["a grey square"], { modelId: "vision" });
      const first = resultOf(
        await collect(
          summon(once([part as never]), {
            presets: [],
            plugins: [...modelLayer().plugins, sessions()],
            sessionDir: s.sessionDir,
            model,
            ...sees,
          }),
        ),
      );
      expect(first.isError, first.result).toBe(false);
      expect(JSON.stringify(model.requests[0]!.prompt)).toContain(base64);
      const next = await s.run("and again?", ["still grey"], "vision", { resume: first.sessionId });
      expect(next.result.isError, next.result.result).toBe(false);
      expect(JSON.stringify(next.model.requests[0]!.prompt)).toContain(base64);
    });
  }
});
