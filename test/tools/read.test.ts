import { writeFileSync, mkdirSync, openSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ReadTool } from "../../plugins/tool-read/index";
import { tempDir, toolContext } from "./helpers";

const read = new ReadTool();
const lines = (n: number, from = 1) => `${Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n")}\n`;

describe("Read", () => {
  it("returns cat -n format: the number right-aligned in 6 columns, a tab, the text", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.txt"), "first\n\tindented\nlast");
    const out = await read.call({ file_path: "a.txt" }, toolContext(dir));
    expect(out.isError).toBeFalsy();
    expect(out.content).toBe("     1\tfirst\n     2\t\tindented\n     3\tlast");
  });

  it("shows a CRLF file without the carriage returns", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "w.txt"), "a\r\nb\r\n");
    const out = await read.call({ file_path: "w.txt" }, toolContext(dir));
    expect(out.content).toBe("     1\ta\n     2\tb");
  });

  it("returns at most 2,000 lines by default, with a note saying how to read more", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "long.txt"), lines(2500));
    const out = await read.call({ file_path: "long.txt" }, toolContext(dir));
    const body = out.content.split("\n\n[")[0]!.split("\n");
    expect(body).toHaveLength(2000);
    expect(body[1999]).toBe("  2000\tline 2000");
    expect(out.content).toContain("lines 1-2000 of 2500");
    expect(out.content).toContain("offset=2001");
    expect(out.content).toContain("limit=2500");
  });

  it("reads a window with offset and limit", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f.txt"), lines(50));
    const out = await read.call({ file_path: "f.txt", offset: 10, limit: 3 }, toolContext(dir));
    expect(
      out.content.startsWith("    10\tline 10\n    11\tline 11\n    12\tline 12\n\n[Partial read: lines 10-12 of 50."),
    ).toBe(true);
    expect(out.content).toContain("offset=13");
  });

  it("refuses an offset past the end, naming the line count", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f.txt"), lines(5));
    const out = await read.call({ file_path: "f.txt", offset: 9 }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("has 5 lines");
  });

  it("cuts lines longer than 2,000 characters with a marker", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "wide.txt"), `${"x".repeat(5000)}\nshort\n`);
    const out = await read.call({ file_path: "wide.txt" }, toolContext(dir));
    const [first, second] = out.content.split("\n");
    expect(first).toBe(`     1\t${"x".repeat(2000)}… [line cut: 5000 characters, first 2000 shown]`);
    expect(second).toBe("     2\tshort");
  });

  it("says when a file is empty", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "e.txt"), "");
    const out = await read.call({ file_path: "e.txt" }, toolContext(dir));
    expect(out.isError).toBeFalsy();
    expect(out.content).toContain("is empty");
  });

  it("errors for a missing file, suggesting a near name", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "README.md"), "hi\n");
    const out = await read.call({ file_path: "readme.md" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("File does not exist");
    expect(out.content).toContain("Did you mean README.md?");
  });

  it("errors for a directory", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    const out = await read.call({ file_path: "sub" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("is a directory");
  });

  it("describes a binary file instead of dumping it", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "img.png"),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48]),
    );
    const out = await read.call({ file_path: "img.png" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("binary file (PNG image, 14 bytes)");
    expect(out.content).not.toContain("PNG\r");
  });

  it("refuses a file over 10 MB without offset/limit, and streams a window of it with them", async () => {
    const dir = tempDir();
    const path = join(dir, "big.log");
    const fd = openSync(path, "w");
    const chunk = lines(10_000); // 98,894 bytes
    for (let i = 0; i < 110; i++) writeSync(fd, chunk);
    closeSync(fd);
    const whole = await read.call({ file_path: "big.log" }, toolContext(dir));
    expect(whole.isError).toBe(true);
    expect(whole.content).toMatch(/over the 10 MB limit.*offset and limit/);
    const part = await read.call({ file_path: "big.log", offset: 10_001, limit: 2 }, toolContext(dir));
    expect(part.isError).toBeFalsy();
    expect(
      part.content.startsWith(
        " 10001\tline 1\n 10002\tline 2\n\n[Partial read: lines 10001-10002; the file continues.",
      ),
    ).toBe(true);
  });

  it("refuses a path outside the permitted roots, naming them", async () => {
    const dir = tempDir();
    const other = tempDir();
    writeFileSync(join(other, "secret.txt"), "s\n");
    const out = await read.call({ file_path: join(other, "secret.txt") }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain(`Permitted: ${dir}`);
  });

  it("is read-only and concurrency-safe", () => {
    const input = { file_path: "x" };
    expect(read.isReadOnly()).toBe(true);
    expect(read.isConcurrencySafe()).toBe(true);
    expect(read.permissionRuleContent(input)).toEqual(["x"]);
  });
});
