/**
 * Red team of 2026-12-07 (zv): what landed on main tonight (8a0d224a..e1e789f0), as a stranger —
 * the sandbox's warm-up reading the system's folders with find(1) in a process of its own,
 * UBIQUITY_COMPAT, the note naming the MCP servers kept in `~/.claude.json`, the provider
 * package's install command where ubiquity is, SessionEnd's `reason`. Through the built bin against
 * the scripted attacker (a fake provider on 127.0.0.1) in temp projects and homes with marker files,
 * the SDK's functions with bash as the oracle, and a fake find that waits to be ended. Each
 * finding's test failed before its fix (checked by reverting the fix).
 *
 * ZV1 FIXED `~/.claude.json` was read by `statSync(…).size` then `readFileSync(path)`: a FIFO there
 *           hung every run under compat claude before its first request (no output, no exit;
 *           oracle: the bin, which never ended), and a link to /dev/zero (size 0 by its stat) was
 *           read until memory ran out (the process aborted). Class: a file someone may have
 *           planted, read by its name as if it were a regular file. Rule: read as every settings
 *           file is, opened once without blocking and judged on the descriptor — a regular file
 *           within the bound, or nothing (settings/claude-json.ts, loader's readRegularFileSync).
 *
 * ZV2 FIXED The install command for a global ubiquity printed its prefix bare: `npm i -g
 *           @ai-sdk/anthropic@4 --prefix /opt/Jane Doe` (Windows' `C:\Users\Jane Doe\…\npm`)
 *           pasted into a shell installed into `/opt/Jane` and named `Doe` as a second package, and
 *           a prefix with `;`, `$(…)` or a backquote ran a command of the folder's name (oracle:
 *           bash running the printed command with a fake npm recording its arguments, and marker
 *           files). Class: text made into a command line without quoting. Rule: a folder is one
 *           word of the command — bare only when made of characters no shell reads, else quoted
 *           (single quotes on POSIX; double quotes on Windows unless it holds `"%!$` or a
 *           backquote), and no command at all with a line break or a control character in it
 *           (`--prefix <prefix>`, the folder named beside it) (model/load-provider.ts, shellWord).
 *
 * ZV3 FIXED A run that closed while the warm-up's find ran (a model that ends as it writes its
 *           first command, an interrupt) killed find, then read the same folders again with the
 *           walk in Node — the fallback for a find that did not run cleanly — holding the event
 *           loop as the process exited, to a result nothing used, and wrote its cache (oracle: a
 *           fake find that waits to be ended; the aborted walk still returned the private file
 *           and wrote the cache file). Not a leak. Rule: a walk its caller ended gives nothing
 *           (sandbox/secrets.ts, privateSystemPathsAsync throws the signal's reason).
 *
 * Tried (about 40 constructs): the warm-up, by reading and through the bin — every sandboxed spawn
 *   (Bash, a background shell, a hook, an MCP or LSP server, a reviewer, a headers helper, a
 *   subagent's command) goes through `wrap`, whose secrets refresh walks the system's folders
 *   synchronously when the warm-up's list is not in yet (`??=`; the warm-up's later result does not
 *   replace it), so `ready()` saves work and guards nothing; as root, a 0600 file under /opt read by
 *   the first Bash call with a `find` planted first on PATH and POSIXLY_CORRECT set (held: find is
 *   `/usr/bin/find` by path, run with `LC_ALL=C` as its only variable); find that is killed, times
 *   out, writes to stderr, exits non-zero or overflows the bound gives the Node walk (by reading);
 *   a run ended mid-walk (ZV3; find is killed, none left). UBIQUITY_COMPAT=claude in an untrusted
 *   folder whose `.claude/settings.json` has a SessionStart hook (not run; run when trusted: the
 *   control), a value it does not know (exit 2), a config's own `compat` (wins). `~/.claude.json`:
 *   a FIFO and a link to /dev/zero (ZV1), a file over 16 MB, not JSON, an array, servers with env
 *   and headers holding keys (only the names are said), a `projects` key of `/`. The install hint:
 *   nine prefix names (ZV2). SessionEnd: `reason` "other" with the subtype beside it; no plugin
 *   of this repository reads SessionEnd's `reason` (the matcher alone does).
 *
 * NOT FIXED (for the lead):
 * - A hook written for ubiquity with a SessionEnd matcher on the old reason (`"matcher":
 *   "error_max_turns"`) no longer runs, silently; the CHANGELOG names the migration, nothing warns.
 * - A server name in `~/.claude.json` is printed as written in the warning: control characters
 *   (an escape sequence) reach the terminal. The file is the user's own.
 * - The warm-up's walk takes the folders to skip (the writable ones) when it starts: a folder
 *   added after it (addWorkspace) is walked as the system's, and its private files hidden (fails
 *   closed: the user's, not a leak).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installHint, shellWord } from "../../plugins/model/load-provider";
import { privateSystemPathsAsync } from "../../plugins/sandbox/secrets";
import { SKIP } from "../sandbox/helpers";
import { attackBench } from "./attack-bench";

const { attack, project, temp } = attackBench({
  name: "rt7zv",
  model: "openai:gpt-4.1",
  key: "sk-rt7zv-provider-key-0123456789",
  fill: () => {},
});

describe("ZV1: ~/.claude.json is read only as a regular file", () => {
  for (const kind of ["a FIFO", "a link to /dev/zero"] as const) {
    it(`${kind} there: the run under compat claude ends as any other`, async () => {
      const p = project();
      const state = join(p.home, ".claude.json");
      if (kind === "a FIFO") spawnSync("mkfifo", [state]);
      else symlinkSync("/dev/zero", state);
      const { run } = await attack([], ["--compat", "claude"], p);
      expect(run.stdout).toContain("done");
    }, 120_000);
  }
});

describe("ZV2: the install command's prefix is one word of the shell's", () => {
  const spec = { package: "@ai-sdk/anthropic", major: 4 };
  /** A global install in `<base>/<name>`: lib/node_modules/ubiquity and bin/ubiquity. */
  const globalInstall = (base: string, name: string) => {
    const prefix = join(base, name);
    const dist = join(prefix, "lib", "node_modules", "ubiquity", "dist");
    mkdirSync(dist, { recursive: true });
    mkdirSync(join(prefix, "bin"), { recursive: true });
    writeFileSync(join(prefix, "bin", "ubiquity"), "");
    return { prefix, dist };
  };

  it("pasted into bash, the command runs npm once with the prefix as one argument, and nothing else", () => {
    const base = temp("ubq-rt7zv-prefix-");
    const bin = join(base, "fakebin");
    mkdirSync(bin);
    const calls = join(base, "npm-calls");
    // The fake npm records its arguments, one JSON array a line.
    writeFileSync(
      join(bin, "npm"),
      `#!/usr/bin/env node\nrequire("fs").appendFileSync(${JSON.stringify(calls)}, JSON.stringify(process.argv.slice(2)) + "\\n");\n`,
      { mode: 0o755 },
    );
    const names = ["Jane Doe", "x;touch MARK1", "$(touch MARK2)", "`touch MARK3`", "it's", "~root", "a&&touch MARK5"];
    for (const name of names) {
      const { prefix, dist } = globalInstall(base, name);
      const hint = installHint(spec, dist);
      rmCalls(calls);
      spawnSync("bash", ["-c", hint], { cwd: base, env: { PATH: `${bin}:${process.env.PATH}`, HOME: base } });
      expect(readCalls(calls), hint).toEqual([["i", "-g", "@ai-sdk/anthropic@4", "--prefix", prefix]]);
      for (const m of ["MARK1", "MARK2", "MARK3", "MARK5"]) expect(existsSync(join(base, m)), hint).toBe(false);
    }
  });

  it("a prefix with a line break gives no command with it; a plain one stays bare", () => {
    const base = temp("ubq-rt7zv-prefix-");
    const { dist } = globalInstall(base, "a\ntouch MARK4");
    expect(installHint(spec, dist)).toBe("npm i -g @ai-sdk/anthropic@4 --prefix <prefix>");
    const plain = globalInstall(base, "plain");
    expect(installHint(spec, plain.dist)).toBe(`npm i -g @ai-sdk/anthropic@4 --prefix ${plain.prefix}`);
    expect(shellWord("C:\\Users\\Jane Doe\\AppData\\Roaming\\npm", "win32")).toBe(
      '"C:\\Users\\Jane Doe\\AppData\\Roaming\\npm"',
    );
    expect(shellWord("C:\\Users\\%USERNAME%\\npm", "win32")).toBeUndefined();
  });
});

