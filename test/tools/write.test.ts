import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../plugins/_kits/storage/index";
import { guard } from "../../plugins/_kits/file-tools/index";
import { ReadTool } from "../../plugins/tool-read/index";
import { WriteTool } from "../../plugins/tool-write/index";
import { tempDir, toolContext } from "./helpers";

const read = new ReadTool();
const write = new WriteTool();

describe("Write", () => {
  it("creates a new file and its missing parent folders without a read", async () => {
    const dir = tempDir();
    const out = await write.call({ file_path: "a/b/c.txt", content: "one\ntwo\n" }, toolContext(dir));
    expect(out.isError).toBeFalsy();
    expect(out.content).toBe("Created a/b/c.txt (2 lines).");
    expect(readFileSync(join(dir, "a/b/c.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("writes atomically: no temp file is left beside the target", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    await write.call({ file_path: "f.txt", content: "1\n" }, ctx);
    await write.call({ file_path: "f.txt", content: "2\n" }, ctx);
    expect(readdirSync(dir)).toEqual(["f.txt"]);
  });

  it("removes its temp file when the final rename fails", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "target"));
    writeFileSync(join(dir, "target", "inside"), "x");
    await expect(writeFileAtomic(join(dir, "target"), "data")).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(["target"]);
  });

  it("keeps an existing file's CRLF line endings and BOM", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    writeFileSync(join(dir, "w.txt"), "\uFEFFold\r\nlines\r\n");
    await read.call({ file_path: "w.txt" }, ctx);
    const out = await write.call({ file_path: "w.txt", content: "new\ncontent\n" }, ctx);
    expect(out.isError).toBeFalsy();
    expect(readFileSync(join(dir, "w.txt"), "utf8")).toBe("\uFEFFnew\r\ncontent\r\n");
  });

  it("keeps LF files LF even when the content comes with CRLF", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    writeFileSync(join(dir, "u.txt"), "a\nb\n");
    await read.call({ file_path: "u.txt" }, ctx);
    await write.call({ file_path: "u.txt", content: "c\r\nd\r\n" }, ctx);
    expect(readFileSync(join(dir, "u.txt"), "utf8")).toBe("c\nd\n");
  });

  it("keeps the file mode of an existing file", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    writeFileSync(join(dir, "run.sh"), "echo hi\n");
    chmodSync(join(dir, "run.sh"), 0o755);
    await read.call({ file_path: "run.sh" }, ctx);
    await write.call({ file_path: "run.sh", content: "echo bye\n" }, ctx);
    expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755);
  });

  it("writes through a symlink inside the roots to the real file, leaving the link in place", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    writeFileSync(join(dir, "real.txt"), "old\n");
    symlinkSync("real.txt", join(dir, "link.txt"));
    await read.call({ file_path: "link.txt" }, ctx);
    const out = await write.call({ file_path: "link.txt", content: "new\n" }, ctx);
    expect(out.isError).toBeFalsy();
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "real.txt"), "utf8")).toBe("new\n");
  });

  it("refuses to write a directory", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "d"));
    const out = await write.call({ file_path: "d", content: "x" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("is a directory");
  });

  it("is neither read-only nor concurrency-safe", () => {
    expect(write.isReadOnly({ file_path: "x", content: "" })).toBe(false);
    expect(write.isConcurrencySafe({ file_path: "x", content: "" })).toBe(false);
  });
});

describe("filesystem errors", () => {
  it("become error results that name the path and the cause; other errors still throw", async () => {
    const denied = Object.assign(new Error("EACCES: permission denied"), { code: "EACCES", path: "/srv/locked.txt" });
    expect(await guard(async () => Promise.reject(denied))).toEqual({
      content:
        "/srv/locked.txt: permission denied: this process may not access it (EACCES). Choose another path or fix the cause first.",
      isError: true,
    });
    await expect(guard(async () => Promise.reject(new TypeError("a bug")))).rejects.toThrow("a bug");
  });
});
