/**
 * Read of image files, tool-level and through a run: magic-byte detection (a `.png` holding text
 * is text, a JPEG without an extension is an image, a cut PNG is just binary), the pixel size
 * from each format's header, the 5 MB cap (also past Read's 10 MB whole-file limit), the text
 * result for a model that cannot see images, and the path and permission rules, unchanged.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type ToolOutput } from "ubiquity";
import type { RunContext } from "ubiquity/plugin";
import { ReadTool } from "../../plugins/tool-read/index";
import permissions from "ubiquity/plugins/permissions";
import { scriptedModel } from "ubiquity/testing";
import { imageInfo } from "../../plugins/_kits/file-tools/index";
import { READ_IMAGE_LIMIT_BYTES } from "../../plugins/tool-read/image-read";
import { toolContext } from "../tools/helpers";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { modelLayer } from "../model/helpers";
import { gif, jpeg, png, webp } from "./fixtures";

const temp = tempDirs();
const read = new ReadTool();

/** Read `file` (written with `bytes`) in a run whose model is `label`. */
async function readAs(
  label: string | undefined,
  file: string,
  bytes: Buffer | string,
  modelCapabilities?: Record<string, { images?: boolean }>,
): Promise<ToolOutput> {
  const cwd = temp("ubq-read-image-");
  writeFileSync(join(cwd, file), bytes);
  const run =
    label === undefined ? undefined : ({ modelLabel: label, options: { modelCapabilities } } as unknown as RunContext);
  return read.call({ file_path: file }, toolContext(cwd, { run }));
}

describe("imageInfo (magic bytes and header size)", () => {
  it.each([
    ["PNG", png(31, 17), "image/png", 31, 17],
    ["JPEG", jpeg(1920, 1080), "image/jpeg", 1920, 1080],
    ["JPEG with 60 KB of EXIF before its frame header", jpeg(1024, 768, 60_000), "image/jpeg", 1024, 768],
    ["GIF", gif(320, 200), "image/gif", 320, 200],
    ["WebP", webp(4000, 3000), "image/webp", 4000, 3000],
  ])("%s", (_name, bytes, mediaType, width, height) => {
    expect(imageInfo(bytes)).toMatchObject({ mediaType, width, height });
  });

  it("is undefined for text, a PDF, and a ZIP", () => {
    expect(imageInfo(Buffer.from("\x89PNG is how a PNG starts"))).toBeUndefined();
    expect(imageInfo(Buffer.from("%PDF-1.7\n"))).toBeUndefined();
    expect(imageInfo(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]))).toBeUndefined();
  });
});

