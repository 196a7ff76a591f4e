import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineTool } from "ubiquity";
import type { TranscriptRecord } from "ubiquity/plugins/sessions";
import { main } from "../../runner/cli";
import { withEnv } from "../helpers/env";

export { tempDirs } from "../helpers/temp-dirs";

/** A tool that echoes its text. */
export const echo = defineTool({
  name: "Echo",
  description: "Echo the text back.",
  inputSchema: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

/** Every transcript file under a sessions root. */
export function transcriptFiles(root: string): string[] {
  const out: string[] = [];
  for (const folder of readdirSync(root, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const name of readdirSync(join(root, folder.name)))
      if (name.endsWith(".jsonl")) out.push(join(root, folder.name, name));
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

/** Run the `ubiquity` CLI in-process, capturing its output; the temp projects are trusted (UBIQUITY_TRUST=1). */
export async function cli(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
  const code = await withEnv({ UBIQUITY_TRUST: "1" }, () => main(argv, io));
  return { code, stdout, stderr };
}
