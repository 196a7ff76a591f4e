/**
 * A `Read(...)` deny stops Grep and Glob for each file they would return, not only for the
 * folder searched: lines of their output that name a denied file are removed (after the search,
 * before the model sees them), and a note says how many were withheld.
 */
import { resolve } from "node:path";
import type { ToolOutput } from "../../src/index";
import { judgePath } from "./paths";
import type { CompiledRule } from "./policy";
import type { Place } from "./subject";

/** The tools whose results name other files: a Read rule names them too, and a Read deny applies to each file named. */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["Grep", "Glob", "LSP"]);

/** Output lines start with a path: the whole line (files), or a prefix ending at `:` / `-` (content, count). */
function namesDenied(line: string, rules: readonly CompiledRule[], place: Place): boolean {
  const ends = [line.length];
  for (let i = 1; i < line.length; i++) if (line[i] === ":" || line[i] === "-") ends.push(i);
  return ends.some((end) => {
    const path = judgePath(place.cwd, place.home, resolve(place.cwd, line.slice(0, end)));
    return rules.some((r) => r.path?.(path.absolute) || (path.real !== undefined && r.path?.(path.real)));
  });
}

/** Remove the lines of a Grep/Glob result that name a file a Read deny rule forbids. */
export function withholdDenied(output: ToolOutput, rules: readonly CompiledRule[], place: Place): ToolOutput {
  if (output.isError || rules.length === 0) return output;
  const [body, ...notes] = output.content.split("\n\n");
  const lines = body!.split("\n");
  const kept = lines.filter((line) => line === "--" || !namesDenied(line, rules, place));
  const withheld = lines.length - kept.length;
  if (withheld === 0) return output;
  const note = `[${withheld} result line${withheld === 1 ? "" : "s"} withheld: a Read deny rule forbids the files they name.]`;
  return { ...output, content: [kept.join("\n") || "(no results left)", ...notes, note].join("\n\n") };
}
