/** `ubiquity trust [dir]`, `--list`, `--revoke <dir>`: the user's trust store from the command line. */
import { statSync } from "node:fs";
import type { FlagCommand } from "./types";
import { productPlugins } from "./trust";
import {
  MAX_PIN_FILE_BYTES,
  MAX_PIN_FOLDER_BYTES,
  MAX_PIN_FOLDER_FILES,
  UsageError,
  digestsOf,
  filesNamedBy,
  isDataPinKey,
  pinKey,
  printable,
  displayPath,
  findFilesToPin,
  readTrustStore,
  realFolder,
  rememberTrust,
  revokeTrust,
  trustStorePath,
} from "../loader/index";

/** The `trust` command. */
export const trustCommand: FlagCommand = {
  summary:
    "Trust a folder so its own config, settings, MCP servers, agents, skills and memory apply while unchanged (--list, --revoke)",
  usage: "[dir]",
  positionals: true,
  flags: {
    list: { type: "boolean", description: "List the remembered folders (trusted, and declined at the prompt)" },
    revoke: { type: "string", value: "<dir>", description: "Forget a folder's entry: its files stop applying" },
    // A switcher passes --compat claude to every run and then here: it was "unknown flag".
    compat: {
      type: "string",
      value: "<tools>",
      description:
        "Taken as run takes it, and changes nothing: trust lists and approves Claude Code's and Codex's files whatever it says",
    },
  },
  async run({ values, positionals }, io) {
    if (positionals.length > 1) throw new UsageError("trust takes one folder; see `ubiquity trust --help`");
    if (values.list) {
      const entries = readTrustStore();
      if (entries.length === 0) io.stdout(`No folders are trusted (${trustStorePath()}).\n`);
      for (const e of entries) {
        const pinned = !e.trusted
          ? ""
          : e.files
            ? `, ${approvedCount(e.files)} file${approvedCount(e.files) === 1 ? "" : "s"} approved`
            : ", no files approved: run `ubiquity trust` on it again";
        io.stdout(`${e.trusted ? "trusted " : "declined"}  ${e.path}  (${e.at}${pinned})\n`);
      }
      return 0;
    }
    if (typeof values.revoke === "string") {
      const removed = revokeTrust(values.revoke);
      io.stdout(
        removed
          ? `Revoked ${realFolder(values.revoke)}: its own files no longer apply.\n`
          : `${realFolder(values.revoke)} was not in the trust store; nothing changed.\n`,
      );
      return 0;
    }
    const dir = positionals[0] ?? ".";
    let isFolder = false;
    try {
      isFolder = statSync(dir).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isFolder) throw new UsageError(`${dir} is not a folder; name the project folder to trust`);
    // The files are found and digested before the store is written: what is listed is what is approved.
    const real = realFolder(dir);
    const files = findFilesToPin(real, undefined, await productPlugins());
    const digests = digestsOf(files);
    rememberTrust(real, true, undefined, digests);
    const approved = files.filter((f) => Object.hasOwn(digests, pinKey(f.path)));
    const refused = files.filter((f) => !Object.hasOwn(digests, pinKey(f.path)));
    const what = approved.length
      ? `: ${approved.map((f) => `${displayPath(f.path, real)} (${f.effect}${withNamed(f.path)})`).join(", ")} now apply, as long as they stay as they are now`
      : "";
    io.stdout(`Trusted ${real} and the folders below it${what}.\n`);
    if (refused.length)
      io.stderr(
        `warning: not approved, as they cannot be read or are over the size limits (${MAX_PIN_FOLDER_FILES} files or ${MAX_PIN_FOLDER_BYTES / 1024 / 1024} MiB in a folder, ${MAX_PIN_FILE_BYTES / 1024 / 1024} MiB in a file): ${refused.map((f) => displayPath(f.path, real)).join(", ")}.\n`,
      );
    return 0;
  },
};

/**
 * The files approved with a file because its words name them (a hook's or server's script, a
 * plugin option's file): a change to one of them takes the file out as a change to it does.
 */
function withNamed(path: string): string {
  const named = filesNamedBy(path);
  if (named.length === 0) return "";
  const shown = named.slice(0, 5).map((n) => printable(n, 200));
  return `; with the files it names: ${shown.join(", ")}${named.length > shown.length ? ", …" : ""}`;
}

/** The files an entry approves (not the hooks' data states recorded beside them). */
const approvedCount = (files: Record<string, string>) => Object.keys(files).filter((k) => !isDataPinKey(k)).length;
