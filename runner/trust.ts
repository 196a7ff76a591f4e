/**
 * The runner's trust decision for the folder it runs in: `--trust` or `UBIQUITY_TRUST=1` for
 * this run, else the user's trust store — where each of the folder's files applies only while its
 * contents are the ones approved (a new or changed file is untrusted until approved again) — else,
 * in a terminal, when the folder has files of its own and no answer is remembered, one question;
 * the same question names the new or changed files of a trusted folder. Without a terminal
 * nothing asks and the files that do not apply are skipped with one warning line naming each and the fix.
 */
import { homedir } from "node:os";
import { trustFromEnv } from "../loader/index";
import {
  digestsOf,
  displayPath,
  findFilesToPin,
  findProjectFiles,
  printable,
  trustPinsFor,
  unapprovedFiles,
} from "../loader/index";
import type { ProjectFile, ProjectTrust, UntrustedFile } from "../loader/index";
import type { Plugin } from "../src/plugin";
import { expandPlugins } from "../src/preset";
import { defaultPreset } from "../sdk/facade";
import { approveFiles, isDataPinKey, readTrustStore, realFolder, rememberTrust, trustEntryFor } from "../loader/index";

/** How the decision was made. */
export type TrustSource = "flag" | "env" | "store" | "prompt" | "default";

/** What the runner decided for a folder. */
export interface TrustDecision {
  /** True when the folder's files may apply: for the store's trust, each only while unchanged (see `unapproved`). */
  trusted: boolean;
  source: TrustSource;
  /** The folder's own files that were found (applied when trusted, skipped otherwise). */
  files: ProjectFile[];
  /** In a trusted folder, the files that do not apply: new, changed or unreadable since they were approved. */
  unapproved: UntrustedFile[];
  /** A trusted folder's entry predates pinned files: nothing of it applies until it is trusted again. */
  legacy: boolean;
  /** What the run's `trust` option (and the config loader) get: the approved digests, or a yes/no for the whole folder. */
  option: ProjectTrust;
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
  const plugins = options.plugins ?? (await productPlugins());
  const whole = (trusted: boolean, source: TrustSource): TrustDecision => ({
    trusted,
    source,
    files: findProjectFiles(options.cwd, home, plugins),
    unapproved: [],
    legacy: false,
    option: trusted,
  });
  if (options.flag) return whole(true, "flag");
  if (trustFromEnv(options.env)) return whole(true, "env");
  const entries = readTrustStore(home);
  const pinned = trustPinsFor(options.cwd, entries, home);
  // Under pins each module a config loads is checked too: a changed import is named like a changed config.
  const files = findProjectFiles(options.cwd, home, plugins, { imports: pinned !== undefined });
  if (pinned) {
    const unapproved = unapprovedFiles(files, pinned.pins);
    const decision: TrustDecision = {
      trusted: true,
      source: "store",
      files,
      unapproved,
      legacy: pinned.legacy,
      option: pinned.pins,
    };
    if (unapproved.length === 0 || !options.ask) return decision;
    // The digests of what the question shows, taken before it is asked: a file changed while it waits is not approved.
    // Not the hooks' data (hookDataDigests): the question does not show it, so approving a changed
    // file must not approve a changed policy file beside it; `ubiquity trust .` records it.
    const shown = Object.fromEntries(Object.entries(digestsOf(files)).filter(([key]) => !isDataPinKey(key)));
    const answer = await askTrust(options.ask, changedQuestion(options.cwd, unapproved, pinned.legacy));
    if (answer === "quit")
      throw new TrustDeclinedError(
        `stopped: files of ${realFolder(options.cwd)} changed since it was trusted (review them, then run \`ubiquity trust .\` to approve them)`,
      );
    if (answer === "skip") return decision;
    approveFiles(options.cwd, shown, home);
    const approved = trustPinsFor(options.cwd, readTrustStore(home), home)!;
    return {
      ...decision,
      source: "prompt",
      unapproved: unapprovedFiles(files, approved.pins),
      legacy: false,
      option: approved.pins,
    };
  }
  const none = (source: TrustSource): TrustDecision => ({
    trusted: false,
    source,
    files,
    unapproved: [],
    legacy: false,
    option: false,
  });
  if (trustEntryFor(options.cwd, entries)) return none("store");
  if (files.length === 0 || !options.ask) return none("default");
  const shown = digestsOf(findFilesToPin(options.cwd, home, plugins));
  const answer = await askTrust(options.ask, firstQuestion(options.cwd, files));
  if (answer === "quit")
    throw new TrustDeclinedError(
      `stopped: ${realFolder(options.cwd)} is not trusted (run \`ubiquity trust .\` to trust it)`,
    );
  rememberTrust(options.cwd, answer === "trust", home, shown);
  if (answer !== "trust") return none("prompt");
  const approved = trustPinsFor(options.cwd, readTrustStore(home), home)!;
  return {
    trusted: true,
    source: "prompt",
    files,
    unapproved: unapprovedFiles(files, approved.pins),
    legacy: false,
    option: approved.pins,
  };
}

