import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { TranscriptRecord } from "ubiquity/plugins/sessions";

/** A fresh temp folder, removed after the test. */
export function tempDirs() {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix = "ubq-sessions-") => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** Every transcript file under a sessions root. */
export function transcriptFiles(root: string): string[] {
  const out: string[] = [];
  for (const folder of readdirSync(root, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const name of readdirSync(join(root, folder.name))) if (name.endsWith(".jsonl")) out.push(join(root, folder.name, name));
  }
  return out;
}

/** The records of a transcript file (every line must parse). */
export function readRecords(path: string): TranscriptRecord[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TranscriptRecord);
}