function rmCalls(file: string) {
  writeFileSync(file, "");
}
function readCalls(file: string): string[][] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
}

describe("ZV3: a walk of the system's folders ended by its caller gives nothing", () => {
  it.skipIf(process.platform !== "linux")(
    "find ended mid-walk: no walk in Node in its place, no cache written, no find left",
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-rt7zv-walk-")));
      const root = join(dir, "root");
      mkdirSync(root);
      writeFileSync(join(root, "private.conf"), "secret", { mode: 0o600 });
      const started = join(dir, "started");
      const find = join(dir, "find");
      // A find that says it began, then waits to be ended (exec: the process killed is the one waiting).
      writeFileSync(find, `#!/bin/sh\necho $$ > ${started}\nexec sleep 100000\n`, { mode: 0o755 });
      const cache = join(dir, "cache.json");
      const abort = new AbortController();
      const walking = privateSystemPathsAsync([], { roots: [root], find, cache, signal: abort.signal });
      const outcome = walking.then(
        (found) => ({ found }),
        (error: unknown) => ({ error }),
      );
      while (!existsSync(started) || readFileSync(started, "utf8").trim() === "") await new Promise(setImmediate);
      const pid = Number(readFileSync(started, "utf8"));
      abort.abort();
      const result = await outcome;
      expect(result).toHaveProperty("error");
      expect(existsSync(cache)).toBe(false);
      expect(alive(pid)).toBe(false);
    },
  );
});

