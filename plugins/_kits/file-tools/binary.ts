/**
 * Telling binary files from text, and saying what a binary file is instead of dumping it.
 */

/** How many leading bytes are inspected (the same window git uses). */
const SNIFF_BYTES = 8000;

/** True when the first bytes contain a NUL, the mark of a non-text file (and of UTF-16). */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

const SIGNATURES: [string, number[], number?][] = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["JPEG image", [0xff, 0xd8, 0xff]],
  ["GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["ZIP archive (or a format built on it: docx, xlsx, jar)", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["bzip2 archive", [0x42, 0x5a, 0x68]],
  ["xz archive", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["7-zip archive", [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ["tar archive", [0x75, 0x73, 0x74, 0x61, 0x72], 257],
  ["ELF executable or library", [0x7f, 0x45, 0x4c, 0x46]],
  ["Mach-O executable", [0xcf, 0xfa, 0xed, 0xfe]],
  ["Windows executable", [0x4d, 0x5a]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
  ["UTF-16 text (little-endian)", [0xff, 0xfe]],
  ["UTF-16 text (big-endian)", [0xfe, 0xff]],
  ["Java class file", [0xca, 0xfe, 0xba, 0xbe]],
];

/** What kind of binary file this is, from its magic number ("binary data" when unknown). */
export function binaryKind(bytes: Uint8Array): string {
  for (const [kind, magic, offset = 0] of SIGNATURES) {
    if (magic.every((b, i) => bytes[offset + i] === b)) return kind;
  }
  const riff = String.fromCharCode(...bytes.subarray(8, 12));
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && riff === "WEBP") return "WebP image";
  return "binary data";
}
