import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EditTool } from "../../plugins/tool-edit/index";
import { ReadTool } from "../../plugins/tool-read/index";
import { WriteTool } from "../../plugins/tool-write/index";
import { createKernel, createRun, toolContext as runToolContext, type RunContext } from "../../src/index";
import { tempDir, toolContext } from "./helpers";

const read = new ReadTool();
const write = new WriteTool();
const edit = new EditTool();
const lines = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

function setup(content = "hello\nworld\n") {
  const dir = tempDir();
  writeFileSync(join(dir, "f.txt"), content);
  return { dir, ctx: toolContext(dir), path: join(dir, "f.txt") };
}

describe("read-before-write", () => {
  it("refuses to overwrite or edit a file that was not read, saying to read it first", async () => {
    const { ctx, path } = setup();
    const w = await write.call({ file_path: "f.txt", content: "new\n" }, ctx);
    expect(w.isError).toBe(true);
    expect(w.content).toMatch(/has not been read in this run\. Read it in full first/);
    const e = await edit.call({ file_path: "f.txt", old_string: "hello", new_string: "bye" }, ctx);
    expect(e.isError).toBe(true);
    expect(e.content).toContain("has not been read");
    expect(readFileSync(path, "utf8")).toBe("hello\nworld\n");
  });

  it("allows the write after a full read", async () => {
    const { ctx, path } = setup();
    await read.call({ file_path: "f.txt" }, ctx);
    const w = await write.call({ file_path: "f.txt", content: "new\n" }, ctx);
    expect(w.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("new\n");
  });

  it("refuses after a partial read (offset/limit), telling how to read in full", async () => {
    const { ctx, path } = setup(lines(10));
    await read.call({ file_path: "f.txt", offset: 3, limit: 2 }, ctx);
    const e = await edit.call({ file_path: "f.txt", old_string: "line 3\n", new_string: "" }, ctx);
    expect(e.isError).toBe(true);
    expect(e.content).toContain("only partly read");
    expect(e.content).toContain("no offset, and a limit of at least 10 (the file has 10 lines)");
    expect(readFileSync(path, "utf8")).toBe(lines(10));
  });

  it("treats a plain read of a file over 2,000 lines as partial; a re-read with limit past the last line authorizes", async () => {
    const { ctx, path } = setup(lines(2100));
    await read.call({ file_path: "f.txt" }, ctx);
    const refused = await edit.call({ file_path: "f.txt", old_string: "line 2100\n", new_string: "the end\n" }, ctx);
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain("limit of at least 2100");

    const full = await read.call({ file_path: "f.txt", limit: 5000 }, ctx);
    expect(full.content).not.toContain("Partial read");
    const done = await edit.call({ file_path: "f.txt", old_string: "line 2100\n", new_string: "the end\n" }, ctx);
    expect(done.isError).toBeFalsy();
    expect(readFileSync(path, "utf8").endsWith("line 2099\nthe end\n")).toBe(true);
  });

  it("refuses when the file changed after the read, and a re-read clears it", async () => {
    const { ctx, path } = setup();
    await read.call({ file_path: "f.txt" }, ctx);
    writeFileSync(path, "hello\nsomeone else\n");
    const e = await edit.call({ file_path: "f.txt", old_string: "hello", new_string: "bye" }, ctx);
    expect(e.isError).toBe(true);
    expect(e.content).toContain("has changed since it was last read");
    expect(readFileSync(path, "utf8")).toBe("hello\nsomeone else\n");

    await read.call({ file_path: "f.txt" }, ctx);
    const again = await edit.call({ file_path: "f.txt", old_string: "hello", new_string: "bye" }, ctx);
    expect(again.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("bye\nsomeone else\n");
  });

  it("catches a same-size change with an unchanged mtime (by content)", async () => {
    const { ctx, path } = setup("aaaa\n");
    await read.call({ file_path: "f.txt" }, ctx);
    const { mtimeMs } = statSync(path); // what the read recorded
    writeFileSync(path, "bbbb\n");
    utimesSync(path, new Date(mtimeMs), new Date(mtimeMs));
    const w = await write.call({ file_path: "f.txt", content: "cccc\n" }, ctx);
    expect(w.isError).toBe(true);
    expect(w.content).toContain("has changed");
  });

  it("does not count a touch (new mtime, same content) as a change", async () => {
    const { ctx, path } = setup();
    await read.call({ file_path: "f.txt" }, ctx);
    utimesSync(path, new Date(), new Date(Date.now() + 60_000));
    const w = await write.call({ file_path: "f.txt", content: "ok\n" }, ctx);
    expect(w.isError).toBeFalsy();
  });

  it("counts a successful write as a full read: write then edit, edit then edit", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    const created = await write.call({ file_path: "new/file.ts", content: "const a = 1;\n" }, ctx);
    expect(created.isError).toBeFalsy();
    const e1 = await edit.call({ file_path: "new/file.ts", old_string: "a = 1", new_string: "a = 2" }, ctx);
    expect(e1.isError).toBeFalsy();
    const e2 = await edit.call({ file_path: "new/file.ts", old_string: "a = 2", new_string: "a = 3" }, ctx);
    expect(e2.isError).toBeFalsy();
    const w = await write.call({ file_path: "new/file.ts", content: "done\n" }, ctx);
    expect(w.isError).toBeFalsy();
    expect(readFileSync(join(dir, "new/file.ts"), "utf8")).toBe("done\n");
  });

  it("a partial read after a full read of the unchanged file keeps it writable", async () => {
    const { ctx } = setup(lines(10));
    await read.call({ file_path: "f.txt" }, ctx);
    await read.call({ file_path: "f.txt", offset: 5, limit: 1 }, ctx);
    const w = await write.call({ file_path: "f.txt", content: "x\n" }, ctx);
    expect(w.isError).toBeFalsy();
  });

  it("keeps read state per run: another context has not read the file", async () => {
    const { dir, ctx } = setup();
    await read.call({ file_path: "f.txt" }, ctx);
    const other = toolContext(dir);
    const w = await write.call({ file_path: "f.txt", content: "x\n" }, other);
    expect(w.isError).toBe(true);
  });

  it("inside a run, every call of the run shares the state; a subagent's run starts with its own", async () => {
    const { dir, path } = setup();
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const kernel = createKernel({ plugins: [], cwd: dir, logger: quiet });
    const abortSignal = new AbortController().signal;
    const parent = createRun({ kernel, abortSignal, sink: () => {} });
    const child: RunContext = createRun({
      kernel,
      abortSignal,
      parent,
      agent: { agentId: "a1", agentType: "worker", parentToolUseId: "u1" },
    });

    // The funnel builds a fresh ToolContext for each call: the run carries what Read saw.
    await read.call({ file_path: "f.txt" }, runToolContext(parent, "call-1"));
    const refused = await write.call({ file_path: "f.txt", content: "child\n" }, runToolContext(child, "call-2"));
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain("has not been read in this run");
    const written = await write.call({ file_path: "f.txt", content: "parent\n" }, runToolContext(parent, "call-3"));
    expect(written.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("parent\n");
  });
});
