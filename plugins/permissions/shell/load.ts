/**
 * The shell analysis, loaded on first use: the bash grammar (web-tree-sitter and two wasm
 * modules) and the ~100 KB of analysis code behind it load when the first shell command is
 * judged (or `loadShellParser()` is called), never at start-up.
 */
import { loadShellParser as loadGrammar } from "./parser";
import type { ShellAnalysis } from "./types";

let analysis: typeof import("./analyze") | undefined;
let loading: Promise<void> | undefined;

/** Start (or join) loading the bash grammar and the analysis. Safe to call many times. */
export function loadShellParser(): Promise<void> {
  loading ??= Promise.all([loadGrammar(), import("./analyze")]).then(
    ([, module]) => void (analysis = module),
    (error: unknown) => {
      loading = undefined; // let a later call retry
      throw error;
    },
  );
  return loading;
}

/** Analyse a command string. Needs the grammar loaded (`await loadShellParser()`). */
export function analyzeShell(source: string): ShellAnalysis {
  if (!analysis)
    throw new Error(
      "the bash grammar is not loaded yet: await loadShellParser() first (the permissions plugin does it before judging a shell command)",
    );
  return analysis.analyzeShell(source);
}
