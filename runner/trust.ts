/**
 * The runner's trust decision for the folder it runs in: `--trust` or `UBIQUITY_TRUST=1` for
 * this run, else the user's trust store, else — in a terminal, when the folder has files of its
 * own and no answer is remembered — one question; without a terminal nothing asks and the
 * folder's files are skipped with one warning line naming each and the fix.
 */
import { homedir } from "node:os";
import { trustFromEnv } from "../loader/index";
import { displayPath, findProjectFiles, printable } from "../loader/index";
import type { ProjectFile } from "../loader/index";
import type { Plugin } from "../src/plugin";
import { expandPlugins } from "../src/preset";
import { defaultPreset } from "../sdk/facade";
import { readTrustStore, realFolder, rememberTrust, trustEntryFor } from "../loader/index";

/** How the decision was made. */
export type TrustSource = "flag" | "env" | "store" | "prompt" | "default";

/** What the runner decided for a folder. */
export interface TrustDecision {
  trusted: boolean;
  source: TrustSource;
  /** The folder's own files that were found (applied when trusted, skipped otherwise). */
  files: ProjectFile[];
}

/** Asks the user one question and returns the answer (the runner's terminal). */
export type TrustAsk = (question: string) => Promise<string>;

/** Inputs of `decideTrust`. */
export interface DecideTrustOptions {
  cwd: string;
  home?: string;
  /** `--trust` was given. */
  flag?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Present only in a terminal: ask the user. */
  ask?: TrustAsk;
  /** The plugins whose own project files are listed (`plugin.projectFiles`): the product's. */
  plugins?: readonly Pick<Plugin, "projectFiles">[];
}

/** The answer "quit" at the prompt. */
export class TrustDeclinedError extends Error {
  override name = "TrustDeclinedError";
}

/**
 * The default preset's plugins: whose own project files the trust question lists. Always the
 * built-ins (a superset of what a smaller preset applies), never a list the folder's own config chose.
 */
export async function productPlugins(): Promise<Plugin[]> {
  return expandPlugins({ presets: [await defaultPreset()] }).plugins.map((p) => p.plugin);
}

/** Decide whether the folder's own files apply to this run; throws `TrustDeclinedError` when the user quits. */
export async function decideTrust(options: DecideTrustOptions): Promise<TrustDecision> {
  const home = options.home ?? homedir();
  const files = findProjectFiles(options.cwd, home, options.plugins ?? (await productPlugins()));
  if (options.flag) return { trusted: true, source: "flag", files };
  if (trustFromEnv(options.env)) return { trusted: true, source: "env", files };
  const entry = trustEntryFor(options.cwd, readTrustStore(home));
  if (entry) return { trusted: entry.trusted, source: "store", files };
  if (files.length === 0 || !options.ask) return { trusted: false, source: "default", files };
  const answer = await askTrust(options.ask, options.cwd, files);
  if (answer === "quit") throw new TrustDeclinedError(`stopped: ${realFolder(options.cwd)} is not trusted (run \`ubiquity trust .\` to trust it)`);
  rememberTrust(options.cwd, answer === "trust", home);
  return { trusted: answer === "trust", source: "prompt", files };
}

/** The question, asked until the answer is one of the three. */
async function askTrust(ask: TrustAsk, cwd: string, files: readonly ProjectFile[]): Promise<"trust" | "skip" | "quit"> {
  const lines = [
    "",
    `This folder is not trusted yet: ${printable(realFolder(cwd), 500)}`,
    "Its own files can run code or change what the agent may do:",
    ...files.map((f) => `  ${printable(displayPath(f.path, cwd), 500)}: ${f.effect}`),
    "Deny and ask rules from its settings apply either way.",
    "",
  ];
  let question = `${lines.join("\n")}[t]rust this folder (remembered) / [r]un without its files / [q]uit: `;
  for (;;) {
    const reply = (await ask(question)).trim().toLowerCase();
    if (reply === "t" || reply === "trust" || reply === "y" || reply === "yes") return "trust";
    if (reply === "r" || reply === "run" || reply === "n" || reply === "no") return "skip";
    if (reply === "q" || reply === "quit") return "quit";
    question = "Please answer t (trust), r (run without its files) or q (quit): ";
  }
}

/** The one warning line for a run that skipped an untrusted folder's files; undefined when nothing was skipped. */
export function untrustedWarning(decision: TrustDecision, cwd: string): string | undefined {
  if (decision.trusted || decision.files.length === 0) return undefined;
  const names = decision.files.map((f) => printable(displayPath(f.path, cwd), 500)).join(", ");
  return `warning: this folder is not trusted, so its own files were not applied (deny and ask rules still apply): ${names}. Trust it with \`ubiquity trust .\`, or pass --trust (or UBIQUITY_TRUST=1) for this run.`;
}
