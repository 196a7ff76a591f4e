/** `ubiquity:tool-bash`: the Bash tool, as a plugin. */
import type { Kernel } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { copiedParentVariables } from "../_kits/process/index";
import { getSandboxApi } from "../sandbox/api";
import { BashTool } from "./bash-tool";

export { BashTool, BashInput, BASH_LIMITS } from "./bash-tool";
export type { ShellBody, ShellRead } from "./background";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-bash";

/**
 * Says once a run when `env` is a copy of this process's environment (the Claude Agent SDK's
 * `env: { ...process.env, … }`): such a copy is not passed whole (buildSubprocessEnv keeps its
 * copied credentials back), and the program ported from that SDK should know why a variable it
 * copied is not there, and how to pass one on purpose.
 */
function warnOnCopiedEnvironment(kernel: Kernel): void {
  kernel.hooks.session.start.tap(PLUGIN_NAME, (run) => {
    const env = run.options.env;
    if (!env || run.options.subprocessEnv === "inherit" || run.agent) return;
    // The credentials come first: they are why the copy is not passed whole.
    const copied = copiedParentVariables(env);
    if (copied.length === 0) return;
    const shown = copied.slice(0, 5).join(", ") + (copied.length > 5 ? `, … (${copied.length} in all)` : "");
    run.logger.warn(
      `env holds this process's whole environment (the Claude Agent SDK's env: { ...process.env, … }, where env replaces the environment). Here env is added on top of an allow-list (PATH, HOME, locale, temp, TLS, proxies), so only the variables it adds or changes are passed; the ones it copied and the allow-list keeps back stay behind: ${shown}. Pass only what you add (env: { APP_MODE: "demo" }); to hand subprocesses a credential, name it in an env without the spread (env: { GITHUB_TOKEN: process.env.GITHUB_TOKEN! }), or set subprocessEnv: "inherit".`,
    );
  });
}

/** Registers the Bash tool (unless `options.tools` replaces the built-in suite). */
export default definePlugin({
  name: PLUGIN_NAME,
  apply: registerBuiltinTool(PLUGIN_NAME, (kernel) => new BashTool(getSandboxApi(kernel)), warnOnCopiedEnvironment),
});
