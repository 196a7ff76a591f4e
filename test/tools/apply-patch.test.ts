/**
 * apply_patch: the V4A grammar as OpenAI publishes it (add, update with context and @@ anchors,
 * move, delete, End of File), applied exactly and atomically on real files, under the same
 * read-before-write as Edit; bad patches refused naming the failing hunk, with nothing written.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ApplyPatchTool,
  parsePatch,
  PatchSyntaxError,
  patchPaths,
  surfaceFor,
} from "../../plugins/tool-apply-patch/index";
import { ReadTool } from "../../plugins/tool-read/index";
import { raceSeams, ToolFailure } from "../../plugins/_kits/file-tools/index";
import { tempDir, toolContext } from "./helpers";

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");

async function setup(files: Record<string, string>) {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  const ctx = toolContext(dir);
  const read = new ReadTool();
  for (const name of Object.keys(files)) await read.call({ file_path: join(dir, name) }, ctx);
  return { dir, ctx, tool: new ApplyPatchTool(), at: (name: string) => readFileSync(join(dir, name), "utf8") };
}

describe("parsePatch (the V4A grammar)", () => {
  it("reads every operation: add, delete, update with a move, hunks with @@ anchors and End of File", () => {
    const ops = parsePatch(
      patch(
        "*** Add File: new.txt",
        "+one",
        "+two",
        "*** Delete File: old.txt",
        "*** Update File: src/a.py",
        "*** Move to: src/b.py",
        "@@ class A:",
        "@@     def f(self):",
        " x = 1",
        "-y = 2",
        "+y = 3",
        "@@",
        " last",
        "+after",
        "*** End of File",
      ),
    );
    expect(ops).toEqual([
      { kind: "add", path: "new.txt", content: "one\ntwo\n" },
      { kind: "delete", path: "old.txt" },
      {
        kind: "update",
        path: "src/a.py",
        moveTo: "src/b.py",
        hunks: [
          {
            index: 1,
            line: 8,
            anchors: ["class A:", "def f(self):"],
            atEnd: false,
            lines: [
              { kind: " ", text: "x = 1" },
              { kind: "-", text: "y = 2" },
              { kind: "+", text: "y = 3" },
            ],
          },
          {
            index: 2,
            line: 13,
            anchors: [],
            atEnd: true,
            lines: [
              { kind: " ", text: "last" },
              { kind: "+", text: "after" },
            ],
          },
        ],
      },
    ]);
    expect(patchPaths(patch("*** Update File: a", "*** Move to: b", "@@", "-x", "+y", "*** Delete File: c"))).toEqual([
      "a",
      "b",
      "c",
    ]);
  });

  it("refuses what is outside the grammar, naming the line", () => {
    expect(() => parsePatch("*** Update File: a\n-x\n+y\n*** End Patch")).toThrow(
      /must start with the line "\*\*\* Begin Patch"/,
    );
    expect(() => parsePatch("*** Begin Patch\n*** Add File: a\n+x\n")).toThrow(
      /must end with the line "\*\*\* End Patch"/,
    );
    expect(() => parsePatch(patch("*** Add File: a", "no plus"))).toThrow(
      /line 3: in "\*\*\* Add File: a" every line of the new file starts with "\+"/,
    );
    expect(() => parsePatch(patch("*** Update File: a", "@@", "*x"))).toThrow(
      /line 4: in hunk 1 of "\*\*\* Update File: a"/,
    );
    expect(() => parsePatch(patch("*** Update File: a", "@@", " only context"))).toThrow(/hunk 1 .* changes nothing/);
    expect(() => parsePatch(patch("--- a/file", "+++ b/file"))).toThrow(PatchSyntaxError);
    expect(() => parsePatch(patch())).toThrow(/holds no file operation/);
  });
});

describe("ApplyPatchTool on real files", () => {
  it("updates with context, keeping the rest of the file byte for byte", async () => {
    const { dir, ctx, tool, at } = await setup({
      "a.py": "def f():\n    x = 1\n    y = 2\n    return x + y\n\ndef g():\n    y = 2\n",
    });
    const out = await tool.call(
      { input: patch("*** Update File: a.py", "@@ def g():", "-    y = 2", "+    y = 20") },
      ctx,
    );
    expect(out.isError).toBeFalsy();
    expect(out.content).toBe("Applied the patch:\nM a.py");
    // The anchor picked the second `y = 2`, not the first.
    expect(at("a.py")).toBe("def f():\n    x = 1\n    y = 2\n    return x + y\n\ndef g():\n    y = 20\n");
    expect(out.metadata?.files).toEqual([
      { path: join(dir, "a.py"), action: "update", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });

  it("adds, moves and deletes in one call; the moved file keeps CRLF and the result is exact", async () => {
    const { dir, ctx, tool, at } = await setup({ "m.txt": "a\r\nb\r\nc\r\n", "gone.txt": "bye\n" });
    const out = await tool.call(
      {
        input: patch(
          "*** Add File: sub/new.txt",
          "+hello",
          "+world",
          "*** Update File: m.txt",
          "*** Move to: moved/m.txt",
          "@@",
          " a",
          "-b",
          "+B",
          " c",
          "*** End of File",
          "*** Delete File: gone.txt",
        ),
      },
      ctx,
    );
    expect(out.isError).toBeFalsy();
    expect(out.content).toBe("Applied the patch:\nA sub/new.txt\nR m.txt -> moved/m.txt\nD gone.txt");
    expect(at("sub/new.txt")).toBe("hello\nworld\n");
    expect(at("moved/m.txt")).toBe("a\r\nB\r\nc\r\n");
    expect(existsSync(join(dir, "m.txt"))).toBe(false);
    expect(existsSync(join(dir, "gone.txt"))).toBe(false);
    // What it wrote counts as read: a second patch on the new files needs no Read.
    const again = await tool.call({ input: patch("*** Update File: sub/new.txt", "@@", "-world", "+there") }, ctx);
    expect(again.isError).toBeFalsy();
    expect(at("sub/new.txt")).toBe("hello\nthere\n");
  });

  it("matches context ignoring trailing whitespace when the exact lines are not there", async () => {
    const { ctx, tool, at } = await setup({ "w.txt": "one   \ntwo\nthree\n" });
    const out = await tool.call({ input: patch("*** Update File: w.txt", "@@", " one", "-two", "+TWO") }, ctx);
    expect(out.isError).toBeFalsy();
    expect(at("w.txt")).toBe("one   \nTWO\nthree\n");
  });

  it("refuses a hunk that does not match, names it, and writes no file of the patch", async () => {
    const { ctx, tool, at, dir } = await setup({ "a.txt": "1\n2\n3\n", "b.txt": "x\ny\n" });
    const out = await tool.call(
      {
        input: patch(
          "*** Update File: a.txt",
          "@@",
          "-1",
          "+one",
          "*** Add File: c.txt",
          "+c",
          "*** Update File: b.txt",
          "@@",
          " x",
          "-y",
          "+Y",
          "@@",
          "-not there",
          "+z",
        ),
      },
      ctx,
    );
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /hunk 2 of b\.txt \(patch line 13\) does not match the file: its context and removed lines \("not there"\) were not found after line 2\. Nothing was changed\./,
    );
    expect(at("a.txt")).toBe("1\n2\n3\n");
    expect(at("b.txt")).toBe("x\ny\n");
    expect(existsSync(join(dir, "c.txt"))).toBe(false);
  });

  it("names a missing @@ anchor", async () => {
    const { ctx, tool } = await setup({ "a.txt": "1\n2\n" });
    const out = await tool.call({ input: patch("*** Update File: a.txt", "@@ def missing():", "-1", "+one") }, ctx);
    expect(out.content).toMatch(/hunk 1 of a\.txt \(patch line 3\): its "@@ def missing\(\):" line was not found/);
  });

  it("rolls back the files it already wrote when a later write fails", async () => {
    const { ctx, tool, at, dir } = await setup({ "a.txt": "1\n", "gone.txt": "keep me\n" });
    const written: string[] = [];
    // The disk fails at the third file's write, after the first two were written.
    raceSeams.at = (point, real) => {
      if (point !== "written") return;
      written.push(real);
      if (real.endsWith("late.txt")) throw new ToolFailure("No space left on the device (simulated).");
    };
    try {
      const out = await tool.call(
        {
          input: patch(
            "*** Update File: a.txt",
            "@@",
            "-1",
            "+one",
            "*** Delete File: gone.txt",
            "*** Add File: new.txt",
            "+n",
            "*** Add File: late.txt",
            "+x",
          ),
        },
        ctx,
      );
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(
        /No space left on the device \(simulated\)\. The patch was rolled back: no file was changed\./,
      );
    } finally {
      raceSeams.at = undefined;
    }
    expect(written.map((p) => p.slice(dir.length + 1))).toEqual(["a.txt", "new.txt", "late.txt", "gone.txt", "a.txt"]);
    expect(at("a.txt")).toBe("1\n");
    expect(at("gone.txt")).toBe("keep me\n");
    expect(existsSync(join(dir, "new.txt"))).toBe(false);
    expect(existsSync(join(dir, "late.txt"))).toBe(false);
  });

  it("keeps read-before-write: an unread or changed file is refused, an existing file is never added over", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "unread.txt"), "secret\n");
    const ctx = toolContext(dir);
    const tool = new ApplyPatchTool();
    const unread = await tool.call({ input: patch("*** Update File: unread.txt", "@@", "-secret", "+s") }, ctx);
    expect(unread.content).toMatch(/has not been read in this run/);
    expect(await tool.preconditions({ input: patch("*** Delete File: unread.txt") }, ctx)).toMatch(
      /has not been read in this run/,
    );
    const over = await tool.call({ input: patch("*** Add File: unread.txt", "+x") }, ctx);
    expect(over.content).toMatch(/already exists, so "\*\*\* Add File:" would overwrite it/);
    expect(readFileSync(join(dir, "unread.txt"), "utf8")).toBe("secret\n");
    await new ReadTool().call({ file_path: join(dir, "unread.txt") }, ctx);
    writeFileSync(join(dir, "unread.txt"), "changed\n");
    const stale = await tool.call({ input: patch("*** Update File: unread.txt", "@@", "-changed", "+c") }, ctx);
    expect(stale.content).toMatch(/has changed since it was last read/);
  });

  it("validates before any vote: paths outside the roots, one file in two operations, unparseable patches", async () => {
    const { ctx, tool } = await setup({ "a.txt": "1\n" });
    expect(await tool.validateInput({ input: patch("*** Add File: /etc/evil", "+x") }, ctx)).toMatch(
      /outside the folders this run may access/,
    );
    expect(
      await tool.validateInput({ input: patch("*** Delete File: a.txt", "*** Add File: a.txt", "+x") }, ctx),
    ).toMatch(/appears in more than one file operation/);
    expect(await tool.validateInput({ input: "not a patch" }, ctx)).toMatch(
      /^The patch was not applied: The patch must start/,
    );
    // Each file it touches is what a permission rule must authorize; an unparseable patch names none.
    expect(
      tool.permissionRuleContent({ input: patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-1", "+2") }),
    ).toEqual(["a.txt", "b.txt"]);
    expect(tool.permissionRuleContent({ input: "junk" })).toEqual([]);
  });
});

describe("toolProfile defaults", () => {
  it("gives OpenAI gpt-5.x and codex models apply_patch, everything else Edit; the user's patterns come first", () => {
    expect(surfaceFor("openai:gpt-5.1", undefined)).toBe("apply_patch");
    expect(surfaceFor("openai:gpt-5.1-codex-max", undefined)).toBe("apply_patch");
    expect(surfaceFor("openrouter:openai/gpt-5.2", undefined)).toBe("apply_patch");
    expect(surfaceFor("openai:gpt-4.1", undefined)).toBe("edit");
    expect(surfaceFor("anthropic:claude-sonnet-4-5", undefined)).toBe("edit");
    expect(surfaceFor("openai:gpt-4.1", { "openai:gpt-4.1*": "apply_patch" })).toBe("apply_patch");
    expect(surfaceFor("openai:gpt-5", { "openai:*": "edit" })).toBe("edit");
    expect(surfaceFor("openai:gpt-5", false)).toBe("both");
  });
});

describe("what models write around the grammar", () => {
  it("ignores unified-diff ranges and a closing @@ on a header, and matches typographic quotes and dashes", async () => {
    const { ctx, tool, at } = await setup({ "q.py": 'def f():\n    return "it\'s - fine"\n\ndef g():\n    pass\n' });
    const out = await tool.call(
      {
        input: patch(
          "*** Update File: q.py",
          "@@ -1,2 +1,2 @@",
          " def f():",
          "-    return \u201cit\u2019s \u2013 fine\u201d",
          "+    return 'ok'",
          "@@ def g(): @@",
          "-    pass",
          "+    return 1",
        ),
      },
      ctx,
    );
    expect(out.isError, out.content).toBeFalsy();
    expect(at("q.py")).toBe("def f():\n    return 'ok'\n\ndef g():\n    return 1\n");
  });
});
