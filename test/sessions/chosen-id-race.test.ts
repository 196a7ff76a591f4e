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

async function round(contenders: number) {
  const cwd = mkdtempSync(join(tmpdir(), "ubq-chosen-id-"));
  dirs.push(cwd);
  const sessionDir = join(cwd, "sessions");
  const procs = Array.from({ length: contenders }, (_, i) => {
    const proc = spawnTs(join(here, "fixtures", "chosen-id-child.ts"), [sessionDir, cwd, "job-42", `p${i}`]);
    let stdout = "";
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const ready = new Promise<void>((resolve) =>
      proc.stdout
        .setEncoding("utf8")
        .on("data", (c: string) => ((stdout += c), stdout.startsWith("ready\n") && resolve())),
    );
    const done = new Promise<string[]>((resolve) =>
      proc.on("close", () => resolve([...stdout.split("\n").filter(Boolean), ...(stderr ? [`stderr ${stderr}`] : [])])),
    );
    return { proc, ready, done };
  });
  await Promise.all(procs.map((p) => p.ready));
  for (const p of procs) p.proc.stdin.end("go\n");
  const outputs = await Promise.all(procs.map((p) => p.done));
  const files = transcriptFiles(sessionDir);
  const prompts = files.flatMap((f) =>
    readRecords(f)
      .filter((r) => r.type === "user")
      .map((r) => (r.message as { text: string }).text),
  );
  return { outputs, files, prompts };
}

describe("a new session under a chosen id, started by several processes at once", () => {
  it("is written by exactly one of them in each of 6 rounds of 4; the others fail and say why", {
    timeout: 300_000,
  }, async () => {
    const promptsPerRound: number[] = [];
    const problems: string[] = [];
    for (let r = 0; r < 6; r++) {
      const { outputs, files, prompts } = await round(4);
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
    console.log(`chosen-id race: prompts in the transcript per round ${promptsPerRound.join(" ")}`);
    expect(problems).toEqual([]);
  });
});
