/**
 * One Agent call, as the tool's `launch`: in a fresh worktree when isolated (the call's
 * `isolation`, else the definition's, else `agentIsolation`), in the background when asked,
 * else synchronously; an isolated agent's worktree report follows its reply.
 */
import { absolutePath, describeError, type Kernel, type RunContext, type ToolOutput } from "../../src/index";
import { getSandboxApi } from "../sandbox/api";
import { folderTrusted } from "../_kits/process/index";
import type { AgentInput } from "./agent-tool";
import { startBackground, type BackgroundAgents } from "./background";
import { prepareSubagent, runSubagent, type Delegation } from "./launch";
import type { AgentDefinition, AgentsResolvedOptions } from "./options";
import { getHooksApi } from "../hooks/index";
import {
  createWorktree,
  defaultWorktreeDir,
  finishWorktree,
  worktreeFromHook,
  worktreeName,
  WorktreeError,
  type Worktree,
} from "./worktree";

/** What a delegation needs from the plugin: its kernel and its per-run state. */
export interface DelegationContext {
  kernel: Kernel;
  /** Keep the child's delegation (its definition, its parent's tools, SubagentStart's context). */
  remember: (child: RunContext, delegation: Delegation) => void;
  /** The run's own signal (not a stretch's): what its background agents follow. */
  base: (run: RunContext) => AbortSignal;
  /** The run's background agents. */
  background: (run: RunContext) => BackgroundAgents;
  /** The run's options, typed by the agents plugin's slice (its context's `optionsOf`). */
  optionsOf: (run: RunContext) => AgentsResolvedOptions;
}

/** Run agent `input.subagent_type` (defined by `definition`) for the Agent call `toolUseId` of `parent`. */
export async function delegate(
  ctx: DelegationContext,
  parent: RunContext,
  definition: AgentDefinition,
  input: AgentInput,
  toolUseId: string,
): Promise<ToolOutput> {
  const type = input.subagent_type;
  const options = ctx.optionsOf(parent);
  let tree: Worktree | undefined;
  const hooks = getHooksApi(ctx.kernel);
  if ((input.isolation ?? definition.isolation ?? options.agentIsolation ?? "none") === "worktree") {
    try {
      // A WorktreeCreate hook (Claude Code's) makes it instead of git.
      if (hooks?.has("WorktreeCreate", parent)) {
        const made = await hooks.fire("WorktreeCreate", parent, { extra: { name: worktreeName() } });
        if (made.blocked) throw new WorktreeError(`the WorktreeCreate hook failed: ${made.blocked}`);
        tree = worktreeFromHook(made.worktreePath, parent.cwd);
      } else
        tree = await createWorktree(
          parent.cwd,
          options.worktreeDir ? absolutePath(parent.cwd, options.worktreeDir) : defaultWorktreeDir(),
          folderTrusted(parent.options),
        );
    } catch (error) {
      return { content: `Agent ${type} could not start: ${describeError(error)}`, isError: true };
    }
  }
  // With the sandbox on, the agent's commands may write its worktree as the caller's write the caller's folders.
  const release = tree && getSandboxApi(ctx.kernel).addWorkspace(tree.cwd);
  // WorktreeRemove hooks hear of a worktree that goes: one git removed (unchanged), or the hook's own to remove.
  const removing = async (path: string) => {
    if (!hooks?.has("WorktreeRemove", parent)) return false;
    await hooks.fire("WorktreeRemove", parent, { extra: { worktreePath: path } });
    return true;
  };
  const finish =
    tree &&
    (async () => {
      release?.();
      if (tree.byHook)
        return (await removing(tree.path))
          ? `Worktree: ${tree.path} (made by the WorktreeCreate hook); the WorktreeRemove hook was asked to remove it.`
          : `Worktree: ${tree.path} (made by the WorktreeCreate hook) was kept: no WorktreeRemove hook removes it.`;
      const report = await finishWorktree(tree);
      if (!report.kept) await removing(tree.path);
      return report.text;
    });
  if (input.run_in_background) {
    return startBackground({
      parent,
      agentType: type,
      description: input.description,
      prompt: input.prompt,
      name: input.name,
      base: ctx.base(parent),
      agents: ctx.background(parent),
      prepare: (place) =>
        prepareSubagent(parent, type, definition, input, toolUseId, ctx.remember, { ...place, cwd: tree?.cwd }),
      finish,
      where: tree && `in the worktree ${tree.path}${tree.branch ? ` on branch ${tree.branch}` : ""}`,
    });
  }
  const output = await runSubagent(parent, type, definition, input, toolUseId, ctx.remember, { cwd: tree?.cwd });
  if (!tree || !finish) return output;
  let report: string;
  try {
    report = await finish();
  } catch (error) {
    report = `Worktree: could not inspect ${tree.path} (${describeError(error)}); it was kept, on branch ${tree.branch}.`;
  }
  return {
    ...output,
    content: `${output.content}\n\n${report}`,
    metadata: { ...output.metadata, worktree: { path: tree.path, branch: tree.branch, base: tree.base } },
  };
}
