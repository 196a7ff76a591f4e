import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GrepTool } from "../../plugins/tool-grep/index";
import { writeCorpus } from "./grep-corpus";
import { suiteDir, tempDir, toolContext } from "./helpers";

const grep = new GrepTool();
const corpus = suiteDir("ubiquity-grep-", writeCorpus);
const run = async (input: Parameters<GrepTool["call"]>[0]) => grep.call(input, toolContext(corpus()));

describe("Grep", () => {
  it("lists matching files newest first, honoring .gitignore/.ignore and skipping .git and binary files", async () => {
    const out = await run({ pattern: "TODO" });
    expect(out.metadata?.backend).toBe("rg");
    expect(out.content.split("\n")).toEqual([
      "wide.txt",
      "Makefile",
      "unicode.txt",
      "crlf.txt",
      ".hidden/secret.ts",
      "docs/deep/b.tmp",
      "docs/readme.md",
      "sub/root-only.txt",
      "keep.log",
      "src/nested/real.ts",
      "src/util.js",
      "src/app.test.ts",
      "src/app.ts",
    ]);
  });

  it("shows matching lines as path:line:text in content mode, files in path order", async () => {
    const out = await run({ pattern: "TODO", output_mode: "content", path: "src" });
    expect(out.content).toBe(
      [
        "src/app.test.ts:1:// TODO test",
        "src/app.ts:2:// TODO: first",
        "src/nested/real.ts:1:// TODO real",
        "src/util.js:2:  // TODO util",
      ].join("\n"),
    );
  });

  it("drops line numbers with -n false", async () => {
    const out = await run({ pattern: "TODO", output_mode: "content", path: "src/app.ts", "-n": false });
    expect(out.content).toBe("src/app.ts:// TODO: first");
  });

  it("adds context lines (path-line-text) and -- between separate groups", async () => {
    const out = await run({ pattern: "^foo$", output_mode: "content", path: "multi.txt", "-C": 1 });
    expect(out.content).toBe(
      [
        "multi.txt-1-start",
        "multi.txt:2:foo",
        "multi.txt-3-bar baz",
        "multi.txt-4-end",
        "multi.txt:5:foo",
        "multi.txt-6-bar",
        "--",
        "multi.txt-9-z",
        "multi.txt:10:foo",
      ].join("\n"),
    );
    const after = await run({ pattern: "^end$", output_mode: "content", path: "multi.txt", "-A": 1, "-B": 0 });
    expect(after.content).toBe("multi.txt:4:end\nmulti.txt-5-foo");
  });

  it("counts matching lines per file in count mode, with a total", async () => {
    const out = await run({ pattern: "foo", output_mode: "count" });
    expect(out.content).toBe(
      "multi.txt:3\nsrc/app.test.ts:1\nsrc/app.ts:2\nsrc/nested/real.ts:1\n\n[7 matching lines in 4 files]",
    );
  });

  it("ignores case with -i", async () => {
    const out = await run({ pattern: "todo lower|foo\\(\\)", output_mode: "content", "-i": true, path: "src/app.ts" });
    expect(out.content).toBe("src/app.ts:3:function foo() {\nsrc/app.ts:6:// todo lower");
  });

  it("filters by glob and by type (a glob, as in ripgrep, also selects files .gitignore skips)", async () => {
    expect((await run({ pattern: "TODO", glob: "*.ts" })).content.split("\n").sort()).toEqual([
      ".hidden/secret.ts",
      "src/app.test.ts",
      "src/app.ts",
      "src/nested/generated.ts",
      "src/nested/real.ts",
    ]);
    expect((await run({ pattern: "TODO", type: "ts" })).content.split("\n").sort()).toEqual([
      ".hidden/secret.ts",
      "src/app.test.ts",
      "src/app.ts",
      "src/nested/real.ts",
    ]);
    expect((await run({ pattern: "TODO", glob: "!*.ts", path: "src" })).content).toBe("src/util.js");
    expect((await run({ pattern: "TODO", type: "js" })).content).toBe("src/util.js");
    expect((await run({ pattern: "TODO", type: "make" })).content).toBe("Makefile");
  });

  it("lets matches span lines with multiline", async () => {
    const out = await run({ pattern: "foo\\nbar", output_mode: "content", multiline: true });
    expect(out.content).toBe("multi.txt:2:foo\nmulti.txt:3:bar baz\nmulti.txt:5:foo\nmulti.txt:6:bar");
    const count = await run({ pattern: "foo\\nbar", output_mode: "count", multiline: true });
    expect(count.content.split("\n")[0]).toBe("multi.txt:2");
  });

  it("refuses an invalid regex with a clear error", async () => {
    for (const backend of ["rg", "node"] as const) {
      const out = await new GrepTool({ backend }).call({ pattern: "foo(" }, toolContext(corpus()));
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(/^Invalid regular expression "foo\(": .+\. Escape characters/);
    }
  });

  it("refuses an unknown type, listing the known ones", async () => {
    const out = await run({ pattern: "x", type: "klingon" });
    expect(out.isError).toBe(true);
    expect(out.content).toContain("Known types: asm,");
  });

  it("returns at most 200 result lines with a note, and fewer with head_limit", async () => {
    const big = tempDir();
    writeFileSync(join(big, "many.txt"), Array.from({ length: 450 }, (_, i) => `hit ${i}`).join("\n"));
    const out = await grep.call({ pattern: "hit", output_mode: "content" }, toolContext(big));
    const [body, note] = out.content.split("\n\n");
    expect(body!.split("\n")).toHaveLength(200);
    expect(note).toContain("Showing 200 of 450 result lines");
    const limited = await grep.call({ pattern: "hit", output_mode: "content", head_limit: 5 }, toolContext(big));
    expect(limited.content.split("\n\n")[0]!.split("\n")).toEqual([
      "many.txt:1:hit 0",
      "many.txt:2:hit 1",
      "many.txt:3:hit 2",
      "many.txt:4:hit 3",
      "many.txt:5:hit 4",
    ]);
    const wider = await grep.call({ pattern: "hit", output_mode: "content", head_limit: 1000 }, toolContext(big));
    expect(wider.content.split("\n\n")[0]!.split("\n")).toHaveLength(200);
  });

  it("cuts long matching lines", async () => {
    const out = await run({ pattern: "TODO wide", output_mode: "content" });
    expect(out.content).toBe(`wide.txt:1:${"w".repeat(500)}… [line cut: 810 characters]`);
  });

  it("says when nothing matches", async () => {
    const out = await run({ pattern: "no such text anywhere" });
    expect(out).toMatchObject({ content: 'No matches for "no such text anywhere" in the working directory.' });
  });

  it("falls back to the Node backend when no rg binary runs", async () => {
    const tool = new GrepTool({ rgPath: join(corpus(), "no-such-rg") });
    const out = await tool.call({ pattern: "TODO", type: "js" }, toolContext(corpus()));
    expect(out.metadata?.backend).toBe("node");
    expect(out.content).toBe("src/util.js");
  });

  it("is read-only and concurrency-safe", () => {
    expect(grep.isReadOnly()).toBe(true);
    expect(grep.isConcurrencySafe()).toBe(true);
  });
});

describe("Grep that stops early", () => {
  it("names the file it was searching when the output grew too large", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "small.txt"), "needle once\n");
    // ~71 MB of long matching lines: past the 64 MiB the ripgrep backend reads before it stops
    // (few long lines rather than a million short ones, so the parse of what was read stays cheap).
    const line = "needle ".repeat(300).concat("\n");
    writeFileSync(join(dir, "huge.log"), Buffer.alloc(34_000 * line.length, line));
    const out = await grep.call(
      { pattern: "needle", output_mode: "content", path: join(dir, "huge.log") },
      toolContext(dir),
    );
    expect(out.content).toMatch(
      /\[The search stopped early in huge\.log because the output was too large; results are incomplete\. Narrow the search \(or leave out huge\.log\)\.\]/,
    );
  });
});
