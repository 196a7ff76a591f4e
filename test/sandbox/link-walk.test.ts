/**
 * The walk for files with more than one name (red team zb, ZB3) keeps each folder's reading between
 * a run's commands: what changed between two walks must show. Real files and hard links in temp
 * folders.
 */
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LinkWalk } from "../../plugins/sandbox/link-walk";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
};

describe("LinkWalk's kept readings", () => {
  it("sees a link made, a folder made and a folder removed between two walks, in the walk's order", () => {
    const root = temp("ubq-linkwalk-");
    const store = temp("ubq-linkwalk-store-");
    writeFileSync(join(store, "a.js"), "a\n");
    writeFileSync(join(store, "b.js"), "b\n");
    mkdirSync(join(root, "pkg", "lib"), { recursive: true });
    mkdirSync(join(root, "gone"));
    writeFileSync(join(root, "pkg", "plain.js"), "x\n");
    const walk = new LinkWalk({ racyMs: -1 });
    expect(walk.walk(root)).toEqual([]);
    linkSync(join(store, "a.js"), join(root, "pkg", "lib", "a.js"));
    mkdirSync(join(root, "new"));
    linkSync(join(store, "b.js"), join(root, "new", "b.js"));
    rmSync(join(root, "gone"), { recursive: true });
    const both = [join(root, "new", "b.js"), join(root, "pkg", "lib", "a.js")].sort();
    expect(walk.walk(root).sort()).toEqual(both);
    // Nothing changed: the same answer from the kept readings.
    expect(walk.walk(root).sort()).toEqual(both);
    // A folder skipped (bound read-only whole elsewhere) is not entered.
    expect(walk.walk(root, new Set([join(root, "new")]))).toEqual([join(root, "pkg", "lib", "a.js")]);
  });
});
