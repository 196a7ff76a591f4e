/**
 * Write and Edit write the file that was judged (issue 36, build point 6). Each race is made
 * deterministic: the path is swapped at a fixed point between the judgement and the write —
 * after the permission engine voted (a later vote through the real funnel), or at a race point
 * of the file-tools kit (`raceSeams`) — and every case runs on Linux's descriptor walk and on
 * the lstat check used where /proc is missing (`folderSeams.portable`).
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PERMISSION_STAGE } from "ubiquity/plugin";
import type { Plugin } from "ubiquity";
import { folderSeams, raceSeams, type RacePoint } from "../../plugins/_kits/file-tools/index";
import { ReadTool } from "../../plugins/tool-read/index";
import { WriteTool } from "../../plugins/tool-write/index";
import { EditTool } from "../../plugins/tool-edit/index";
import { runCalls } from "../permissions/helpers";
import { tempDir, toolContext } from "./helpers";

const read = new ReadTool();
const write = new WriteTool();
const edit = new EditTool();

afterEach(() => {
  raceSeams.at = undefined;
  folderSeams.portable = undefined;
});

/** A project with a `.git` folder, a `docs` folder and a folder outside it. */
function project() {
  const dir = tempDir();
  mkdirSync(join(dir, ".git"));
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(join(dir, "docs"));
  const outside = tempDir("ubiquity-outside-");
  return { dir, outside, git: join(dir, ".git"), docs: join(dir, "docs") };
}

/** Replace the folder `path` by a link to `target` (the real folder steps aside, as a swapper does). */
function swapForLink(path: string, target: string): void {
  renameSync(path, `${path}.parked`);
  symlinkSync(target, path);
}

/** Run `fn` once, at race point `point`. */
function at(point: RacePoint, fn: () => void): void {
  let done = false;
  raceSeams.at = (p) => {
    if (p !== point || done) return;
    done = true;
    fn();
  };
}

const SWAPPED = /no longer the folder that was judged|was replaced by a link/;

