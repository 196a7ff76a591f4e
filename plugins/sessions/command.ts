/**
 * `ubiquity sessions list|show|fork`: the runner's view of the session store. An entry of the
 * runner's command table (src/cli.ts reaches it through the facade); the sessions root is
 * `--session-dir`, else the config file's `sessionDir`, else ~/.ubiquity/sessions.
 */
import { resolve } from "node:path";
import { loadConfig } from "../../src/index";
import { storageRoot } from "../_shared/storage-paths";
import { formatSession, formatSessionList } from "./render";
import { SessionNotFoundError, SessionStore } from "./store";
import type { SessionsOptions } from "./options";

interface Flag {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  description: string;
}

/** The parsed command line, as the runner's command table passes it. */
export interface SessionsCommandArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Where the command writes. */
export interface SessionsCommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = "list | show <id> | fork <id>";

async function storeFrom(values: SessionsCommandArgs["values"]): Promise<{ store: SessionStore; cwd: string }> {
  const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  if (typeof values["session-dir"] === "string") return { store: new SessionStore({ dir: storageRoot(values["session-dir"], cwd, "sessions") }), cwd };
  const loaded = await loadConfig({
    cwd,
    configFile: typeof values.config === "string" ? values.config : undefined,
    command: "sessions",
    // the default preset claims its plugins' config keys; loaded lazily like the facade does
    defaultPresets: async () => [(await import("../../presets/default")).default],
  });
  const configured = (loaded.config as SessionsOptions | undefined)?.sessionDir;
  return { store: new SessionStore({ dir: storageRoot(configured, cwd, "sessions") }), cwd };
}

function needId(positionals: string[], sub: string): string {
  const id = positionals[1];
  if (!id) throw new Error(`ubiquity sessions ${sub} needs a session id; find one with \`ubiquity sessions list\``);
  return id;
}

/** `ubiquity sessions`: one entry of the runner's command table. */
export const sessionsCommand = {
  summary: "List, show and fork stored sessions",
  usage: USAGE,
  positionals: true,
  flags: {
    config: { type: "string", value: "<file>", description: "Use this config file for sessionDir (skips the search)" },
    cwd: { type: "string", value: "<dir>", description: "The project whose sessions `list` shows [.]" },
    "session-dir": { type: "string", value: "<dir>", description: "The sessions root [config sessionDir, else ~/.ubiquity/sessions]" },
    all: { type: "boolean", description: "list: every project's sessions, not only the cwd's" },
    limit: { type: "string", value: "<n>", description: "list: at most n sessions [20]" },
    "up-to": { type: "string", value: "<uuid>", description: "fork: copy records up to and including this one" },
    json: { type: "boolean", description: "Print JSON (list: the infos; show: the records)" },
  } satisfies Record<string, Flag>,
  async run({ values, positionals }: SessionsCommandArgs, io: SessionsCommandIO): Promise<number> {
    const sub = positionals[0];
    if (sub !== "list" && sub !== "show" && sub !== "fork") {
      throw new Error(`ubiquity sessions ${sub ? `"${sub}" is not a subcommand` : "needs a subcommand"}: use ${USAGE}`);
    }
    if (positionals.length > (sub === "list" ? 1 : 2)) throw new Error(`too many arguments for ubiquity sessions ${sub}: use ${USAGE}`);
    const { store, cwd } = await storeFrom(values);
    if (sub === "list") {
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new Error(`--limit must be a positive integer, not ${JSON.stringify(values.limit)}`);
      const sessions = await store.list({ cwd: values.all ? undefined : cwd, limit });
      io.stdout(values.json ? `${JSON.stringify(sessions, null, 2)}\n` : formatSessionList(sessions));
      return 0;
    }
    const id = needId(positionals, sub);
    if (sub === "show") {
      const session = await store.get(id, cwd);
      if (!session) throw new SessionNotFoundError(`No stored session with id "${id}" in ${store.dir}: check the id (ubiquity sessions list --all)`);
      io.stdout(values.json ? `${JSON.stringify(session.records, null, 2)}\n` : formatSession(session));
      return 0;
    }
    const forked = await store.fork(id, { upToUuid: typeof values["up-to"] === "string" ? values["up-to"] : undefined });
    io.stdout(`${forked}\n`);
    io.stderr(`Forked ${id} into ${forked}; continue it with: ubiquity run --resume ${forked} "<prompt>"\n`);
    return 0;
  },
};
