import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineTool } from "ubiquity";
import type { TranscriptRecord } from "ubiquity/plugins/sessions";
import { main } from "../../runner/cli";

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
  const saved = process.env.UBIQUITY_TRUST;
  process.env.UBIQUITY_TRUST = "1";
  try {
    const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
    return { code, stdout, stderr };
  } finally {
    if (saved === undefined) delete process.env.UBIQUITY_TRUST;
    else process.env.UBIQUITY_TRUST = saved;
  }
}
