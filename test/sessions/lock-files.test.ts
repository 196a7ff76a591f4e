/**
 * A lock file that is not one: something other than a regular file at `<transcript>.lock` (a
 * FIFO, a link to a device, a folder), which no run creates. Reading a FIFO blocks until a writer
 * opens it, and a link to /dev/zero never ends, so a resume must not read what it finds there
 * without looking first; it stops and says what to remove. Before the fix a resume on a FIFO or
 * on a link to /dev/zero hung until killed (10 s here), and a folder made every resume fork,
 * naming its holder "pid -1 on unknown".
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions, { lockPathOf } from "../../plugins/sessions/index";
import { collect, resultOf } from "../helpers/collect";
import { capturingLogger } from "../context/helpers";
import { spawnTs } from "../helpers/ts-child";
import { tempDirs, transcriptFiles } from "./helpers";

const here = import.meta.dirname;
const temp = tempDirs();

/**
 * A stored session, and a resume of it in a child process given `ms` from `go` to answer (killed
 * after). A hang never answers; the clock starts once the child has loaded, so a slow start under
 * load is not taken for a hang.
 */
async function resumeWithLock(makeLock: (lock: string) => void, ms = 30_000) {
  const sessionDir = temp();
  const cwd = temp("ubq-project-");
  const first = resultOf(
    await collect(
      summon("start", { model: scriptedModel(["started"]), presets: [], plugins: [sessions()], sessionDir, cwd }),
    ),
  );
  const transcript = transcriptFiles(sessionDir)[0]!;
  makeLock(lockPathOf(transcript));
  const proc = spawnTs(join(here, "fixtures", "resume-child.ts"), [sessionDir, cwd, first.sessionId, "A"]);
  let stdout = "";
  let started = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  proc.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
    if (stdout === "ready\n") {
      proc.stdin.end("go\n");
      started = Date.now();
      timer = setTimeout(() => proc.kill("SIGKILL"), ms);
    }
  });
  const signal = await new Promise((resolve) => proc.on("close", (_code, signal) => resolve(signal)));
  clearTimeout(timer);
  return {
    hung: signal === "SIGKILL",
    ms: Date.now() - started,
    lines: stdout.split("\n").filter(Boolean),
    transcript,
  };
}

const old = (path: string) => utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

describe("a lock path that holds something other than a lock file", () => {
  const cases: [string, (lock: string) => void, RegExp][] = [
    ["a FIFO", (lock) => execFileSync("mkfifo", [lock]), /is not a lock file \(a FIFO\)/],
    ["a link to /dev/zero", (lock) => symlinkSync("/dev/zero", lock), /is not a lock file \(a symbolic link\)/],
    ["an old folder", (lock) => (mkdirSync(lock), old(lock)), /is not a lock file \(a folder\)/],
  ];
  it.each(cases)(
    "%s: the resume stops at once and names what to remove",
    { timeout: 300_000 },
    async (_name, makeLock, kind) => {
      if (!existsSync("/dev/zero") || process.platform === "win32") return;
      const { hung, ms, lines, transcript } = await resumeWithLock(makeLock);
      console.log(`${_name}: ${hung ? "hung, killed" : "answered"} after ${ms} ms: ${lines.at(-1)}`);
      expect(hung, lines.join("\n")).toBe(false);
      const result = lines.find((l) => l.startsWith("result ")) ?? lines.join("\n");
      expect(result).toMatch(kind);
      expect(result).toContain(`${lockPathOf(transcript)} is not a lock file`);
      expect(result).toMatch(/remove it/);
    },
  );
});

describe("a lock held on another host (or in another container)", () => {
  it("is left alone: the resume forks, and its warning names the lock to remove if that run is gone", async () => {
    const sessionDir = temp();
    const cwd = temp("ubq-project-");
    const first = resultOf(
      await collect(
        summon("start", { model: scriptedModel(["started"]), presets: [], plugins: [sessions()], sessionDir, cwd }),
      ),
    );
    const lock = lockPathOf(transcriptFiles(sessionDir)[0]!);
    // A container stopped mid-run (SIGTERM ends Node without its exit handlers); the next one has another host name.
    writeFileSync(
      lock,
      JSON.stringify({ pid: 1, host: "3f2a9c1b7d4e", since: "2026-01-01T00:00:00.000Z", ns: "pid:[4026532179]" }),
    );
    const logger = capturingLogger();
    const again = resultOf(
      await collect(
        summon("again", {
          model: scriptedModel(["ok"]),
          presets: [],
          plugins: [sessions()],
          sessionDir,
          cwd,
          resume: first.sessionId,
          logger,
        }),
      ),
    );
    expect(again.sessionId).not.toBe(first.sessionId);
    expect(logger.warnings).toEqual([expect.stringContaining(`pid 1 on 3f2a9c1b7d4e`)]);
    expect(logger.warnings[0]).toContain(`if it is gone, remove ${lock}`);
  });
});
