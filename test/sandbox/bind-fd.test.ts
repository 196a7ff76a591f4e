/**
 * Writable folders are bound by descriptor (plugins/sandbox/pin.ts): a folder swapped for a
 * symlink after the spawn was prepared — between `wrap` and the spawn, the window every spawn
 * has (an MCP server starts later still) — is not bound where the link leads. Real bubblewrap,
 * real folders; the swap happens between `wrap` and the spawn, so no timing is involved. And
 * the check inside the sandbox, before the command, that what bwrap mounted is the folder.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResolvedOptions } from "ubiquity/plugin";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { innerCommand, type Profile } from "../../plugins/sandbox/bwrap";
import { BASH_FLAGS, systemBash } from "../../plugins/sandbox/pin";
import { sandboxSettings } from "../../plugins/sandbox/config";
import { SandboxRuntime, type SpawnSpec } from "../../plugins/sandbox/runtime";
import { SKIP } from "./helpers";

describe.skipIf(SKIP)("writable folders bound by descriptor", () => {
  let made: string[] = [];
  let runtime: SandboxRuntime | undefined;
  const folder = (parent: string, prefix: string) => {
    const dir = realpathSync(mkdtempSync(join(parent, prefix)));
    made.push(dir);
    return dir;
  };
  beforeEach(() => {
    made = [];
  });
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  /** A sandbox whose writable folders are `ws` (the cwd) and `lib`, and the spawn of `script` in it, prepared. */
  const prepared = (
    ws: string,
    lib: string,
    script: string,
    home = folder(tmpdir(), "ubq-bindfd-home-"),
  ): SpawnSpec => {
    const options = { cwd: ws, sandbox: true, additionalDirectories: [lib] } as unknown as ResolvedOptions;
    runtime = new SandboxRuntime(sandboxSettings(options, home, {}), sandboxAvailability(), [], () => {});
    return runtime.wrap(
      { command: "/bin/sh", args: ["-c", script], cwd: ws, env: { PATH: "/usr/bin:/bin" } },
      { kind: "hook" },
    );
  };
  const run = (spec: SpawnSpec) =>
    spawnSync(spec.command, spec.args, { cwd: spec.cwd, env: spec.env as NodeJS.ProcessEnv, encoding: "utf8" });
  /** `lib` renamed away and a relative symlink to `outside` put in its place (it leads there inside the sandbox too). */
  const swap = (lib: string, outside: string) => {
    renameSync(lib, `${lib}.old`);
    made.push(`${lib}.old`);
    symlinkSync(relative(join(lib, ".."), outside), lib);
  };

  it("a folder swapped for a link after the spawn was prepared is not bound where the link leads (/tmp)", () => {
    const ws = folder(tmpdir(), "ubq-bindfd-ws-");
    const lib = folder(tmpdir(), "ubq-bindfd-lib-");
    const outside = folder("/var/tmp", "ubq-bindfd-outside-");
    const spec = prepared(ws, lib, `echo pwned > ${lib}/planted`);
    swap(lib, outside);
    const result = run(spec);
    expect(existsSync(join(outside, "planted")), "nothing lands where the link leads").toBe(false);
    // /tmp is private inside: the link is out of sight there, so the folder granted is bound at
    // its place, and the write lands in it (renamed since, the same inode).
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(`${lib}.old`, "planted"), "utf8")).toBe("pwned\n");
  });

  it("a folder swapped for a link after the spawn was prepared is not bound where the link leads (a folder shown inside)", () => {
    const ws = folder(tmpdir(), "ubq-bindfd-ws-");
    // A folder the sandbox shows as on the host: a readable cache of the home (/var/tmp was one,
    // until red team zb made it private inside, as /tmp is).
    const home = folder(tmpdir(), "ubq-bindfd-home-");
    const cache = join(home, ".cache", "pip");
    mkdirSync(cache, { recursive: true });
    const lib = folder(cache, "ubq-bindfd-lib-");
    const outside = folder(cache, "ubq-bindfd-outside-");
    const spec = prepared(ws, lib, `echo pwned > ${lib}/planted`, home);
    swap(lib, outside);
    const result = run(spec);
    expect(existsSync(join(outside, "planted")), "nothing lands where the link leads").toBe(false);
    // The link is in sight inside: bubblewrap finds that what it mounted there is not the folder it was given, and stops.
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("Race condition binding dirfd");
    expect(existsSync(join(`${lib}.old`, "planted"))).toBe(false);
  });

  it("a folder that became a link before the spawn was prepared is not bound, and the command is told why", () => {
    const ws = folder(tmpdir(), "ubq-bindfd-ws-");
    const lib = folder("/var/tmp", "ubq-bindfd-lib-");
    const outside = folder("/var/tmp", "ubq-bindfd-outside-");
    const options = { cwd: ws, sandbox: true, additionalDirectories: [lib] } as unknown as ResolvedOptions;
    runtime = new SandboxRuntime(
      sandboxSettings(options, folder(tmpdir(), "ubq-bindfd-home-"), {}),
      sandboxAvailability(),
      [],
      () => {},
    );
    swap(lib, outside);
    const result = run(
      runtime.wrap(
        {
          command: "/bin/sh",
          args: ["-c", `echo pwned > ${lib}/planted || echo refused`],
          cwd: ws,
          env: { PATH: "/usr/bin:/bin" },
        },
        { kind: "hook" },
      ),
    );
    expect(result.stderr).toContain(
      `ubiquity:sandbox: ${lib} is no longer the folder it was when it was granted (replaced, or swapped for a symlink), so it is not writable`,
    );
    expect(result.stdout).toContain("refused");
    expect(existsSync(join(outside, "planted"))).toBe(false);
    expect(existsSync(join(`${lib}.old`, "planted"))).toBe(false);
  });

  it("the usual case: the workspace and the other writable folder are writable, the rest read-only", () => {
    const ws = folder(tmpdir(), "ubq-bindfd-ws-");
    const lib = folder("/var/tmp", "ubq-bindfd-lib-");
    const elsewhere = folder("/var/tmp", "ubq-bindfd-elsewhere-");
    const spec = prepared(
      ws,
      lib,
      `echo a > inside && echo b > ${lib}/also && { (echo c > ${elsewhere}/no) 2>/dev/null || echo refused; } && cat inside`,
    );
    // bwrap gets the folders by descriptor, never by path.
    expect(spec.args).toContain("--bind-fd");
    expect(spec.args.join(" ")).not.toContain(`--bind ${lib} `);
    const result = run(spec);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe("refused\na\n");
    expect(result.stderr).toBe("");
    expect(readFileSync(join(ws, "inside"), "utf8")).toBe("a\n");
    expect(readFileSync(join(lib, "also"), "utf8")).toBe("b\n");
    expect(existsSync(join(elsewhere, "no"))).toBe(false);
  });
});

