/**
 * A spawn the sandbox's caller starts itself (the Bash tool, background shells, command hooks:
 * `passFds`) gets bwrap straight from this process, handed the folders' and the seccomp filter's
 * descriptors in the stdio array, with no launcher shell reopening them by path. Every guarantee
 * of the launcher's spawn holds there too, each checked on the two paths side by side: the same
 * bwrap arguments, the same view from inside (what a sandboxed `ls`/`cat` sees), the filter on
 * every spawn (bwrap reads it to its end: a description shared between spawns would hand the
 * second an empty one), a folder swapped between `wrap` and the spawn refused, the notes said.
 * Real bubblewrap, real folders; the swaps happen between `wrap` and the spawn (no timing).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ResolvedOptions, ToolContext } from "ubiquity/plugin";
import { createKernel } from "../../src/index";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { sandboxSettings } from "../../plugins/sandbox/config";
import sandbox, { getSandboxApi, type SandboxApi } from "../../plugins/sandbox/index";
import { SandboxRuntime, type SpawnSpec, type SpawnUse } from "../../plugins/sandbox/runtime";
import { FILTER_FD } from "../../plugins/sandbox/seccomp";
import { withDescriptors } from "../../plugins/_kits/process/index";
import { BashTool } from "../../plugins/tool-bash/index";
import { SKIP } from "./helpers";

/** What a sandboxed process sees and may do: the probe run on both paths. */
const PROBE = [
  "echo fds: $(ls /proc/self/fd | tr '\\n' ' ')",
  "cat .env 2>&1 | sed 's/^cat: //'",
  "cat $HOME/.ssh/id_rsa 2>&1 | sed 's/^cat: //'",
  "echo home: $(ls -A $HOME 2>&1 | tr '\\n' ' ')",
  "echo root: $(ls / | tr '\\n' ' ')",
  "echo tmp: $(ls -A /tmp | tr '\\n' ' ')",
  "echo ws: $(ls -A . | tr '\\n' ' ')",
  "(echo x > /etc/ubq-direct-probe) 2>&1 | sed 's/^.*: //'",
  "(echo x > $HOME/planted) 2>&1 | sed 's/^.*: //'",
  "echo written > inside-$1 && cat inside-$1",
  "echo net: $(cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | tr '\\n' ' ')",
  // A Unix socket: the seccomp filter refuses to make one.
  "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1",
  "echo caps: $(grep CapEff /proc/self/status)",
  // The mounts, by place and options (their ids differ between two sandboxes).
  "cut -d' ' -f5,6 /proc/self/mountinfo | sort",
].join("\n");

