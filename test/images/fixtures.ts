/**
 * Image files built byte by byte for the tests: a real PNG (zlib-compressed RGB rows, CRCs), and
 * JPEG, GIF and WebP headers with the markers a reader looks at (SOI, APPn, SOF0; GIF's logical
 * screen; WebP's VP8X chunk). No fixture files: each test writes what it needs to a temp folder.
 */
import { crc32, deflateSync } from "node:zlib";

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid `width`×`height` RGB PNG; `padding` bytes of an ancillary chunk make it as big as a test needs. */
export function png(width: number, height: number, padding = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter, no interlace
  const rows = Buffer.alloc((width * 3 + 1) * height, 0x7f);
  for (let y = 0; y < height; y++) rows[y * (width * 3 + 1)] = 0; // filter type 0 per row
  const extra =
    padding > 0 ? [chunk("tEXt", Buffer.concat([Buffer.from("Comment\0"), Buffer.alloc(padding, 0x41)]))] : [];
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    ...extra,
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A JPEG's markers: SOI, a JFIF APP0, an EXIF-sized APP1 of `exifBytes` (the frame header comes after it), SOF0 of `width`×`height`, EOI. */
export function jpeg(width: number, height: number, exifBytes = 0): Buffer {
  const segment = (marker: number, data: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([head, data]);
  };
  const sof = Buffer.alloc(15);
  sof[0] = 8;
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  sof.set([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1], 5);
  const app1 = exifBytes > 0 ? [segment(0xe1, Buffer.concat([Buffer.from("Exif\0\0"), Buffer.alloc(exifBytes)]))] : [];
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1")),
    ...app1,
    segment(0xc0, sof),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A GIF89a header with a logical screen of `width`×`height`. */
export function gif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  return Buffer.concat([Buffer.from("GIF89a", "ascii"), screen, Buffer.from([0x3b])]);
}

/** A WebP (extended format) header of `width`×`height`. */
export function webp(width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const body = Buffer.concat([Buffer.from("WEBPVP8X", "ascii"), Buffer.from([10, 0, 0, 0]), vp8x]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from("RIFF", "ascii"), size, body]);
}
