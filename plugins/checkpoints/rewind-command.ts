/** What `ubiquity rewind` does (command.ts lists it): loaded on the command's first run. */
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { UsageError } from "../../loader/index";
import type { CommandArgs, CommandIO } from "../../loader/index";
import { storageRoot } from "../_kits/storage/index";
import { SessionStore } from "../sessions/index";
import { sessionsOptions } from "../sessions/index";
import { readOption } from "../_kits/authoring/index";
import { listCheckpoints, rewindConversation, rewindFiles, type RewindResult } from "./api";
import { formatList, formatRewind } from "./format";
import { checkpointUuid } from "./chat";

async function confirm(question: string): Promise<boolean> {
  // node:readline loads with the question, not with the plugin (cold start).
  const { createInterface } = createRequire(import.meta.url)(
    "node:readline/promises",
  ) as typeof import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

async function sessionDirOf(values: Record<string, unknown>, io: CommandIO): Promise<string | undefined> {
  if (typeof values["session-dir"] === "string") return values["session-dir"];
  const { config } = await io.config({ quiet: true });
  return readOption(sessionsOptions, config, "sessionDir");
}

/** The config's `checkpoints.dir`: a checkpoint covering folders outside the cwd is rewound only from that store. */
async function checkpointDirOf(io: CommandIO): Promise<string | undefined> {
  const { config } = await io.config({ quiet: true }).catch(() => ({ config: {} as Record<string, unknown> }));
  const checkpoints = (config as { checkpoints?: unknown }).checkpoints;
  return typeof checkpoints === "object" && checkpoints !== null ? (checkpoints as { dir?: string }).dir : undefined;
}

/** `ubiquity rewind`: list the checkpoints, or show and apply a rewind; the exit code. */
export async function runRewind({ values }: CommandArgs, io: CommandIO): Promise<number> {
  const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  const sessionDir = await sessionDirOf(values, io);
  let sessionId = typeof values.session === "string" ? values.session : undefined;
  if (!sessionId) {
    sessionId = (await new SessionStore({ dir: storageRoot(sessionDir, cwd, "sessions") }).list({ cwd, limit: 1 }))[0]
      ?.sessionId;
    if (!sessionId)
      throw new UsageError(`no stored session for ${cwd}: name one with --session <id> (ubiquity sessions list --all)`);
  }
  const query = { cwd, sessionDir, checkpointDir: await checkpointDirOf(io) };
  if (typeof values.to !== "string") {
    const list = await listCheckpoints(sessionId, query);
    io.stdout(values.json ? `${JSON.stringify(list, null, 2)}\n` : formatList(list, sessionId));
    return 0;
  }
  const picked = checkpointUuid(await listCheckpoints(sessionId, query), values.to);
  if (picked.ambiguous) throw new UsageError(`${picked.ambiguous}: give more of it to --to`);
  const to = picked.uuid;
  const plan = await rewindFiles(sessionId, to, { ...query, dryRun: true });
  const print = (r: RewindResult) => io.stdout(values.json ? `${JSON.stringify(r, null, 2)}\n` : formatRewind(r, cwd));
  print(plan);
  if (values["dry-run"] || !plan.checkpoint || plan.changes.length === 0) {
    if (values.conversation && !values["dry-run"])
      io.stdout(`${(await rewindConversation(sessionId, to, query)).sessionId}\n`);
    return 0;
  }
  if (!values.yes) {
    if (!process.stdin.isTTY)
      throw new UsageError(
        `nothing was changed: without a terminal, pass --yes to apply this rewind (or --dry-run to only see it)`,
      );
    if (!(await confirm(`Rewind ${plan.changes.length} file${plan.changes.length === 1 ? "" : "s"}? [y/N] `))) {
      io.stderr("Nothing changed.\n");
      return 0;
    }
  }
  const done = await rewindFiles(sessionId, to, query);
  print(done);
  if (values.conversation) {
    const fork = await rewindConversation(sessionId, to, query);
    io.stdout(`${fork.sessionId}\n`);
    io.stderr(
      `The conversation before ${to} continues in session ${fork.sessionId}: ubiquity run --resume ${fork.sessionId} "<prompt>"\n`,
    );
  }
  return done.refused.length > 0 ? 1 : 0;
}