describe.skipIf(SKIP)("bwrap handed its descriptors directly (passFds)", () => {
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

  /** A sandbox for the workspace `ws` (with a `.env`), and `lib` writable too when given. */
  const sandboxFor = (ws: string, lib?: string, givenHome?: string) => {
    home = givenHome ?? folder(tmpdir(), "ubq-direct-home-");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN PRIVATE KEY-----\n");
    writeFileSync(join(ws, ".env"), "API_TOKEN=hunter2\n");
    const options = {
      cwd: ws,
      sandbox: true,
      additionalDirectories: lib ? [lib] : [],
    } as unknown as ResolvedOptions;
    runtime = new SandboxRuntime(sandboxSettings(options, home, {}), sandboxAvailability(), [], () => {});
    return { home, runtime };
  };
  let home = "";
  /** A home and a folder of it the sandbox shows as on the host (a readable cache; /var/tmp is private inside, as /tmp is). */
  const homeWithCache = () => {
    const h = folder(tmpdir(), "ubq-direct-home-");
    const cache = join(h, ".cache", "pip");
    mkdirSync(cache, { recursive: true });
    return { h, cache };
  };
  const shell = (ws: string, script: string, ...args: string[]): SpawnSpec => ({
    command: "/bin/bash",
    args: ["-c", script, "probe", ...args],
    cwd: ws,
    env: { PATH: "/usr/bin:/bin", HOME: home },
  });
  /** Start `spec` as a caller does: its descriptors in the stdio array, released once started. */
  const run = (spec: SpawnSpec) => {
    try {
      return spawnSync(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env as NodeJS.ProcessEnv,
        encoding: "utf8",
        stdio: withDescriptors(["ignore", "pipe", "pipe"], spec.fds),
      });
    } finally {
      spec.release?.();
    }
  };
  const hook: SpawnUse = { kind: "hook" };
  const direct: SpawnUse = { kind: "hook", passFds: true };

  it("starts bwrap itself with the launcher's bwrap arguments, and no shell outside the sandbox", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    const { runtime } = sandboxFor(ws, folder("/var/tmp", "ubq-direct-lib-"));
    // The first spawn makes the placeholder folders the later ones bind over.
    runtime.wrap(shell(ws, "true"), hook);
    const launched = runtime.wrap(shell(ws, "true"), hook);
    const handed = runtime.wrap(shell(ws, "true"), direct);
    const bwrap = sandboxAvailability().program!;
    expect(handed.command).toBe(bwrap);
    expect(launched.command).not.toBe(bwrap);
    expect(launched.fds).toBeUndefined();
    // The launcher's own arguments end where bwrap's begin: from there on, the lists are the same.
    expect(launched.args.slice(launched.args.indexOf(bwrap) + 1)).toEqual(handed.args);
    // The filter on its number, each folder on two (one for --bind-fd, one for the check inside).
    expect(handed.fds![FILTER_FD]).toBeTypeOf("number");
    const folders = handed.fds!.filter((fd, n) => fd !== undefined && n !== FILTER_FD);
    expect(folders.length).toBe(2 * handed.args.filter((a) => a === "--bind-fd").length);
    handed.release!();
  });

  it("a sandboxed command sees and may do the same on both paths: hidden secrets, read-only outside, no network, the filter", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    const { runtime } = sandboxFor(ws);
    const viaLauncher = run(runtime.wrap(shell(ws, PROBE, "a"), hook));
    expect(readFileSync(join(ws, "inside-a"), "utf8")).toBe("written\n");
    rmSync(join(ws, "inside-a"));
    const viaFds = run(runtime.wrap(shell(ws, PROBE, "b"), direct));
    expect(viaLauncher.status, viaLauncher.stderr).toBe(0);
    expect(viaFds.status, viaFds.stderr).toBe(0);
    expect(viaFds.stderr).toBe("");
    expect(viaFds.stdout).toBe(viaLauncher.stdout);
    const seen = viaFds.stdout;
    expect(seen).toContain("fds: 0 1 2 3\n");
    expect(seen).not.toContain("hunter2");
    expect(seen).not.toContain("PRIVATE KEY");
    expect(seen).toContain(".env: Permission denied");
    expect(seen).toContain("Read-only file system");
    expect(seen).toContain("net: lo\n");
    expect(seen).toContain("PermissionError: [Errno 1] Operation not permitted");
    expect(seen).toContain("caps: CapEff: 0000000000000000\n");
    expect(existsSync(join(home, "planted"))).toBe(false);
    expect(readFileSync(join(ws, "inside-b"), "utf8")).toBe("written\n");
  });

  it("every spawn gets the whole filter, however many read it before (a fresh description each)", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    const { runtime } = sandboxFor(ws);
    const unix = "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1";
    for (let i = 0; i < 3; i++) {
      const result = run(runtime.wrap(shell(ws, unix), direct));
      expect(result.stderr, `spawn ${i}`).toBe("");
      expect(result.stdout, `spawn ${i}`).toBe("PermissionError: [Errno 1] Operation not permitted\n");
    }
  });

  it("release closes the filter's descriptor opened for the spawn; the folders' stay held by the sandbox", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    const { runtime } = sandboxFor(ws);
    const spec = runtime.wrap(shell(ws, "true"), direct);
    const filter = spec.fds![FILTER_FD]!;
    const folders = spec.fds!.filter((fd, n): fd is number => fd !== undefined && n !== FILTER_FD);
    expect(() => fstatSync(filter)).not.toThrow();
    spec.release!();
    expect(() => fstatSync(filter)).toThrow(/EBADF/);
    for (const fd of folders) expect(fstatSync(fd).isDirectory()).toBe(true);
    spec.release!(); // again is harmless
    expect(run(runtime.wrap(shell(ws, "true"), direct)).status).toBe(0);
  });

  it("a writable folder swapped for a link after the spawn was prepared is not bound where the link leads", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    const { h, cache } = homeWithCache();
    const lib = folder(cache, "ubq-direct-lib-");
    const outside = folder(cache, "ubq-direct-outside-");
    const { runtime } = sandboxFor(ws, lib, h);
    const spec = runtime.wrap(shell(ws, `echo pwned > ${lib}/planted`), direct);
    renameSync(lib, `${lib}.old`);
    made.push(`${lib}.old`);
    symlinkSync(relative(join(lib, ".."), outside), lib);
    const result = run(spec);
    expect(existsSync(join(outside, "planted")), "nothing lands where the link leads").toBe(false);
    expect(existsSync(join(`${lib}.old`, "planted"))).toBe(false);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("Race condition binding dirfd");
  });

  it("a folder swapped before the spawn was prepared is not bound, and the command is told why (the note from inside)", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    const { h, cache } = homeWithCache();
    const lib = folder(cache, "ubq-direct-lib-");
    const outside = folder(cache, "ubq-direct-outside-");
    const { runtime } = sandboxFor(ws, lib, h);
    renameSync(lib, `${lib}.old`);
    made.push(`${lib}.old`);
    symlinkSync(relative(join(lib, ".."), outside), lib);
    const result = run(runtime.wrap(shell(ws, `echo pwned > ${lib}/planted || echo refused`), direct));
    expect(result.stderr).toContain(
      `ubiquity:sandbox: ${lib} is no longer the folder it was when it was granted (replaced, or swapped for a symlink), so it is not writable`,
    );
    expect(result.stdout).toContain("refused");
    expect(existsSync(join(outside, "planted"))).toBe(false);
    expect(existsSync(join(`${lib}.old`, "planted"))).toBe(false);
  });

  it("a git folder swapped after the spawn was prepared is not bound where the link leads", () => {
    const ws = folder(tmpdir(), "ubq-direct-ws-");
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    const outside = folder("/var/tmp", "ubq-direct-outside-");
    const { runtime } = sandboxFor(ws);
    const spec = runtime.wrap(shell(ws, "echo pwned > .git/planted"), direct);
    expect(spec.args.join(" ")).toMatch(new RegExp(`--bind-fd \\d+ ${ws}/\\.git( |$)`));
    // The workspace is writable to sandboxed commands: one may swap its .git for a link between two spawns.
    renameSync(join(ws, ".git"), join(ws, ".git-old"));
    symlinkSync(outside, join(ws, ".git"));
    const result = run(spec);
    expect(existsSync(join(outside, "planted")), "nothing lands where the link leads").toBe(false);
    expect(result.status).not.toBe(0);
  });
});

