/**
 * `/rewind [uuid]` in the runner's terminal mode: without a uuid, the session's checkpoints;
 * with one (or the start of a listed one, as git takes a short hash: Claude Code picks from a
 * menu, and nobody types 36 characters), the plan, a y/N question, then the rewind.
 */
import { listCheckpoints, rewindFiles } from "./rewind-api";
import { formatRewind, formatList } from "./format";

/** What `/rewind` needs from the terminal. */
export interface ChatRewindContext {
  sessionId: string | undefined;
  cwd: string;
  sessionDir?: string;
  /** The run's `checkpoints.dir` (a checkpoint covering folders outside the cwd is rewound only from that store). */
  checkpointDir?: string;
  say(line: string): void;
  ask(question: string): Promise<string>;
}

/**
 * The checkpoint uuid `arg` stands for: a listed uuid's start (as git takes a short hash) names it,
 * anything else is kept as given (a whole message uuid, which the rewind itself looks up). Shared by
 * `/rewind` and `ubiquity rewind --to`: the list prints whole uuids, and a copied start of one was
 * refused by the CLI as "no message or checkpoint".
 */
export function checkpointUuid(
  checkpoints: readonly { messageUuid: string }[],
  arg: string,
): { uuid: string; ambiguous?: string } {
  const matches = checkpoints.map((c) => c.messageUuid).filter((uuid) => uuid.startsWith(arg));
  if (matches.length > 1 && !matches.includes(arg))
    return { uuid: arg, ambiguous: `${arg} starts ${matches.length} checkpoints' uuids (${matches.join(", ")})` };
  return { uuid: matches.length === 1 ? matches[0]! : arg };
}

/** Run `/rewind <arg>`. Never throws: a failure is said. */
export async function chatRewind(arg: string, ctx: ChatRewindContext): Promise<void> {
  const print = (text: string) => {
    for (const l of text.trimEnd().split("\n")) ctx.say(l);
  };
  if (!ctx.sessionId) return ctx.say("Nothing to rewind yet: no prompt has run in this session.");
  const query = { cwd: ctx.cwd, sessionDir: ctx.sessionDir, checkpointDir: ctx.checkpointDir };
  try {
    if (!arg) {
      print(
        formatList(await listCheckpoints(ctx.sessionId, query), ctx.sessionId).replace("--to <uuid>", "/rewind <uuid>"),
      );
      return;
    }
    const picked = checkpointUuid(await listCheckpoints(ctx.sessionId, query), arg);
    if (picked.ambiguous) return ctx.say(`${picked.ambiguous}: type more of it.`);
    arg = picked.uuid;
    const plan = await rewindFiles(ctx.sessionId, arg, { ...query, dryRun: true });
    print(formatRewind(plan, ctx.cwd));
    if (!plan.checkpoint || plan.changes.length === 0) return;
    const answer = (
      await ctx.ask(`Rewind ${plan.changes.length} file${plan.changes.length === 1 ? "" : "s"}? [y/N] `)
    ).trim();
    if (!/^y(es)?$/i.test(answer)) return ctx.say("Nothing changed.");
    print(formatRewind(await rewindFiles(ctx.sessionId, arg, query), ctx.cwd));
    ctx.say("The conversation goes on as it was; the files are as they were at that point.");
  } catch (error) {
    ctx.say(`Cannot rewind: ${(error as Error).message}`);
  }
}