describe("Read of an image file", () => {
  it("sends the image as a file part to a model that sees images", async () => {
    const bytes = png(3, 2);
    const out = await readAs("openai:gpt-4o", "shot.png", bytes);
    expect(out.isError).toBeFalsy();
    expect(out.parts).toEqual([
      { type: "file", mediaType: "image/png", data: { type: "data", data: bytes.toString("base64") } },
    ]);
    expect(out.content).toBe(
      `shot.png is an image (PNG image, 3×2 pixels, ${bytes.length} bytes); it is attached to this result.`,
    );
  });

  it("reads a .png that holds text as text (the bytes decide, not the name)", async () => {
    const out = await readAs("openai:gpt-4o", "notes.png", "not an image\nat all\n");
    expect(out.parts).toBeUndefined();
    expect(out.content).toBe("     1\tnot an image\n     2\tat all");
  });

  it("sends a JPEG without an extension as image/jpeg", async () => {
    const out = await readAs("anthropic:claude-sonnet-4-5", "photo", jpeg(64, 48));
    expect(out.parts?.[0]).toMatchObject({ type: "file", mediaType: "image/jpeg" });
    expect(out.content).toContain("JPEG image, 64×48 pixels");
  });

  it("describes a cut PNG (no size in its header) as binary, as before", async () => {
    const out = await readAs("openai:gpt-4o", "img.png", png(2, 2).subarray(0, 14));
    expect(out.isError).toBe(true);
    expect(out.parts).toBeUndefined();
    expect(out.content).toContain("binary file (PNG image, 14 bytes)");
  });

  it("gives a model that cannot see images a text naming the image, its size and dimensions, and the model", async () => {
    const out = await readAs("deepseek:deepseek-chat", "shot.gif", gif(320, 200));
    expect(out.isError).toBeFalsy();
    expect(out.parts).toBeUndefined();
    expect(out.content).toContain("shot.gif is an image (GIF image, 320×200 pixels, 14 bytes)");
    expect(out.content).toContain("The model of this run (deepseek:deepseek-chat) cannot see images");
    expect(out.metadata).toMatchObject({
      sent: false,
      image: { mediaType: "image/gif", width: 320, height: 200, bytes: 14 },
    });
  });

  it("treats a call without a run (no model known) as a model that cannot see images", async () => {
    const out = await readAs(undefined, "shot.webp", webp(10, 10));
    expect(out.parts).toBeUndefined();
    expect(out.content).toContain("(unknown) cannot see images");
  });

  it("follows modelCapabilities both ways", async () => {
    expect(
      (await readAs("ollama:llava-custom", "a.png", png(1, 1), { "ollama:*": { images: true } })).parts,
    ).toHaveLength(1);
    expect(
      (await readAs("openai:gpt-4o", "a.png", png(1, 1), { "openai:gpt-4o": { images: false } })).parts,
    ).toBeUndefined();
  });

  it("refuses an image over the 5 MB cap, naming the cap and the size", async () => {
    const big = png(8, 8, READ_IMAGE_LIMIT_BYTES);
    const out = await readAs("openai:gpt-4o", "big.png", big);
    expect(out.isError).toBe(true);
    expect(out.parts).toBeUndefined();
    expect(out.content).toContain(
      "big.png is an image (PNG image, 8×8 pixels, 5.0 MB), over Read's 5.0 MB limit for images",
    );
  });

  it("refuses an image past Read's 10 MB whole-file limit the same way (found from its head)", async () => {
    const out = await readAs("openai:gpt-4o", "huge.png", png(8, 8, 11 * 1024 * 1024));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("over Read's 5.0 MB limit for images");
  });

  it("keeps an image just under the cap", async () => {
    const out = await readAs("openai:gpt-4o", "ok.png", png(8, 8, READ_IMAGE_LIMIT_BYTES - 200));
    expect(out.isError).toBeFalsy();
    expect(out.parts).toHaveLength(1);
  });

  it("keeps the path rules: an image outside the permitted folders is refused", async () => {
    const outside = temp("ubq-outside-");
    writeFileSync(join(outside, "x.png"), png(2, 2));
    const out = await read.call(
      { file_path: join(outside, "x.png") },
      toolContext(temp(), { run: { modelLabel: "openai:gpt-4o", options: {} } as unknown as RunContext }),
    );
    expect(out.isError).toBe(true);
    expect(out.parts).toBeUndefined();
  });

  it("keeps the permission rules: a Read deny rule stops an image read before any byte is read", async () => {
    const cwd = temp("ubq-read-image-");
    writeFileSync(join(cwd, "private.png"), png(2, 2));
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Read", input: { file_path: "private.png" }, id: "c1" }] },
      "done",
    ]);
    const messages = await collect(
      summon("look", {
        presets: [],
        plugins: [...modelLayer().plugins, permissions()],
        tools: [read],
        cwd,
        model,
        disallowedTools: ["Read(private.png)"],
        modelCapabilities: { "scripted:*": { images: true } },
      }),
    );
    const [result] = ofType(messages, "tool_result");
    expect(result!.output.isError).toBe(true);
    expect(resultOf(messages).permissionDenials).toMatchObject([
      { toolName: "Read", toolInput: { file_path: "private.png" } },
    ]);
    expect(JSON.stringify(model.requests[1]!.prompt)).not.toContain(png(2, 2).toString("base64"));
  });
});
