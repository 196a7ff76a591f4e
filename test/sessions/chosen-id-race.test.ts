/**
 * Several processes start a new session under the same chosen id at the same moment (a script
 * that retries `ubiquity run --session-id job-42`). Exactly one may write it; the others must
 * fail and say why, not append their prompts to its transcript. Checking that no transcript of
 * the id exists and then taking its lock are two steps: a run that checked before the winner
 * wrote its first record, and was then refused the lock, wrote anyway (before the fix, 3 of 6
 * rounds of 4 processes left two or three runs' prompts in one transcript).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnTs } from "../helpers/ts-child";
import { readRecords, transcriptFiles } from "./helpers";

const here = import.meta.dirname;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * The contender processes, started once: each round all of them are sent the round's new session
 * folder at the same moment and start a new session there under the same chosen id.
 */
function contenders(count: number) {
  const procs = Array.from({ length: count }, (_, i) => {
    const proc = spawnTs(join(here, "fixtures", "chosen-id-child.ts"), ["job-42", `p${i}`]);
    let stdout = "";
    let stderr = "";
    let onLines: (() => void) | undefined;
    proc.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    proc.stdout.setEncoding("utf8").on("data", (c: string) => ((stdout += c), onLines?.()));
    let closed = false;
    proc.on("close", () => ((closed = true), onLines?.()));
    /** The lines up to `last` (taken out of what was read), or all there is when the process ends first. */
    const until = (last: string) =>
      new Promise<string[]>((resolve) => {
        const check = () => {
          const at = stdout.indexOf(`${last}\n`);
          if (at < 0 && !closed) return;
          onLines = undefined;
          const taken = at < 0 ? stdout : stdout.slice(0, at);
          stdout = at < 0 ? "" : stdout.slice(at + last.length + 1);
          resolve([...taken.split("\n").filter(Boolean), ...(closed ? [`exited; stderr ${stderr}`] : [])]);
        };
        onLines = check;
        check();
      });
    return { proc, until, closed: new Promise((resolve) => proc.on("close", resolve)) };
  });
  const ready = Promise.all(procs.map((p) => p.until("ready")));
  return {
    async round() {
      await ready;
      const cwd = mkdtempSync(join(tmpdir(), "ubq-chosen-id-"));
      dirs.push(cwd);
      const sessionDir = join(cwd, "sessions");
      const outcomes = procs.map((p) => p.until("round over"));
      for (const p of procs) p.proc.stdin.write(`${sessionDir}\t${cwd}\n`);
      const outputs = await Promise.all(outcomes);
      const files = transcriptFiles(sessionDir);
      const prompts = files.flatMap((f) =>
        readRecords(f)
          .filter((r) => r.type === "user")
          .map((r) => (r.message as { text: string }).text),
      );
      return { outputs, files, prompts };
    },
    async end() {
      for (const p of procs) p.proc.stdin.end();
      await Promise.all(procs.map((p) => p.closed));
    },
  };
}

describe("a new session under a chosen id, started by several processes at once", () => {
  it("is written by exactly one of them in each of 6 rounds of 4; the others fail and say why", {
    timeout: 300_000,
  }, async () => {
    const promptsPerRound: number[] = [];
    const problems: string[] = [];
    const four = contenders(4);
    for (let r = 0; r < 6; r++) {
      const { outputs, files, prompts } = await four.round();
      promptsPerRound.push(prompts.length);
      const results = outputs.map(
        (lines) => lines.find((l) => l.startsWith("result ")) ?? `none: ${lines.join(" | ")}`,
      );
      const types =
        files.length === 1
          ? readRecords(files[0]!)
              .map((r) => r.type)
              .join(" ")
          : `${files.length} files`;
      // The winner's run only: its prompt, its answer, its result.
      if (types !== "user assistant result")
        problems.push(`round ${r}: the transcript holds ${types} (prompts: ${prompts.join(", ")})`);
      const winners = results.filter((l) => l.startsWith("result ok"));
      if (winners.length !== 1) problems.push(`round ${r}: ${winners.length} runs ended ok`);
      for (const line of results.filter((l) => !l.startsWith("result ok"))) {
        if (!/a session with id job-42 is (already stored|being written by another run \(pid \d+)/.test(line))
          problems.push(`round ${r}: a loser said ${line}`);
      }
    }
    await four.end();
    console.log(`chosen-id race: prompts in the transcript per round ${promptsPerRound.join(" ")}`);
    expect(problems).toEqual([]);
  });
});
