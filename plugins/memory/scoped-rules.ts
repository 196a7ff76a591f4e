/**
 * Claude Code's path-scoped rules (`.claude/rules/*.md` whose frontmatter sets `paths`): not in the
 * system prompt, but added to the conversation the first time a tool works on a file they match,
 * as Claude Code adds them. A project with many of them (moai-adk: 63 rules, 1 MB) would otherwise
 * send them all with every request, whatever the task touches.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { micromatch } from "../_kits/lazy/index";
import type { RunContext, ToolCall, ToolOutput } from "../../src/index";
import type { MemoryFile } from "./load";

/** The file a tool call works on: its input's `file_path` (Read, Write, Edit) or its result's `path`. */
function pathOfCall(call: ToolCall, output: ToolOutput): string | undefined {
  const input = call.input as { file_path?: unknown; notebook_path?: unknown } | undefined;
  const written = input?.file_path ?? input?.notebook_path ?? output.metadata?.path;
  return typeof written === "string" && written ? written : undefined;
}

/** Whether `file` (absolute) is one `scope` covers. */
function covers(rule: MemoryFile, file: string): boolean {
  const scope = rule.scope;
  if (!scope) return false;
  const rel = relative(scope.base, file);
  if (!rel || rel.startsWith("..") || isAbsolute(rel)) return false;
  return micromatch().isMatch(rel, scope.globs, { dot: true });
}

/**
 * The tool result with the scoped rules its file brings and `delivered` (per run) has not had yet,
 * each after a line saying why; `withheld` says which a Read deny or ask rule keeps out.
 */
export function withScopedRules(
  output: ToolOutput,
  call: ToolCall,
  rules: readonly MemoryFile[],
  delivered: WeakMap<RunContext, Set<string>>,
  withheld: (run: RunContext, path: string) => boolean,
): { output: ToolOutput; added: MemoryFile[] } {
  if (output.isError === true || rules.length === 0) return { output, added: [] };
  const written = pathOfCall(call, output);
  if (!written) return { output, added: [] };
  const run = call.run;
  const file = resolve(run.options.cwd ?? process.cwd(), written);
  const seen = delivered.get(run) ?? new Set<string>();
  delivered.set(run, seen);
  // A rule's includes come with it: they carry its scope and follow it in the list.
  const added = rules.filter((r) => !seen.has(r.path) && covers(r, file) && !withheld(run, r.path));
  if (!added.length) return { output, added };
  for (const r of added) seen.add(r.path);
  const text = added
    .map(
      (r) =>
        `<system-reminder>\n${markerOf(r)}${r.includedBy ? ` (included by ${r.includedBy})` : ""} applies to ${written}:\n\n${r.content}\n</system-reminder>`,
    )
    .join("\n\n");
  return { output: { ...output, content: `${output.content}\n\n${text}` }, added };
}

/** The words that open a rule's reminder in a tool result (and find it in the history again). */
const markerOf = (rule: MemoryFile) => `The ${rule.source} rule ${rule.path}`;

/**
 * After a compaction: a delivered rule whose reminder is no longer in the history (microcompaction
 * cleared its tool result, a summary replaced it) counts as not delivered, so the next result of a
 * file it covers brings it again.
 */
export function forgetCompactedRules(
  run: RunContext,
  rules: readonly MemoryFile[],
  delivered: WeakMap<RunContext, Set<string>>,
): void {
  const seen = delivered.get(run);
  if (!seen?.size) return;
  const history = JSON.stringify(run.history);
  for (const rule of rules)
    if (seen.has(rule.path) && !history.includes(JSON.stringify(markerOf(rule)).slice(1, -1))) seen.delete(rule.path);
}
