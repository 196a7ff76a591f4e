/** The memory section of the system prompt: a header, then each file introduced by its path and source. */
import type { MemoryFile } from "./load";

/** The header above the memory files. */
export const MEMORY_HEADER =
  "# Memory files\nThe files below hold standing instructions from the user and the project, weakest first: where two disagree, the later file overrides the earlier one.";

function introduce(file: MemoryFile): string {
  const source = file.source === "memory" ? "the memory option" : `${file.source} memory`;
  return file.includedBy
    ? `## ${file.path} (${source}, included by ${file.includedBy})`
    : `## ${file.path} (${source})`;
}

/** The section text, or undefined when there is nothing to say. */
export function renderMemory(files: readonly MemoryFile[]): string | undefined {
  if (files.length === 0) return undefined;
  return [MEMORY_HEADER, ...files.map((f) => `${introduce(f)}\n${f.content}`)].join("\n\n");
}
