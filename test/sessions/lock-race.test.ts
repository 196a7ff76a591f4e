/**
 * The transcript lock under a real race: several processes take one transcript's lock at the same
 * moment, and exactly one may win. A lock file is created and then written, so a contender that
 * opens it in between reads no holder; it must not take that for a stale lock (its writer gone)
 * and remove it, or two runs write one session.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock, lockPathOf, releaseLock } from "../../plugins/sessions/index";
import { spawnTs, tsNodeArgs } from "../helpers/ts-child";

const here = import.meta.dirname;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempTranscript(): string {
  const dir = mkdtempSync(join(tmpdir(), "ubq-lock-race-"));
  dirs.push(dir);
  return join(dir, "session.jsonl");
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

/**
 * Six contender processes, started once: each round every one of them is sent the same new
 * transcript at the same moment and takes its lock (the processes race, as fresh ones would: each
 * waits on stdin, then takes the lock at once). What each took it holds until the end.
 */
function contenders(count: number) {
  const procs = Array.from({ length: count }, () => {
    const proc = spawnTs(join(here, "fixtures", "lock-contender.ts"), []);
    let stdout = "";
    const waiting: ((line: string) => void)[] = [];
    const lines: string[] = [];
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      for (let at = stdout.indexOf("\n"); at >= 0; at = stdout.indexOf("\n")) {
        const line = stdout.slice(0, at);
        stdout = stdout.slice(at + 1);
        const waiter = waiting.shift();
        if (waiter) waiter(line);
        else lines.push(line);
      }
    });
    const next = () =>
      new Promise<string>((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else waiting.push(resolve);
      });
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // A contender that dies answers every round left with why (the round then fails, never hangs).
    let gone: string | undefined;
    const closed = new Promise<void>((resolve) =>
      proc.on("close", (code) => {
        gone = `exited ${code}: ${stderr.slice(0, 2000)}`;
        for (const waiter of waiting.splice(0)) waiter(gone);
        resolve();
      }),
    );
    const ready = next();
    return { proc, next: () => (gone === undefined ? next() : Promise.resolve(gone)), closed, ready };
  });
  return {
    /** One round: all take the lock of `transcript` at once; each one's outcome, `won` or `lost`. */
    async race(transcript = tempTranscript()): Promise<string[]> {
      expect(await Promise.all(procs.map((p) => p.ready))).toEqual(Array(count).fill("ready"));
      const outcomes = procs.map((p) => p.next());
      for (const p of procs) p.proc.stdin.write(`${transcript}\n`);
      return Promise.all(outcomes);
    },
    async end(): Promise<void> {
      for (const p of procs) p.proc.stdin.end();
      await Promise.all(procs.map((p) => p.closed));
    },
  };
}

describe("the transcript lock, taken by several processes at once", () => {
  it("has exactly one winner in each of 10 rounds of 6 processes", { timeout: 300_000 }, async () => {
    const six = contenders(6);
    const winners: number[] = [];
    for (let round = 0; round < 10; round++) winners.push((await six.race()).filter((o) => o === "won").length);
    await six.end();
    console.log(`lock race: winners per round ${winners.join(" ")}`);
    expect(winners).toEqual(Array(10).fill(1));
  });

  it("has exactly one winner when they all find a stale lock (its writer gone) and take it over, in each of 6 rounds", {
    timeout: 300_000,
  }, async () => {
    const six = contenders(6);
    const winners: number[] = [];
    for (let round = 0; round < 6; round++) {
      const transcript = tempTranscript();
      writeFileSync(
        lockPathOf(transcript),
        JSON.stringify({ pid: deadPid(), host: hostname(), since: new Date(0).toISOString() }),
      );
      winners.push((await six.race(transcript)).filter((o) => o === "won").length);
    }
    await six.end();
    console.log(`stale lock race: winners per round ${winners.join(" ")}`);
    expect(winners).toEqual(Array(6).fill(1));
  });
});

describe("a lock file that says nothing readable", () => {
  it("is held while it is young (a writer may be writing it), and taken over once old", () => {
    const transcript = tempTranscript();
    writeFileSync(lockPathOf(transcript), "");
    expect(acquireLock(transcript)).toEqual({ pid: -1, host: "unknown", since: "" });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPathOf(transcript), old, old);
    expect(acquireLock(transcript)).toBeUndefined();
    expect(JSON.parse(readFileSync(lockPathOf(transcript), "utf8"))).toMatchObject({
      pid: process.pid,
      host: hostname(),
    });
    releaseLock(transcript);
    expect(existsSync(lockPathOf(transcript))).toBe(false);
  });

  it("leaves no temp file beside the transcript, taken or refused", () => {
    const transcript = tempTranscript();
    expect(acquireLock(transcript)).toBeUndefined();
    writeFileSync(
      lockPathOf(transcript),
      JSON.stringify({ pid: 1, host: "elsewhere", since: new Date().toISOString() }),
    );
    expect(acquireLock(transcript)).toMatchObject({ host: "elsewhere" });
    expect(readdirSync(join(transcript, "..")).sort()).toEqual(["session.jsonl.lock"]);
  });
});

/**
 * Two containers that share the session folder and the host name but not the pid namespace
 * (containers of one Kubernetes pod, `docker run --uts=host`): a holder's pid means nothing in the
 * other namespace (there it is gone, or another process, or this very process: each container's
 * first process is pid 1). Such a lock cannot be checked, like another host's.
 */
describe("a lock held from another pid namespace on this host", () => {
  const unshare = ["unshare", "--pid", "--fork", "--mount-proc"];
  const canUnshare = process.platform === "linux" && spawnSync(unshare[0]!, [...unshare.slice(1), "true"]).status === 0;

  function contender(transcript: string, inNamespace: boolean) {
    const args = [...tsNodeArgs, join(here, "fixtures", "lock-child.ts"), transcript];
    const proc = inNamespace
      ? spawn(unshare[0]!, [...unshare.slice(1), process.execPath, ...args])
      : spawn(process.execPath, args);
    let stdout = "";
    const said = (word: string) =>
      new Promise<void>((resolve) =>
        proc.stdout.setEncoding("utf8").on("data", (c: string) => ((stdout += c), stdout.includes(word) && resolve())),
      );
    const ready = said("ready\n");
    const outcome = Promise.race([said("won\n").then(() => "won"), said("lost\n").then(() => "lost")]);
    const closed = new Promise((resolve) => proc.on("close", resolve));
    return { go: async () => (await ready, proc.stdin.write("go\n"), outcome), end: () => (proc.stdin.end(), closed) };
  }

  it.skipIf(!canUnshare)(
    "is not taken over from a process in a new pid namespace, in each of 4 rounds",
    { timeout: 300_000 },
    async () => {
      const taken: string[] = [];
      for (let round = 0; round < 4; round++) {
        const transcript = tempTranscript();
        const holder = contender(transcript, false);
        expect(await holder.go()).toBe("won");
        const other = contender(transcript, true);
        taken.push(await other.go());
        await other.end();
        await holder.end();
      }
      console.log(`pid namespace: the second container's outcome per round ${taken.join(" ")}`);
      expect(taken).toEqual(Array(4).fill("lost"));
    },
  );
});