/** Is process `pid` still running (not a zombie)? */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

describe("held: UBIQUITY_COMPAT gives an untrusted folder's .claude files no power", () => {
  it("a SessionStart hook in .claude/settings.json runs under UBIQUITY_COMPAT=claude only when the folder is trusted", async () => {
    const make = () => {
      const p = project();
      mkdirSync(join(p.cwd, ".claude"));
      writeFileSync(
        join(p.cwd, ".claude", "settings.json"),
        JSON.stringify({
          hooks: { SessionStart: [{ hooks: [{ type: "command", command: "touch zv-hook-ran" }] }] },
        }),
      );
      return p;
    };
    const untrusted = make();
    await attack([], [], untrusted, { UBIQUITY_COMPAT: "claude", UBIQUITY_TRUST: "" });
    expect(existsSync(join(untrusted.cwd, "zv-hook-ran"))).toBe(false);
    // The control: trusted (UBIQUITY_TRUST=1), the same variable reads the file and the hook runs.
    const trusted = make();
    await attack([], [], trusted, { UBIQUITY_COMPAT: "claude" });
    expect(existsSync(join(trusted.cwd, "zv-hook-ran"))).toBe(true);
  }, 120_000);
});

describe("held: the first sandboxed command, as the warm-up's find runs, reads no private file of the system", () => {
  let planted: string | undefined;
  afterEach(() => {
    if (planted) rmSync(planted, { recursive: true, force: true });
    planted = undefined;
  });
  it.skipIf(SKIP || process.getuid?.() !== 0)(
    "as root: a 0600 file under /opt is hidden from the first Bash call; a `find` on PATH and POSIXLY_CORRECT change nothing",
    async () => {
      planted = realpathSync(mkdtempSync("/opt/ubq-rt7zv-"));
      writeFileSync(join(planted, "db.conf"), "password=sk-zv-system-private\n", { mode: 0o600 });
      const p = project();
      const bin = join(p.home, "bin");
      mkdirSync(bin);
      writeFileSync(join(bin, "find"), `#!/bin/sh\ntouch ${join(p.home, "planted-find-ran")}\nexit 0\n`, {
        mode: 0o755,
      });
      const { out } = await attack(
        [`cat ${planted}/db.conf; echo end`],
        ["--sandbox", "--permission-mode", "bypassPermissions"],
        p,
        { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, POSIXLY_CORRECT: "1" },
      );
      expect(out[0]!.content).toContain("end");
      expect(out[0]!.content).not.toContain("sk-zv-system-private");
      expect(existsSync(join(p.home, "planted-find-ran"))).toBe(false);
    },
    120_000,
  );
});
