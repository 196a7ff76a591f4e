/** How `ubiquity rewind` and the terminal's `/rewind` show checkpoints and a rewind. */
import { relative } from "node:path";
import type { CheckpointInfo, RewindResult } from "./api";

/** The plan (or the outcome) as a person reads it; paths relative to `cwd` where they are inside it. */
export function formatRewind(result: RewindResult, cwd: string): string {
  const show = (p: string) => (relative(cwd, p).startsWith("..") ? p : relative(cwd, p) || ".");
  const verb = { restored: "restore ", removed: "remove  ", recreated: "recreate" } as const;
  const done = { restored: "restored ", removed: "removed  ", recreated: "recreated" } as const;
  const lines: string[] = [];
  if (!result.checkpoint) return "Nothing to rewind: the agent changed no files after that message.\n";
  lines.push(
    `Checkpoint ${result.checkpoint.messageUuid} (${result.checkpoint.createdAt})${result.dryRun ? "" : ": rewound"}`,
  );
  if (result.changes.length === 0) lines.push("  no file differs from the checkpoint");
  for (const c of result.changes) lines.push(`  ${(result.dryRun ? verb : done)[c.action]}  ${show(c.path)}`);
  for (const r of result.refused) lines.push(`  refused   ${show(r.path)}: ${r.reason}`);
  if (result.notCovered.length > 0) {
    lines.push(`Not covered (left as they are):`);
    for (const n of result.notCovered) lines.push(`  ${n.reason.padEnd(17)} ${show(n.path)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The list of checkpoints as a person reads it. */
export function formatList(checkpoints: CheckpointInfo[], sessionId: string): string {
  if (checkpoints.length === 0)
    return `Session ${sessionId} has no checkpoints (were checkpoints on? the terminal mode turns them on; elsewhere set checkpoints: true).\n`;
  const lines = [`Checkpoints of session ${sessionId} (rewind with --to <uuid>):`];
  for (const c of checkpoints)
    lines.push(
      `  ${c.messageUuid}  ${c.createdAt.replace("T", " ").slice(0, 19)}  ${(c.prompt ?? "").replace(/\s+/g, " ").slice(0, 60)}`,
    );
  return `${lines.join("\n")}\n`;
}