describe.skipIf(SKIP)("the Bash tool's spawns", () => {
  let ws = "";
  let home = "";
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-direct-tool-")));
    home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-direct-tool-home-")));
    vi.stubEnv("HOME", home);
    writeFileSync(join(ws, ".env"), "API_TOKEN=hunter2\n");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });
  const context = (id: string): ToolContext => {
    const quiet = () => {};
    return {
      cwd: ws,
      roots: [ws],
      abortSignal: new AbortController().signal,
      sessionId: "direct",
      toolUseId: id,
      env: {},
      logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    };
  };

  it("start bwrap with the descriptors handed directly, and stay sandboxed", async () => {
    const kernel = createKernel({ plugins: [sandbox()], cwd: ws });
    await kernel.ready();
    try {
      const api = getSandboxApi(kernel);
      // The real API, watched: what each wrap was asked and gave back.
      const seen: { use: SpawnUse; command: string }[] = [];
      const watched: SandboxApi = Object.create(api, {
        wrap: {
          value: (spec: SpawnSpec, use: SpawnUse) => {
            const wrapped = api.wrap(spec, use);
            seen.push({ use, command: wrapped.command });
            return wrapped;
          },
        },
      });
      const tool = new BashTool(watched);
      const unix = "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1";
      for (const id of ["a", "b"]) {
        const result = await tool.call({ command: `cat .env; ${unix}; ls /proc/self/fd | wc -l` }, context(id));
        expect(result.content).toBe(
          "cat: .env: Permission denied\nPermissionError: [Errno 1] Operation not permitted\n4",
        );
      }
      expect(seen.map((s) => s.use.passFds)).toEqual([true, true]);
      expect(seen.map((s) => s.command)).toEqual([sandboxAvailability().program, sandboxAvailability().program]);
    } finally {
      await kernel.dispose();
    }
  });
});