/** The question for a folder never trusted: every file it has of its own. */
function firstQuestion(cwd: string, files: readonly ProjectFile[]): string {
  const lines = [
    "",
    `This folder is not trusted yet: ${printable(realFolder(cwd), 500)}`,
    "Its own files can run code or change what the agent may do:",
    ...files.map((f) => `  ${printable(displayPath(f.path, cwd), 500)}: ${f.effect}`),
    "Deny and ask rules from the settings files a run reads apply either way.",
    "",
  ];
  return `${lines.join("\n")}[t]rust this folder (remembered) / [r]un without its files / [q]uit, then Enter: `;
}

/** The question for a trusted folder whose files are new or changed since they were approved. */
function changedQuestion(cwd: string, unapproved: readonly UntrustedFile[], legacy: boolean): string {
  const lines = [
    "",
    legacy
      ? `This folder was trusted before ubiquity recorded what its files contain: ${printable(realFolder(cwd), 500)}`
      : `Files of this trusted folder are new or changed since you approved them: ${printable(realFolder(cwd), 500)}`,
    ...unapproved.map((f) => `  ${printable(displayPath(f.path, cwd), 500)} (${problemText(f)}): ${f.effect}`),
    "Deny and ask rules from the settings files a run reads apply either way.",
    "",
  ];
  return `${lines.join("\n")}[t]rust these files (remembered) / [r]un without them / [q]uit, then Enter: `;
}

/** The question, asked until the answer is one of the three. */
async function askTrust(ask: TrustAsk, question: string): Promise<"trust" | "skip" | "quit"> {
  for (;;) {
    const reply = (await ask(question)).trim().toLowerCase();
    if (reply === "t" || reply === "trust" || reply === "y" || reply === "yes") return "trust";
    if (reply === "r" || reply === "run" || reply === "n" || reply === "no") return "skip";
    if (reply === "q" || reply === "quit") return "quit";
    question = "Please answer t (trust), r (run without its files) or q (quit), then Enter: ";
  }
}

/** Why a file is unapproved: `new`, `unreadable`, `changed` — or, when it names files pinned with it, that one of them may be what changed. */
function problemText(file: UntrustedFile): string {
  if (!file.named?.length) return file.problem;
  const shown = file.named.slice(0, 5).map((n) => printable(n, 200));
  return `changed, or a file it names did: ${shown.join(", ")}${file.named.length > shown.length ? ", …" : ""}`;
}

/** Why a file named in a config or settings file keeps changing, when one of the changed files names any. */
function namedNote(unapproved: readonly UntrustedFile[]): string {
  if (!unapproved.some((f) => f.named?.length)) return "";
  return " A file that a config or settings file names is approved with it (it may be a script it runs), so one a run writes — a plugin's log named by its options — changes it at every run: name such a file outside the project.";
}

/** The one warning line for a run that skipped files of the folder; undefined when nothing was skipped. */
export function untrustedWarning(decision: TrustDecision, cwd: string): string | undefined {
  const name = (f: ProjectFile) => printable(displayPath(f.path, cwd), 500);
  if (decision.trusted) {
    if (decision.unapproved.length === 0) return undefined;
    const names = decision.unapproved.map((f) => `${name(f)} (${problemText(f)})`).join(", ");
    const why = decision.legacy
      ? "this folder was trusted before ubiquity recorded what its files contain, so these were not applied"
      : "these files of this trusted folder are new or changed since they were approved, so they were not applied";
    return `warning: ${why} (deny and ask rules from the settings files a run reads still apply): ${names}. Review them, then approve them with \`ubiquity trust .\`, or pass --trust (or UBIQUITY_TRUST=1) for this run.${namedNote(decision.unapproved)}`;
  }
  if (decision.files.length === 0) return undefined;
  // Another tool's files are read only under its compat: trust alone would not apply them.
  const names = decision.files
    .map((f) => `${name(f)}${f.compat ? ` (read with --compat ${f.compat})` : ""}`)
    .join(", ");
  return `warning: this folder is not trusted, so its own files were not applied (deny and ask rules from the settings files a run reads still apply): ${names}. Trust it with \`ubiquity trust .\`, or pass --trust (or UBIQUITY_TRUST=1) for this run.`;
}
