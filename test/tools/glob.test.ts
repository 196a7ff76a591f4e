import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { GlobTool } from "../../plugins/tool-glob/index";
import { tempDir, toolContext } from "./helpers";

const glob = new GlobTool();

/** Create files with modification times `seconds` ago. */
function files(dir: string, spec: Record<string, number>) {
  const now = Date.now() / 1000;
  for (const [name, age] of Object.entries(spec)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, name);
    utimesSync(path, now - age, now - age);
  }
}

describe("Glob", () => {
  it("lists matching files newest first by modification time", async () => {
    const dir = tempDir();
    files(dir, { "old.ts": 300, "src/new.ts": 10, "src/deep/mid.ts": 100, "notes.md": 1 });
    const out = await glob.call({ pattern: "**/*.ts" }, toolContext(dir));
    expect(out.content).toBe("src/new.ts\nsrc/deep/mid.ts\nold.ts");
  });

  it("returns files only, hidden files included", async () => {
    const dir = tempDir();
    files(dir, { "a/b.txt": 5, ".hidden/c.txt": 1 });
    const out = await glob.call({ pattern: "**/*" }, toolContext(dir));
    expect(out.content.split("\n").sort()).toEqual([".hidden/c.txt", "a/b.txt"]);
  });

  it("skips .git, node_modules and build/cache folders, unless the pattern names one", async () => {
    const dir = tempDir();
    files(dir, {
      "src/a.js": 1,
      ".git/hooks/h.js": 1,
      "node_modules/x/i.js": 1,
      "dist/out.js": 1,
      "pkg/__pycache__/m.js": 1,
      "coverage/c.js": 1,
    });
    expect((await glob.call({ pattern: "**/*.js" }, toolContext(dir))).content).toBe("src/a.js");
    expect((await glob.call({ pattern: "dist/**/*.js" }, toolContext(dir))).content).toBe("dist/out.js");
  });

  it("searches under path and shows paths relative to the cwd", async () => {
    const dir = tempDir();
    files(dir, { "pkg/src/a.ts": 2, "pkg/src/b.ts": 1, "other/c.ts": 1 });
    const out = await glob.call({ pattern: "*.ts", path: "pkg/src" }, toolContext(dir));
    expect(out.content).toBe("pkg/src/b.ts\npkg/src/a.ts");
  });

  it("returns at most 500 files, with a note when cut", async () => {
    const dir = tempDir();
    const spec: Record<string, number> = {};
    for (let i = 0; i < 520; i++) spec[`f${String(i).padStart(3, "0")}.txt`] = i;
    files(dir, spec);
    const out = await glob.call({ pattern: "*.txt" }, toolContext(dir));
    const [list, note] = out.content.split("\n\n");
    expect(list!.split("\n")).toHaveLength(500);
    expect(list!.split("\n")[0]).toBe("f000.txt");
    expect(note).toContain("Showing the 500 most recently modified of 520 matching files");
    expect(out.metadata).toMatchObject({ count: 520, shown: 500, truncated: true });
  });

  it("says when nothing matches, and refuses patterns that leave the search folder", async () => {
    const dir = tempDir();
    const none = await glob.call({ pattern: "**/*.rs" }, toolContext(dir));
    expect(none.content).toBe("No files found matching **/*.rs in the working directory.");
    const up = await glob.call({ pattern: "../**/*" }, toolContext(dir));
    expect(up.isError).toBe(true);
    expect(up.content).toContain("set path");
  });

  it("errors for a missing folder", async () => {
    const dir = tempDir();
    const out = await glob.call({ pattern: "*", path: "nope" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("Folder does not exist");
  });

  it("is read-only and concurrency-safe", () => {
    expect(glob.isReadOnly()).toBe(true);
    expect(glob.isConcurrencySafe()).toBe(true);
  });
});
