import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EditTool } from "../../plugins/tool-edit/index";
import { ReadTool } from "../../plugins/tool-read/index";
import { tempDir, toolContext } from "./helpers";

const read = new ReadTool();
const edit = new EditTool();

async function readFile(content: string, name = "f.ts") {
  const dir = tempDir();
  const ctx = toolContext(dir);
  writeFileSync(join(dir, name), content);
  await read.call({ file_path: name }, ctx);
  return { ctx, file: () => readFileSync(join(dir, name), "utf8") };
}

describe("Edit", () => {
  it("replaces one exact occurrence and shows the changed region", async () => {
    const { ctx, file } = await readFile("a\nb\nconst x = 1;\nc\n");
    const out = await edit.call({ file_path: "f.ts", old_string: "const x = 1;", new_string: "const x = 2;" }, ctx);
    expect(out.isError).toBeFalsy();
    expect(out.content).toContain("Edited f.ts: replaced 1 occurrence.");
    expect(out.content).toContain("     3\tconst x = 2;");
    expect(file()).toBe("a\nb\nconst x = 2;\nc\n");
  });

  it("errors when old_string is not found, saying it must match exactly, whitespace included", async () => {
    const { ctx, file } = await readFile("function f() {\n    return 1;\n}\n");
    const out = await edit.call({ file_path: "f.ts", old_string: "function g()", new_string: "x" }, ctx);
    expect(out.isError).toBe(true);
    expect(out.content).toContain("old_string was not found in f.ts");
    expect(out.content).toContain("must match the file exactly, whitespace and indentation included");
    expect(file()).toBe("function f() {\n    return 1;\n}\n");
  });

  it("hints at whitespace when the text matches up to whitespace", async () => {
    const { ctx } = await readFile("if (a) {\n    go();\n}\n");
    const out = await edit.call({ file_path: "f.ts", old_string: "if (a) {\n  go();", new_string: "x" }, ctx);
    expect(out.isError).toBe(true);
    expect(out.content).toContain("up to whitespace");
  });

  it("errors when old_string is not unique, saying how many and suggesting context or replace_all", async () => {
    const { ctx, file } = await readFile("x = 1\ny = 2\nx = 1\nx = 1\n");
    const out = await edit.call({ file_path: "f.ts", old_string: "x = 1", new_string: "x = 9" }, ctx);
    expect(out.isError).toBe(true);
    expect(out.content).toContain("matches 3 places in f.ts (lines 1, 3, 4)");
    expect(out.content).toContain("Add surrounding lines");
    expect(out.content).toContain("replace_all");
    expect(file()).toBe("x = 1\ny = 2\nx = 1\nx = 1\n");
  });

  it("replaces every occurrence with replace_all", async () => {
    const { ctx, file } = await readFile("x = 1\ny = 2\nx = 1\n");
    const out = await edit.call(
      { file_path: "f.ts", old_string: "x = 1", new_string: "x = 9", replace_all: true },
      ctx,
    );
    expect(out.content).toContain("replaced 2 occurrences");
    expect(file()).toBe("x = 9\ny = 2\nx = 9\n");
  });

  it("errors for identical strings and for an empty old_string", async () => {
    const { ctx } = await readFile("abc\n");
    const same = await edit.call({ file_path: "f.ts", old_string: "abc", new_string: "abc" }, ctx);
    expect(same.isError).toBe(true);
    expect(same.content).toContain("identical");
    const empty = await edit.call({ file_path: "f.ts", old_string: "", new_string: "x" }, ctx);
    expect(empty.isError).toBe(true);
    expect(empty.content).toContain("old_string is empty");
  });

  it("errors for a missing file", async () => {
    const dir = tempDir();
    const out = await edit.call({ file_path: "nope.ts", old_string: "a", new_string: "b" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("File does not exist");
  });

  it("matches multi-line text in a CRLF file and keeps CRLF", async () => {
    const { ctx, file } = await readFile("one\r\ntwo\r\nthree\r\n");
    const out = await edit.call({ file_path: "f.ts", old_string: "one\ntwo", new_string: "uno\ndos" }, ctx);
    expect(out.isError).toBeFalsy();
    expect(file()).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("keeps $ patterns in new_string literal", async () => {
    const { ctx, file } = await readFile("price\n");
    await edit.call({ file_path: "f.ts", old_string: "price", new_string: "$& $1 $$" }, ctx);
    expect(file()).toBe("$& $1 $$\n");
  });
});
