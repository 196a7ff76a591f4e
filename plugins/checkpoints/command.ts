/**
 * `ubiquity rewind [--session <id>] [--to <uuid>] [--dry-run] [--yes]`: without `--to`, list the
 * session's checkpoints; with it, show the plan (every file restored, removed or recreated, and
 * what is not covered), then apply it once confirmed — at a terminal by answering y, elsewhere
 * only with `--yes` (without it the plan is printed and the command exits 2, changing nothing).
 * The session is the cwd's latest unless `--session` names one.
 */
import { createRequire } from "node:module";
import { relative, resolve } from "node:path";
import { UsageError } from "../../loader/index";
import type { CommandIO, PluginCommand } from "../../loader/index";
import { storageRoot } from "../_kits/storage/index";
import { SessionStore } from "../sessions/index";
import type { SessionsOptions } from "../sessions/index";
import { listCheckpoints, rewindConversation, rewindFiles, type CheckpointInfo, type RewindResult } from "./api";

/** The plan (or the outcome) as a person reads it; paths relative to `cwd` where they are inside it. */
export function formatRewind(result: RewindResult, cwd: string): string {
  const show = (p: string) => (relative(cwd, p).startsWith("..") ? p : relative(cwd, p) || ".");
  const verb = { restored: "restore ", removed: "remove  ", recreated: "recreate" } as const;
  const done = { restored: "restored ", removed: "removed  ", recreated: "recreated" } as const;
  const lines: string[] = [];
  if (!result.checkpoint) return "Nothing to rewind: the agent changed no files after that message.\n";
  lines.push(
    `Checkpoint ${result.checkpoint.messageUuid} (${result.checkpoint.createdAt})${result.dryRun ? "" : ": rewound"}`,
  );
  if (result.changes.length === 0) lines.push("  no file differs from the checkpoint");
  for (const c of result.changes) lines.push(`  ${(result.dryRun ? verb : done)[c.action]}  ${show(c.path)}`);
  for (const r of result.refused) lines.push(`  refused   ${show(r.path)}: ${r.reason}`);
  if (result.notCovered.length > 0) {
    lines.push(`Not covered (left as they are):`);
    for (const n of result.notCovered) lines.push(`  ${n.reason.padEnd(17)} ${show(n.path)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The list of checkpoints as a person reads it. */
export function formatList(checkpoints: CheckpointInfo[], sessionId: string): string {
  if (checkpoints.length === 0)
    return `Session ${sessionId} has no checkpoints (were checkpoints on? the terminal mode turns them on; elsewhere set checkpoints: true).\n`;
  const lines = [`Checkpoints of session ${sessionId} (rewind with --to <uuid>):`];
  for (const c of checkpoints)
    lines.push(
      `  ${c.messageUuid}  ${c.createdAt.replace("T", " ").slice(0, 19)}  ${(c.prompt ?? "").replace(/\s+/g, " ").slice(0, 60)}`,
    );
  return `${lines.join("\n")}\n`;
}

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
  return (config as SessionsOptions).sessionDir;
}

/** The config's `checkpoints.dir`: a checkpoint covering folders outside the cwd is rewound only from that store. */
async function checkpointDirOf(io: CommandIO): Promise<string | undefined> {
  const { config } = await io.config({ quiet: true }).catch(() => ({ config: {} as Record<string, unknown> }));
  const checkpoints = (config as { checkpoints?: unknown }).checkpoints;
  return typeof checkpoints === "object" && checkpoints !== null ? (checkpoints as { dir?: string }).dir : undefined;
}

/** `ubiquity rewind`. */
export const rewindCommand: PluginCommand = {
  summary: "Rewind the files (and optionally the conversation) of a session to a checkpoint",
  usage: "[--session <id>] [--to <uuid>] [--dry-run] [--yes]",
  flags: {
    session: { type: "string", value: "<id>", description: "The session [the cwd's latest]" },
    to: {
      type: "string",
      value: "<uuid>",
      description:
        "The message to rewind to: files as they were before its turn changed them (without it: list the checkpoints)",
    },
    "dry-run": { type: "boolean", description: "Show what would change; change nothing" },
    yes: { type: "boolean", short: "y", description: "Apply without asking (needed without a terminal)" },
    conversation: {
      type: "boolean",
      description: "Also fork the conversation just before that message (prints the new session id)",
    },
    cwd: { type: "string", value: "<dir>", description: "The project folder [.]" },
    config: { type: "string", value: "<file>", description: "Use this config file for sessionDir (skips the search)" },
    "session-dir": {
      type: "string",
      value: "<dir>",
      description: "The sessions root [config sessionDir, else ~/.ubiquity/sessions]",
    },
    json: { type: "boolean", description: "Print JSON (the checkpoints, or the rewind's result)" },
  },
  async run({ values }, io) {
    const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
    const sessionDir = await sessionDirOf(values, io);
    let sessionId = typeof values.session === "string" ? values.session : undefined;
    if (!sessionId) {
      sessionId = (await new SessionStore({ dir: storageRoot(sessionDir, cwd, "sessions") }).list({ cwd, limit: 1 }))[0]
        ?.sessionId;
      if (!sessionId)
        throw new UsageError(
          `no stored session for ${cwd}: name one with --session <id> (ubiquity sessions list --all)`,
        );
    }
    const query = { cwd, sessionDir, checkpointDir: await checkpointDirOf(io) };
    if (typeof values.to !== "string") {
      const list = await listCheckpoints(sessionId, query);
      io.stdout(values.json ? `${JSON.stringify(list, null, 2)}\n` : formatList(list, sessionId));
      return 0;
    }
    const to = values.to;
    const plan = await rewindFiles(sessionId, to, { ...query, dryRun: true });
    const print = (r: RewindResult) =>
      io.stdout(values.json ? `${JSON.stringify(r, null, 2)}\n` : formatRewind(r, cwd));
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
  },
};
