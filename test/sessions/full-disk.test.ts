/**
 * A transcript that cannot be written is not a success (issue 37, failure 5: under a full disk the
 * JSONL transcript stopped silently, 41–87 of 95 messages missing, and the run reported `success`).
 * The run's session folder is a real 48 KB tmpfs, mounted in a private mount namespace
 * (`unshare -rm`) so nothing outlives the child; the run writes about 80 KB of records.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tsNodeArgs } from "../helpers/ts-child";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();
const child = join(import.meta.dirname, "fixtures", "full-disk-child.ts");
const canMount = spawnSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"]).status === 0;

type Line = {
  type: string;
  resumed?: boolean;
  chained?: boolean;
  subtype?: string;
  isError?: boolean;
  result?: string;
  error?: string;
  bestEffort?: boolean;
  ran: number;
  toolName?: string;
  output?: { content: string };
  lines?: number;
  parsed?: number;
};

/** Run the child with `sessionDir` on a 48 KB tmpfs; its stream, one message per line. */
async function runOnFullDisk(persist: "true" | "best-effort"): Promise<Line[]> {
  const sessionDir = temp();
  const cwd = temp("ubq-project-");
  const script = 'mount -t tmpfs -o size=48k tmpfs "$1" && shift && exec "$@"';
  const proc = spawn(
    "unshare",
    ["-rm", "sh", "-c", script, "sh", sessionDir, process.execPath, ...tsNodeArgs, child, sessionDir, cwd, persist],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  expect(code, stderr).toBe(0);
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

describe.skipIf(!canMount)("a full disk under the JSONL transcript", () => {
  it("surfaces as a message in the stream and ends the run with error_session_write; no tool runs after it; the session resumes once there is room", async () => {
    const lines = await runOnFullDisk("true");
    const first = lines.filter((l) => !l.resumed);
    const failed = first.filter((l) => l.type === "system" && l.subtype === "session_write_failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatch(/ENOSPC/);
    expect(failed[0]!.bestEffort).toBe(false);
    const result = first.find((l) => l.type === "result")!;
    expect(result).toMatchObject({ type: "result", subtype: "error_session_write", isError: true });
    expect(result.result).toMatch(/transcript could not be written .*ENOSPC.*resume session/);
    // The run stopped at the failure: far fewer than the 30 calls the model asked for ran.
    expect(result.ran).toBeLessThan(30);
    // Space freed, the session resumes from its last whole record and ends well.
    const resumed = lines.filter((l) => l.resumed);
    expect(resumed.find((l) => l.type === "result")).toMatchObject({ subtype: "success", result: "resumed" });
    // What the disk kept is whole: every line parses, and the records (both runs) form one chain.
    const transcript = lines.find((l) => l.type === "transcript")!;
    expect(transcript.lines).toBeGreaterThan(0);
    expect(transcript.parsed).toBe(transcript.lines);
    expect(transcript.chained).toBe(true);
  });

  it('with persistSession: "best-effort", the failure is reported once in the stream and the run goes on to its end', async () => {
    const lines = await runOnFullDisk("best-effort");
    const failed = lines.filter((l) => l.type === "system" && l.subtype === "session_write_failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.bestEffort).toBe(true);
    const result = lines.find((l) => l.type === "result")!;
    expect(result).toMatchObject({ subtype: "success", isError: false, result: "all done", ran: 30 });
  });
});