describe.skipIf(SKIP)("the check inside, before the command, of what bwrap mounted", () => {
  // bwrap mounts a descriptor by the path it reads from it and checks the result by path: a folder
  // flipped with a link while it sets up can leave the folder unmounted at its place and the link's
  // target mounted at the target's. Those states, made here directly with bwrap's own options.
  let made: string[] = [];
  const folder = () => {
    const dir = realpathSync(mkdtempSync("/var/tmp/ubq-bindfd-check-"));
    made.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
    made = [];
  });
  /** bwrap with `mounts`, `granted` open on 10 and 11 (11 for `--bind-fd`), running `script` after the check of `granted` at its place (fd 10). */
  const sandboxed = (granted: string, mounts: string[], script: string) => {
    const profile = { network: { mode: "none" } } as Profile;
    const inner = innerCommand(profile, "/bin/sh", ["-c", script], [{ dest: granted, fd: 10 }], systemBash());
    const bwrap = sandboxAvailability().program!;
    const base = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent"];
    return spawnSync(
      systemBash(),
      [...BASH_FLAGS, "-c", 'exec "$@" 10<"$0" 11<"$0"', granted, bwrap, ...base, ...mounts, "--", ...inner],
      { encoding: "utf8" },
    );
  };
  const refusal = (path: string) =>
    `ubiquity:sandbox: ${path} is not the folder granted: it changed while the sandbox was set up, so the command did not run`;

  it("the folder mounted at its place: the command runs, without the descriptors", () => {
    const granted = folder();
    const result = sandboxed(granted, ["--bind-fd", "11", granted], `echo ran > ${granted}/x && ls /proc/self/fd`);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(readFileSync(join(granted, "x"), "utf8")).toBe("ran\n");
    // No descriptor of the host's mounts is left to the command (its `..` would lead out).
    const fds = result.stdout.split("\n").filter(Boolean).map(Number);
    expect(fds).toContain(0);
    expect(fds).not.toContain(10);
    expect(fds).not.toContain(11);
  });

  it("the folder not mounted at its place, another mounted where a link led: the command does not run", () => {
    const granted = folder();
    const target = folder();
    const result = sandboxed(granted, ["--bind", target, target], `echo ran > ${target}/x`);
    expect(result.stderr).toContain(refusal(granted));
    expect(result.status).toBe(125);
    expect(existsSync(join(target, "x"))).toBe(false);
  });

  it("another folder mounted at its place: the command does not run", () => {
    const granted = folder();
    const other = folder();
    const result = sandboxed(granted, ["--bind", other, granted], `echo ran > ${granted}/x`);
    expect(result.stderr).toContain(refusal(granted));
    expect(result.status).toBe(125);
    expect(existsSync(join(other, "x"))).toBe(false);
  });
});
