/**
 * `ubiquity permissions check` on a project's own setup: the permissions plugin of a kernel built
 * from the project's config says here how it judges a call — with the rules of the config, the
 * settings files and the managed policy, the mode, the folders and the sandbox a run of that setup
 * has — so the command answers what a run would, not only what its flags say.
 */
import type { Kernel } from "../../src/index";
import type { Decision } from "./engine";
import type { PermissionMode } from "./options";
import type { RuleLists } from "./policy";

/** A call to judge on the setup, with what the command line adds to it. */
export interface SetupCheck {
  toolName: string;
  input: Record<string, unknown>;
  /** Rules from the command line, added to the setup's. */
  rules: RuleLists;
  /** The mode asked for (`--mode`); the setup's when unset. */
  mode?: PermissionMode;
  /** Folders the command line adds to the setup's. */
  additionalDirectories: readonly string[];
  /** `--sandbox`: judge as if Bash ran in the OS sandbox, whatever the setup says. */
  sandbox: boolean;
}

/** The verdict, and what it was reached with. */
export interface SetupVerdict {
  decision: Decision;
  /** The mode judged in. */
  mode: PermissionMode;
  /** Why the setup refuses the mode asked for (a managed policy's `disableBypassPermissionsMode`). */
  refused?: string;
  /** Where the setup's rules come from (besides the command line), each once, in order. */
  sources: string[];
  /** Whether the setup runs this shell command in the OS sandbox (`--sandbox` included). */
  sandboxed: boolean;
}

const judges = new WeakMap<Kernel, (check: SetupCheck) => Promise<SetupVerdict>>();

/** The permissions plugin, applied to `kernel`, says how it judges a call. */
export function setSetupJudge(kernel: Kernel, judge: (check: SetupCheck) => Promise<SetupVerdict>): void {
  judges.set(kernel, judge);
}

/** How `kernel` judges a call; undefined when it has no permissions plugin (of this copy). */
export function setupJudge(kernel: Kernel): ((check: SetupCheck) => Promise<SetupVerdict>) | undefined {
  return judges.get(kernel);
}
