import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveReal } from "../../plugins/_kits/paths/index";
import { resolvePermitted } from "../../plugins/_kits/file-tools/index";
import { EditTool } from "../../plugins/tool-edit/index";
import { GlobTool } from "../../plugins/tool-glob/index";
import { GrepTool } from "../../plugins/tool-grep/index";
import { ReadTool } from "../../plugins/tool-read/index";
import { WriteTool } from "../../plugins/tool-write/index";
import { tempDir, toolContext } from "./helpers";

describe("permitted roots", () => {
  it("resolves relative paths against the cwd", async () => {
    const dir = tempDir();
    const { absolute, real } = await resolvePermitted(toolContext(dir), "sub/../a.txt");
    expect(absolute).toBe(join(dir, "a.txt"));
    expect(real).toBe(join(dir, "a.txt"));
  });

  it("refuses .. escapes and absolute paths outside, naming the permitted roots", async () => {
    const dir = tempDir();
    await expect(resolvePermitted(toolContext(dir), "../x")).rejects.toThrow(`Permitted: ${dir}`);
    await expect(resolvePermitted(toolContext(dir), "/etc/hostname")).rejects.toThrow(
      "is outside the folders this run may access",
    );
  });

  it("does not take a sibling folder sharing the root's prefix for the root", async () => {
    const dir = tempDir();
    mkdirSync(`${dir}-sibling`, { recursive: true });
    try {
      await expect(resolvePermitted(toolContext(dir), `${dir}-sibling/f`)).rejects.toThrow("outside");
    } finally {
      (await import("node:fs")).rmSync(`${dir}-sibling`, { recursive: true, force: true });
    }
  });

  it("permits an additional root", async () => {
    const dir = tempDir();
    const extra = tempDir();
    writeFileSync(join(extra, "n.txt"), "extra\n");
    const out = await new ReadTool().call(
      { file_path: join(extra, "n.txt") },
      toolContext(dir, { roots: [dir, extra] }),
    );
    expect(out.content).toBe("     1\textra");
  });

  it("refuses a symlink inside the cwd that points outside it (read, write, edit, glob, grep)", async () => {
    const dir = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, "secret.txt"), "secret\n");
    symlinkSync(join(outside, "secret.txt"), join(dir, "innocent.txt"));
    symlinkSync(outside, join(dir, "linkdir"));
    const ctx = toolContext(dir);
    const results = [
      await new ReadTool().call({ file_path: "innocent.txt" }, ctx),
      await new WriteTool().call({ file_path: "innocent.txt", content: "pwned\n" }, ctx),
      await new WriteTool().call({ file_path: "linkdir/new.txt", content: "pwned\n" }, ctx),
      await new EditTool().call({ file_path: "innocent.txt", old_string: "secret", new_string: "pwned" }, ctx),
      await new GlobTool().call({ pattern: "*", path: "linkdir" }, ctx),
      await new GrepTool().call({ pattern: "secret", path: "linkdir" }, ctx),
    ];
    for (const out of results) {
      expect(out.isError).toBe(true);
      expect(out.content).toContain(`resolves to ${outside}`);
      expect(out.content).toContain(`Permitted: ${dir}`);
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
  });

  it("follows a dangling symlink to its target, so a write cannot create a file outside", async () => {
    const dir = tempDir();
    const outside = tempDir();
    symlinkSync(join(outside, "created-by-agent.txt"), join(dir, "dangling.txt"));
    expect(await resolveReal(join(dir, "dangling.txt"))).toBe(join(outside, "created-by-agent.txt"));
    const out = await new WriteTool().call({ file_path: "dangling.txt", content: "x\n" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(existsSync(join(outside, "created-by-agent.txt"))).toBe(false);
  });

  it("resolves a missing file through its nearest existing parent", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "alias"));
    expect(await resolveReal(join(dir, "alias/not/yet/there.txt"))).toBe(join(dir, "real/not/yet/there.txt"));
  });
});