for (const walk of ["descriptors", "portable"] as const) {
  describe(`Write and Edit write the judged file (${walk === "descriptors" ? "Linux: held folders" : "lstat checks, as without /proc"})`, () => {
    const setWalk = () => void (folderSeams.portable = walk === "portable");

    it.skipIf(walk === "descriptors" && process.platform !== "linux")(
      "a parent swapped for a link to .git once the folders are reached: refused, nothing in .git",
      async () => {
        setWalk();
        const p = project();
        at("held", () => swapForLink(p.docs, p.git));
        const out = await write.call({ file_path: "docs/commondir", content: "x\n" }, toolContext(p.dir));
        expect(out.isError).toBe(true);
        expect(out.content).toMatch(SWAPPED);
        expect(out.content).toContain(join(p.dir, "docs"));
        expect(readdirSync(p.git)).toEqual(["HEAD"]);
        expect(readdirSync(`${p.docs}.parked`)).toEqual([]); // no temp file left behind
      },
    );

    it("a parent swapped for a link before the folders are walked: refused, nothing in .git", async () => {
      setWalk();
      const p = project();
      at("judged", () => swapForLink(p.docs, p.git));
      const out = await write.call({ file_path: "docs/commondir", content: "x\n" }, toolContext(p.dir));
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(/docs is no longer the folder that was judged: it was replaced by a link to .*\.git/);
      expect(readdirSync(p.git)).toEqual(["HEAD"]);
    });

    it("a parent swapped for a link right before the rename: refused, the temp file removed, nothing in .git", async () => {
      setWalk();
      const p = project();
      at("written", () => swapForLink(p.docs, p.git));
      const out = await write.call({ file_path: "docs/commondir", content: "x\n" }, toolContext(p.dir));
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(SWAPPED);
      expect(readdirSync(p.git)).toEqual(["HEAD"]);
      // Held open, the folder that stepped aside is where the temp file is removed; the lstat check
      // cannot reach it there, and leaves it to the sweep of stale temp files at the next start.
      expect(readdirSync(`${p.docs}.parked`)).toEqual(
        walk === "descriptors" ? [] : [expect.stringMatching(/^\.commondir\.\d+\.[0-9a-f]{8}\.tmp$/)],
      );
    });

    it("a parent moved into .git after the rename: the file that landed there is removed and the call fails naming the swap", async () => {
      setWalk();
      const p = project();
      at("renamed", () => {
        renameSync(p.docs, join(p.git, "hooks"));
        symlinkSync(join(p.git, "hooks"), p.docs);
      });
      const w = await write.call({ file_path: "docs/pre-commit", content: "#!/bin/sh\n" }, toolContext(p.dir));
      expect(w.isError).toBe(true);
      expect(w.content).toMatch(/no longer the folder that was judged/);
      expect(w.content).toMatch(/removed again/);
      expect(readdirSync(join(p.git, "hooks"))).toEqual([]);
    });

    it("the final component swapped for a link to .git: Write and Edit refuse, .git keeps its content", async () => {
      setWalk();
      const p = project();
      const ctx = toolContext(p.dir);
      writeFileSync(join(p.docs, "commondir"), "mine\n");
      await read.call({ file_path: "docs/commondir" }, ctx);
      const swap = () => {
        renameSync(join(p.docs, "commondir"), join(p.docs, "commondir.parked"));
        symlinkSync(join(p.git, "HEAD"), join(p.docs, "commondir"));
      };
      at("held", swap);
      const w = await write.call({ file_path: "docs/commondir", content: "x\n" }, ctx);
      expect(w.isError).toBe(true);
      expect(w.content).toMatch(/was replaced by a link/);
      rmSync(join(p.docs, "commondir"));
      renameSync(join(p.docs, "commondir.parked"), join(p.docs, "commondir"));
      at("held", swap); // Edit reads the original first: the read is refused
      const e = await edit.call({ file_path: "docs/commondir", old_string: "mine", new_string: "x" }, ctx);
      expect(e.isError).toBe(true);
      expect(e.content).toMatch(/Not read: .* was replaced by a link/);
      expect(readFileSync(join(p.git, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
      expect(lstatSync(join(p.docs, "commondir")).isSymbolicLink()).toBe(true);
    });

    it("a parent swapped for a link to a folder outside the workspace: refused, nothing written outside", async () => {
      setWalk();
      const p = project();
      at("held", () => swapForLink(p.docs, p.outside));
      const out = await write.call({ file_path: "docs/notes.md", content: "x\n" }, toolContext(p.dir));
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(SWAPPED);
      expect(readdirSync(p.outside)).toEqual([]);
    });

    it("the normal case is unchanged: new folders made, an existing file's mode kept, no temp left", async () => {
      setWalk();
      const p = project();
      const ctx = toolContext(p.dir);
      const made = await write.call({ file_path: "docs/a/b/c.md", content: "one\n" }, ctx);
      expect(made.content).toBe("Created docs/a/b/c.md (1 line).");
      writeFileSync(join(p.dir, "run.sh"), "echo hi\n", { mode: 0o755 });
      await read.call({ file_path: "run.sh" }, ctx);
      const edited = await edit.call({ file_path: "run.sh", old_string: "hi", new_string: "there" }, ctx);
      expect(edited.isError).toBeFalsy();
      expect(readFileSync(join(p.dir, "run.sh"), "utf8")).toBe("echo there\n");
      expect(lstatSync(join(p.dir, "run.sh")).mode & 0o777).toBe(0o755);
      expect(readdirSync(p.dir).sort()).toEqual([".git", "docs", "run.sh"]);
      expect(readdirSync(join(p.docs, "a", "b"))).toEqual(["c.md"]);
    });

    it("a legitimate link judged and allowed still works: the write goes to the real file, the link stays", async () => {
      setWalk();
      const p = project();
      const ctx = toolContext(p.dir);
      writeFileSync(join(p.docs, "real.md"), "old\n");
      symlinkSync("real.md", join(p.docs, "link.md"));
      symlinkSync("docs", join(p.dir, "docs-link"));
      await read.call({ file_path: "docs/link.md" }, ctx);
      expect((await write.call({ file_path: "docs/link.md", content: "new\n" }, ctx)).isError).toBeFalsy();
      expect(readFileSync(join(p.docs, "real.md"), "utf8")).toBe("new\n");
      expect(lstatSync(join(p.docs, "link.md")).isSymbolicLink()).toBe(true);
      expect((await write.call({ file_path: "docs-link/through.md", content: "t\n" }, ctx)).isError).toBeFalsy();
      expect(readFileSync(join(p.docs, "through.md"), "utf8")).toBe("t\n");
    });

    it("a hard link to a file in .git: the write replaces the name, the .git file keeps its content", async () => {
      setWalk();
      const p = project();
      const ctx = toolContext(p.dir);
      linkSync(join(p.git, "HEAD"), join(p.docs, "head"));
      await read.call({ file_path: "docs/head" }, ctx);
      expect((await write.call({ file_path: "docs/head", content: "changed\n" }, ctx)).isError).toBeFalsy();
      expect(readFileSync(join(p.docs, "head"), "utf8")).toBe("changed\n");
      expect(readFileSync(join(p.git, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    });
  });
}

describe("the path the permission engine judged is the path written", () => {
  /** A vote after the engine's that swaps docs for a link to .git: the engine judged the real folder. */
  const swapAfterJudgement = (docs: string, git: string): Plugin => ({
    name: "test:swap-after-judgement",
    apply(kernel) {
      kernel.hooks.tool.permission.tap(
        { name: "test:swap-after-judgement", stage: PERMISSION_STAGE.OBSERVE },
        (verdict) => {
          if (!lstatSync(docs).isSymbolicLink()) swapForLink(docs, git);
          return verdict;
        },
      );
    },
  });

  for (const mode of ["bypassPermissions", "acceptEdits"] as const) {
    it(`${mode}: docs swapped for a link to .git after the engine allowed Write(docs/commondir) — refused, naming both paths`, async () => {
      const p = project();
      const { results } = await runCalls(
        [{ toolName: "Write", input: { file_path: "docs/commondir", content: "../x\n" } }],
        {
          cwd: p.dir,
          permissionMode: mode,
          tools: [write],
          plugins: [(await import("ubiquity/plugins/permissions")).default(), swapAfterJudgement(p.docs, p.git)],
        },
      );
      expect(results).toHaveLength(1);
      expect(results[0]!.output.isError).toBe(true);
      expect(results[0]!.output.content).toMatch(
        new RegExp(`resolves now to ${p.git}/commondir but was judged as ${p.docs}/commondir`),
      );
      expect(existsSync(join(p.git, "commondir"))).toBe(false);
      expect(readdirSync(p.git)).toEqual(["HEAD"]);
    });
  }

  it("without a swap the judged write goes through (bypassPermissions)", async () => {
    const p = project();
    const { results } = await runCalls(
      [{ toolName: "Write", input: { file_path: "docs/commondir", content: "../x\n" } }],
      {
        cwd: p.dir,
        permissionMode: "bypassPermissions",
        tools: [write],
      },
    );
    expect(results[0]!.output.isError).toBeFalsy();
    expect(readFileSync(join(p.docs, "commondir"), "utf8")).toBe("../x\n");
  });
});
