/**
 * What of / a sandboxed command sees (red team u, left open): the whole of / was bound read-only
 * but for the home, /tmp and /run, so other projects, other users' homes, /srv, /mnt or a data
 * disk were readable, their .env files included. Now only the system's folders are shown
 * (SYSTEM_ROOTS in plugins/sandbox/bwrap.ts), with the run's own folders and the folders of the
 * PATH's programs; the rest of / is not there, and the top of / is read-only. Real bubblewrap,
 * through summon() with the scripted model.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { outputs, runBash, SKIP, sandboxPlace } from "./helpers";

/** A folder at the top of / (outside every system folder, /tmp and the home), as /srv/app or /data would be. */
function topFolder(): string | undefined {
  try {
    return mkdtempSync("/ubq-sbx-outside-");
  } catch {
    return undefined; // not root: / is not writable here (CI runs as root)
  }
}

const outside = SKIP ? undefined : topFolder();
afterAll(() => {
  if (outside) rmSync(outside, { recursive: true, force: true });
});

describe.skipIf(SKIP || !outside)("the folders of / a sandboxed command sees", () => {
  const place = sandboxPlace();

  it("a folder outside the system's is not there: another project's .env is not read, / does not list it, / is read-only", async () => {
    writeFileSync(join(outside!, ".env"), "OTHER_TOKEN=leak-outside\n");
    const messages = await runBash(
      [
        `cat ${outside}/.env`,
        "ls /",
        "touch /planted-at-top",
        "cat /etc/passwd | head -1 && ls /usr/bin/env",
        `echo "$(cat ${outside}/.env 2>/dev/null)" > seen.txt; cat seen.txt`,
      ],
      { cwd: place.ws(), sandbox: true },
    );
    const out = outputs(messages);
    expect(out.c0!.isError).toBe(true);
    expect(out.c0!.content).toMatch(/No such file or directory/);
    expect(out.c1!.content).toContain("usr");
    expect(out.c1!.content).not.toContain(basename(outside!));
    expect(out.c2!.isError).toBe(true);
    expect(out.c2!.content).toMatch(/Read-only file system|Permission denied/);
    expect(out.c3!.isError, out.c3!.content).toBe(false);
    expect(out.c3!.content).toContain("/usr/bin/env");
    expect(JSON.stringify(messages)).not.toContain("leak-outside");
  });

  it("a program on the PATH from such a folder still runs, and its folder shows no more than its place", async () => {
    const bin = join(outside!, "tools", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "hello-outside"), "#!/bin/sh\necho hello from outside\n");
    chmodSync(join(bin, "hello-outside"), 0o755);
    writeFileSync(join(outside!, ".env"), "OTHER_TOKEN=leak-outside\n");
    // sandboxPlace() (./helpers) unstubs every key after each test.
    vi.stubEnv("PATH", `${bin}:${process.env.PATH}`);
    const out = outputs(await runBash(["hello-outside", `cat ${outside}/.env`], { cwd: place.ws(), sandbox: true }));
    expect(out.c0!.isError, out.c0!.content).toBe(false);
    expect(out.c0!.content).toContain("hello from outside");
    expect(out.c1!.isError).toBe(true);
  });

  it("the workspace and its files are there as before", async () => {
    const out = outputs(
      await runBash(["echo made > made.txt && cat made.txt", "git status --short | head -3"], {
        cwd: place.ws(),
        sandbox: true,
      }),
    );
    expect(out.c0!.content).toContain("made");
    expect(out.c1!.isError, out.c1!.content).toBe(false);
  });
});
