/** The ACP content helpers: prompts as user messages, and streamed text with secrets masked across deltas. */
import { describe, expect, it } from "vitest";
import { MaskedStream, userInputOf } from "../../runner/acp/content";

describe("MaskedStream", () => {
  const secret = "sk-live-ABCDEFGH12345678";
  const text = `before ${secret} middle ${secret} after`;

  it("masks a secret whatever the deltas cut it into, and holds back no more than it must", () => {
    for (const size of [1, 2, 3, 5, 7, 11, text.length]) {
      const stream = new MaskedStream([secret]);
      let out = "";
      for (let i = 0; i < text.length; i += size) {
        const sent = stream.push(text.slice(i, i + size));
        expect(sent).not.toContain("sk-live-A");
        out += sent;
      }
      out += stream.flush();
      expect(out, `deltas of ${size}`).toBe("before [redacted] middle [redacted] after");
    }
  });

  it("passes text through at once when it cannot start a secret", () => {
    const stream = new MaskedStream([secret]);
    expect(stream.push("hello ")).toBe("hello ");
    expect(stream.push("sk-")).toBe("");
    expect(stream.push("x")).toBe("sk-x");
    expect(new MaskedStream([]).push("sk-live")).toBe("sk-live");
  });
});

describe("userInputOf", () => {
  it("text and resources become text; an image stays an image part", () => {
    expect(userInputOf([{ type: "text", text: "hi" }])).toBe("hi");
    expect(
      userInputOf([
        { type: "text", text: "see" },
        { type: "resource_link", name: "a.ts", uri: "file:///p/a.ts" },
      ]),
    ).toBe("see\n[a.ts](file:///p/a.ts)");
    expect(userInputOf([{ type: "resource", resource: { uri: "file:///p/b.ts", text: "const b = 1;" } }])).toBe(
      '<context uri="file:///p/b.ts">\nconst b = 1;\n</context>',
    );
    expect(
      userInputOf([
        { type: "text", text: "what is this" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ]),
    ).toEqual({
      type: "user",
      content: [
        { type: "text", text: "what is this" },
        { type: "image", image: "iVBORw0KGgo=", mediaType: "image/png" },
      ],
    });
  });
});
