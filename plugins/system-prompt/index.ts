/**
 * `ubiquity:system-prompt`: the base guidance (replaced by `systemPrompt`), the run sections
 * that are always emitted (environment, tools, permissions), and `appendSystemPrompt` last.
 * Other plugins add sections through `turn.system` at their SYSTEM_STAGE.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { arch, platform } from "node:os";
import { SYSTEM_STAGE, type Kernel, type RunContext, type SystemSection } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { environment, guidance, permissionsSection, toolsSection } from "./sections";
import { systemPromptFlags } from "./cli";
import { systemPromptOptions } from "./options";
import { permissionModeOf } from "../permissions/api";
import { getToolSearchApi } from "../tool-search/api";

export const NAME = "ubiquity:system-prompt";

/** True when `dir` is inside a git checkout (a `.git` file or folder in it or above). */
export function inGitCheckout(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return true;
    if (dirname(d) === d) return false;
  }
}

/** The names of the tools `run` offers; deferred ones are named by the search tool that loads them. */
function offeredNames(kernel: Kernel, run: RunContext): string[] {
  const deferred = new Set(getToolSearchApi(kernel)?.deferred(run));
  return run.tools.map((t) => t.name).filter((name) => !deferred.has(name));
}

/** What the plugin keeps per run: whether the run's folder is in a git checkout, looked up once. */
interface RunState {
  git?: boolean;
}

/** The system-prompt plugin. */
export const systemPromptPlugin = definePlugin({
  name: NAME,
  options: systemPromptOptions,
  runState: (): RunState => ({}),
  flags: systemPromptFlags,
  apply(kernel, context) {
    kernel.hooks.turn.system.tap(
      { name: NAME, stage: SYSTEM_STAGE.GUIDANCE },
      (sections: SystemSection[], run: RunContext) => {
        const text = context.optionsOf(run).systemPrompt ?? guidance(run.tools.map((t) => t.name));
        return text ? [...sections, { id: "guidance", text }] : sections;
      },
    );
    kernel.hooks.turn.system.tap(
      { name: NAME, stage: SYSTEM_STAGE.RUN },
      (sections: SystemSection[], run: RunContext) => {
        // A subagent shares its parent's answer.
        const state: RunState = context.run(run.parent ?? run);
        const git = (state.git ??= inGitCheckout(run.cwd));
        return [
          ...sections,
          {
            id: "environment",
            text: environment({
              cwd: run.cwd,
              additionalDirectories: run.roots.slice(1),
              platform: `${platform()} (${arch()})`,
              git,
              model: run.modelLabel,
            }),
          },
          { id: "tools", text: toolsSection(offeredNames(kernel, run)) },
          { id: "permissions", text: permissionsSection(permissionModeOf(run.options)) },
        ];
      },
    );
    kernel.hooks.turn.system.tap(
      { name: NAME, stage: SYSTEM_STAGE.APPEND },
      (sections: SystemSection[], run: RunContext) => {
        const append = context.optionsOf(run).appendSystemPrompt;
        return append ? [...sections, { id: "append", text: append }] : sections;
      },
    );
  },
});

export default systemPromptPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
