/**
 * `ubiquity sessions list|show|fork`: the runner's view of the session store, and the `run` flags
 * of the session options. The sessions root is `--session-dir`, else the config file's
 * `sessionDir`, else ~/.ubiquity/sessions.
 */
import { resolve } from "node:path";
import { UsageError } from "../../loader/index";
import type { CommandArgs, CommandIO, PluginCommand, RunFlag } from "../../loader/index";
import { storageRoot } from "../_kits/storage/index";
import { getSessionsApi, jsonlBackendFor } from "./api";
import type { SessionBackend } from "./backend";
import { SessionStore } from "./store";
import { lazyImport } from "../_kits/lazy/index";

// What a subcommand does (the listing, the ATIF export) loads when one runs (issue 40).
const work = lazyImport(() => import("./sessions-command"));

const USAGE = "list | show <id> | fork <id> | export <id> [--format atif]";

/** The store the command line names: `--session-dir`, else the one the config's plugins pick (its `sessionDir` for the JSONL files). */
async function storeFrom(
  values: CommandArgs["values"],
  io: CommandIO,
): Promise<{ store: SessionBackend; cwd: string }> {
  const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  if (typeof values["session-dir"] === "string")
    return { store: new SessionStore({ dir: storageRoot(values["session-dir"], cwd, "sessions") }), cwd };
  const kernel = await io.kernel({ quiet: true });
  const api = getSessionsApi(kernel);
  return {
    store: api ? api.backendFor(kernel.options, cwd) : jsonlBackendFor(kernel.options, cwd),
    cwd,
  };
}

/** `ubiquity sessions`. */
export const sessionsCommand: PluginCommand = {
  summary: "List, show, fork and export stored sessions",
  usage: USAGE,
  positionals: true,
  flags: {
    config: { type: "string", value: "<file>", description: "Use this config file for sessionDir (skips the search)" },
    cwd: { type: "string", value: "<dir>", description: "The project whose sessions `list` shows [.]" },
    "session-dir": {
      type: "string",
      value: "<dir>",
      description: "The sessions root [config sessionDir, else ~/.ubiquity/sessions]",
    },
    all: { type: "boolean", description: "list: every project's sessions, not only the cwd's" },
    limit: { type: "string", value: "<n>", description: "list: at most n sessions [20]" },
    "up-to": { type: "string", value: "<uuid>", description: "fork: copy records up to and including this one" },
    json: { type: "boolean", description: "Print JSON (list: the infos; show: the records)" },
    format: {
      type: "string",
      value: "<format>",
      description: "export: the format to write: atif (Harbor's trajectory format) [atif]",
    },
  },
  async run({ values, positionals }, io) {
    const sub = positionals[0];
    if (sub !== "list" && sub !== "show" && sub !== "fork" && sub !== "export") {
      throw new UsageError(
        `ubiquity sessions ${sub ? `"${sub}" is not a subcommand` : "needs a subcommand"}: use ${USAGE}`,
      );
    }
    if (positionals.length > (sub === "list" ? 1 : 2))
      throw new UsageError(`too many arguments for ubiquity sessions ${sub}: use ${USAGE}`);
    const { store, cwd } = await storeFrom(values, io);
    try {
      return await (await work()).runOn(store, sub, cwd, values, positionals, io);
    } finally {
      await store.close?.();
    }
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `run` flags of the session options. */
export const sessionsFlags: Record<string, RunFlag> = {
  continue: {
    type: "boolean",
    short: "c",
    group: "Sessions",
    claude: "-c, --continue",
    description: "Continue the latest session of the working directory",
    apply: (o, _v, values) => {
      if (values?.resume) throw new UsageError("pass --resume <id> or --continue, not both");
      o.continueConversation = true;
    },
  },
  resume: {
    type: "string",
    short: "r",
    value: "<id>",
    group: "Sessions",
    claude: "-r, --resume",
    description: "Continue a stored session (on its model unless --model is given)",
    apply: (o, v) => void (o.resume = String(v)),
  },
  "fork-session": {
    type: "boolean",
    group: "Sessions",
    claude: "--fork-session",
    description: "With --resume or --continue: continue in a new session, leaving the stored one as it was",
    apply: (o, _v, values) => {
      if (!values?.resume && !values?.continue)
        throw new UsageError("--fork-session needs --resume <id> or --continue");
      o.forkSession = true;
    },
  },
  "session-dir": {
    type: "string",
    value: "<dir>",
    group: "Sessions",
    description:
      "Where sessions are stored and looked up [~/.ubiquity/sessions]: a CI job's workspace keeps them between steps",
    // From where the command was typed.
    apply: (o, v) => void (o.sessionDir = resolve(String(v))),
  },
  "session-id": {
    type: "string",
    value: "<uuid>",
    group: "Sessions",
    claude: "--session-id",
    description: "The id of the new session (a UUID)",
    apply: (o, v) => {
      if (!UUID.test(String(v)))
        throw new UsageError(
          `--session-id must be a UUID (like 3f2b8c1e-0d4a-4e8b-9c1f-2a6d7e8f9b0c), not ${JSON.stringify(v)}`,
        );
      o.sessionId = String(v).toLowerCase();
    },
  },
  "no-session-persistence": {
    type: "boolean",
    group: "Sessions",
    claude: "--no-session-persistence",
    description: "Write no transcript (the session cannot be resumed)",
    apply: (o) => void (o.persistSession = false),
  },
};
