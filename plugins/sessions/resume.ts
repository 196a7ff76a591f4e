/**
 * `resume`, `continueConversation` and `forkSession`: before a run starts, the stored session
 * they name is replayed into its history through the sessions API's `load` (the store, then the
 * loaders other plugins added: the first that knows it answers), and the run takes the
 * session's id unless it forks.
 */
import {
  describeError,
  modelLabel,
  requestedModel,
  resolveModel,
  RunEnd,
  type Kernel,
  type RunContext,
} from "../../src/index";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { NAME, type SessionsContext } from "./kernel-sessions";
import type { SessionsResolvedOptions } from "./options";
import { getSessionsApi } from "./api";

/** Replay the session `run`'s options ask for, if any (a subagent never resumes). */
export async function resumeSession(run: RunContext, options: SessionsResolvedOptions): Promise<void> {
  const { resume, continueConversation, forkSession } = options;
  if (run.agent || (!resume && !continueConversation)) return;
  // A resumed session keeps its id: a new one asked for too would be dropped in silence (Claude Code refuses it the same way).
  const asked = options.sessionId;
  if (typeof asked === "string" && !forkSession)
    throw new RunEnd(
      `sessionId (--session-id) ${asked} names a new session, but ${resume ? "resume (--resume)" : "continueConversation (--continue)"} goes on in the stored one, which keeps its id: add forkSession (--fork-session) to continue in a copy under the new id, or leave the id out`,
    );
  const request = {
    sessionId: resume,
    latest: !resume && continueConversation === true,
    cwd: run.cwd,
    fork: forkSession === true,
  };
  const loaded = await getSessionsApi(run.kernel)?.load(request, run);
  if (!loaded && !resume) {
    // Nothing to continue in this folder yet: the first run starts the conversation (as in the
    // original). Said, not logged at debug: a CI step continuing from another working directory (or
    // HOME, or sessionDir) would otherwise go on without the earlier step's context, silently.
    run.logger.warn(
      `continueConversation (--continue): no stored session for ${run.cwd} in this session directory, so a new session starts; to continue one from elsewhere pass its id (resume, --resume <id>; ubiquity sessions list)`,
    );
    return;
  }
  if (!loaded) {
    const claude = claudeTranscript(resume!);
    throw new RunEnd(
      claude
        ? `No stored session with id "${resume}": it is a Claude Code session (${claude}), whose transcript ubiquity does not read (a session id kept from a Claude Agent SDK app names one). Leave resume out to start a new session, and give it what it needs in the prompt`
        : notFound(resume!, run),
    );
  }
  run.history.push(...loaded.history);
  if (!request.fork) run.sessionId = loaded.sessionId;
  // A run that names no model goes on with the session's (as `ubiquity run --resume` does).
  if (run.model === undefined && requestedModel(run.options) === undefined && loaded.model)
    await adoptModel(run, loaded.model);
}

/**
 * "No stored session", naming the store that was asked: a service keeping its sessions in
 * PostgreSQL was told to check `sessionDir`, an option its runs do not use.
 */
function notFound(id: string, run: RunContext): string {
  const store = getSessionsApi(run.kernel)?.backendFor(run.options, run.cwd);
  if (!store || store.kind === "jsonl")
    return `No stored session with id "${id}"${store ? ` in ${store.location}` : ""}: check the id (ubiquity sessions list) and sessionDir`;
  return (
    `No stored session with id "${id}" in the ${store.kind} session store at ${store.location}: check the id, and that ` +
    `this run's sessionStore is the one the session was written to (ubiquity sessions list --config <file> lists a config's store)`
  );
}

/**
 * The Claude Code transcript of `id` (`~/.claude/projects/<project>/<id>.jsonl`), when there is one:
 * an app moved from the Claude Agent SDK keeps its users' session ids, and resuming one here met
 * only "check the id". Only a session id's shape is looked up (never a path), on this error path.
 */
function claudeTranscript(id: string): string | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const root = join(homedir(), ".claude", "projects");
  let projects: string[];
  try {
    projects = readdirSync(root);
  } catch {
    return undefined;
  }
  return projects.map((project) => join(root, project, `${id}.jsonl`)).find((file) => existsSync(file));
}

/** Run on the session's stored model; one that no longer resolves leaves the run without a model, whose error says so. */
async function adoptModel(run: RunContext, spec: string): Promise<void> {
  try {
    run.model = await resolveModel(run, spec, "main");
    run.modelLabel = modelLabel(run.model, run.kernel);
  } catch (error) {
    run.logger.debug(`resume: the session's model ${spec} did not resolve: ${describeError(error)}`);
  }
}

/** Tap `session.start` first, so every other tap sees the resumed session's id and history. */
export function tapResume(kernel: Kernel, context: SessionsContext): void {
  kernel.hooks.session.start.tapPromise({ name: NAME, order: "first" }, (run) =>
    resumeSession(run, context.optionsOf(run)),
  );
}
