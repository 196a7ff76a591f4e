/**
 * What `ubiquity sessions list|show|fork|export` does once the store is open: the listing, the
 * session's records, the fork, the ATIF export. command.ts (the command as the runner lists it)
 * imports this when a subcommand runs (issue 40).
 */
import type { CommandArgs, CommandIO } from "../../loader/index";
import { UsageError } from "../../loader/index";
import type { SessionBackend } from "./backend";
import { formatSession, formatSessionList } from "./render";
import { toAtif } from "./atif";
import { SessionNotFoundError } from "./store";

/** What `sessions export` writes. */
const EXPORT_FORMATS = ["atif"] as const;

function needId(positionals: string[], sub: string): string {
  const id = positionals[1];
  if (!id)
    throw new UsageError(`ubiquity sessions ${sub} needs a session id; find one with \`ubiquity sessions list\``);
  return id;
}

/** Run the subcommand `sub` on `store`. */
export async function runOn(
  store: SessionBackend,
  sub: string,
  cwd: string,
  values: CommandArgs["values"],
  positionals: string[],
  io: CommandIO,
): Promise<number> {
  {
    if (sub === "list") {
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError(`--limit must be a positive integer, not ${JSON.stringify(values.limit)}`);
      const sessions = await store.list({ cwd: values.all ? undefined : cwd, limit });
      io.stdout(values.json ? `${JSON.stringify(sessions, null, 2)}\n` : formatSessionList(sessions));
      return 0;
    }
    const id = needId(positionals, sub);
    if (sub === "export") {
      const format = values.format === undefined ? "atif" : String(values.format);
      if (!(EXPORT_FORMATS as readonly string[]).includes(format))
        throw new UsageError(`--format ${format}: sessions export writes ${EXPORT_FORMATS.join(", ")}`);
      const session = await store.get(id, cwd);
      if (!session)
        throw new SessionNotFoundError(
          `No stored session with id "${id}" in ${store.location}: check the id (ubiquity sessions list --all)`,
        );
      io.stdout(`${JSON.stringify(toAtif(session.sessionId, session.records), null, 2)}\n`);
      return 0;
    }
    if (sub === "show") {
      const session = await store.get(id, cwd);
      if (!session)
        throw new SessionNotFoundError(
          `No stored session with id "${id}" in ${store.location}: check the id (ubiquity sessions list --all)`,
        );
      io.stdout(values.json ? `${JSON.stringify(session.records, null, 2)}\n` : formatSession(session));
      return 0;
    }
    const forked = await store.fork(id, {
      upToUuid: typeof values["up-to"] === "string" ? values["up-to"] : undefined,
    });
    io.stdout(`${forked}\n`);
    io.stderr(`Forked ${id} into ${forked}; continue it with: ubiquity run --resume ${forked} "<prompt>"\n`);
    return 0;
  }
}
