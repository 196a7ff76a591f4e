/**
 * Telling an image file by its magic bytes (never its extension: a `.png` that holds text is
 * text, a JPEG named `photo` is a JPEG) and reading its pixel size from the header, for the four
 * formats every image-capable provider accepts: PNG, JPEG, GIF and WebP.
 */

/** An image file as Read reports it. */
export interface ImageInfo {
  /** IANA media type (`image/png`). */
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  /** Short format name for messages (`PNG`). */
  format: "PNG" | "JPEG" | "GIF" | "WebP";
  /** Pixel size from the header; undefined when the header is cut or unusual. */
  width?: number;
  height?: number;
}

const startsWith = (bytes: Uint8Array, magic: number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);
const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

/** The image format of `bytes` (the file's first bytes suffice, dimensions need the header), or undefined when it is not one of the four. */
export function imageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = (width: number | undefined, height: number | undefined) => (width && height ? { width, height } : {});
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    const ok = bytes.length >= 24 && ascii(bytes, 12, 16) === "IHDR";
    return { mediaType: "image/png", format: "PNG", ...(ok ? size(view.getUint32(16), view.getUint32(20)) : {}) };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff]))
    return { mediaType: "image/jpeg", format: "JPEG", ...jpegSize(bytes, view) };
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") {
    return {
      mediaType: "image/gif",
      format: "GIF",
      ...(bytes.length >= 10 ? size(view.getUint16(6, true), view.getUint16(8, true)) : {}),
    };
  }
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP")
    return { mediaType: "image/webp", format: "WebP", ...webpSize(bytes, view) };
  return undefined;
}

/** A JPEG's size: the first start-of-frame marker (SOF0..SOF15 but DHT, JPG and DAC) after the segments before it. */
function jpegSize(bytes: Uint8Array, view: DataView): { width?: number; height?: number } {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return {};
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = view.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = view.getUint16(at + 5);
      const width = view.getUint16(at + 7);
      return width && height ? { width, height } : {};
    }
    at += 2 + length;
  }
  return {};
}

/** A WebP's size from its first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X). */
function webpSize(bytes: Uint8Array, view: DataView): { width?: number; height?: number } {
  if (bytes.length < 30) return {};
  const chunk = ascii(bytes, 12, 16);
  if (chunk === "VP8 ") return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    const u24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  return {};
}
