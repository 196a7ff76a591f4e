/**
 * Read of an image file (PNG, JPEG, GIF or WebP by its magic bytes, with a header that gives its
 * size): a model that sees images (`supportsImages` of the model plugin) gets the image itself as
 * a part of the tool result; any other model gets a text saying what the file is and that this
 * model cannot see it. Images over `READ_IMAGE_LIMIT_BYTES` are refused (downscaling is not
 * Read's job). The `tool_result` message and transcripts keep the text and the metadata, never
 * the base64.
 */
import type { ToolContext, ToolOutput } from "../../src/index";
import type { ImageInfo } from "../_kits/file-tools/index";
import { ToolFailure } from "../_kits/file-tools/index";
import { runSeesImages } from "../model/api";
import { formatSize } from "./describe";

/** The largest image Read sends to a model (5 MB: Anthropic's per-image limit, the strictest of the big providers). */
export const READ_IMAGE_LIMIT_BYTES = 5 * 1024 * 1024;

/** The result of reading an image: `bytes` is the whole file when it is within the limit. */
export function imageOutput(
  shown: string,
  real: string,
  bytes: Buffer,
  size: number,
  image: Required<ImageInfo>,
  ctx: ToolContext,
): ToolOutput {
  const what = `${image.format} image, ${image.width}×${image.height} pixels, ${formatSize(size)}`;
  const { label, sees } = runSeesImages(ctx.run);
  const metadata = {
    path: real,
    image: { mediaType: image.mediaType, width: image.width, height: image.height, bytes: size },
    sent: false,
  };
  if (!sees) {
    return {
      content: `${shown} is an image (${what}). The model of this run (${label}) cannot see images, so Read sent none of its pixels; only a text description like this one is available. To look at it, run with a model that sees images (or declare this one with modelCapabilities: { "${label}": { images: true } }).`,
      metadata,
    };
  }
  if (size > READ_IMAGE_LIMIT_BYTES) {
    throw new ToolFailure(
      `${shown} is an image (${what}), over Read's ${formatSize(READ_IMAGE_LIMIT_BYTES)} limit for images, so it was not sent. Make a smaller copy (scale it down or save it as JPEG) and read that.`,
    );
  }
  return {
    content: `${shown} is an image (${what}); it is attached to this result.`,
    metadata: { ...metadata, sent: true },
    parts: [{ type: "file", mediaType: image.mediaType, data: { type: "data", data: bytes.toString("base64") } }],
  };
}
