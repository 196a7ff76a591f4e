/** `ubiquity trust [dir]`, `--list`, `--revoke <dir>`: the user's trust store from the command line. */
import { statSync } from "node:fs";
import type { FlagCommand } from "./types";
import { productPlugins } from "./trust";
import { UsageError, displayPath, findProjectFiles, readTrustStore, realFolder, rememberTrust, revokeTrust, trustStorePath } from "../loader/index";

/** The `trust` command. */
export const trustCommand: FlagCommand = {
  summary: "Trust a folder so its own config, settings, MCP servers, agents, skills and memory apply (--list, --revoke)",
  usage: "[dir]",
  positionals: true,
  flags: {
    list: { type: "boolean", description: "List the remembered folders (trusted, and declined at the prompt)" },
    revoke: { type: "string", value: "<dir>", description: "Forget a folder's entry: its files stop applying" },
  },
  async run({ values, positionals }, io) {
    if (positionals.length > 1) throw new UsageError("trust takes one folder; see `ubiquity trust --help`");
    if (values.list) {
      const entries = readTrustStore();
      if (entries.length === 0) io.stdout(`No folders are trusted (${trustStorePath()}).\n`);
      for (const e of entries) io.stdout(`${e.trusted ? "trusted " : "declined"}  ${e.path}  (${e.at})\n`);
      return 0;
    }
    if (typeof values.revoke === "string") {
      const removed = revokeTrust(values.revoke);
      io.stdout(removed ? `Revoked ${realFolder(values.revoke)}: its own files no longer apply.\n` : `${realFolder(values.revoke)} was not in the trust store; nothing changed.\n`);
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
    const real = rememberTrust(dir, true);
    const files = findProjectFiles(real, undefined, await productPlugins());
    const what = files.length ? `: ${files.map((f) => `${displayPath(f.path, real)} (${f.effect})`).join(", ")} now apply` : "";
    io.stdout(`Trusted ${real} and the folders below it${what}.\n`);
    return 0;
  },
};
