/**
 * `ubiquity:skills`: skills loaded in three steps, each paid for only when it earns its place —
 * names and descriptions in the Skill tool's description, one skill's body when the model loads
 * it, bundled files read with Read (skill roots become permitted roots). Nothing is read unless
 * `skills` or `skillSources` asks for it; the Skill tool exists only when skills loaded.
 * - `kernel.ready`: scan the skill roots, register the Skill tool
 * - `tool.list`: a narrowed subagent gets a Skill tool listing only its skills (or none)
 * - `session.start`: the roots of the run's skills join its permitted roots
 * - `turn.system`: one sentence saying skills exist, never the listing
 */
import {
  definitionProjectFiles,
  expandPluginRoot,
  expandIn,
  listingBudget,
  permittedCompatPaths,
  permittedSources,
  projectFolderApplies,
  readPlugins,
  toolRules,
  warn,
  warnOnce,
} from "../_kits/sources/index";
import { getPermissionsApi } from "../permissions/api";
import { getSettingsApi } from "../settings/api";
import { applySkillSwitches } from "./codex-switches";
import type { Skill } from "./skill";
import { resolveContextWindow } from "../_kits/compaction/index";
import { homedir } from "node:os";
import { join } from "node:path";
import { describeError, SYSTEM_STAGE, type RunContext, type SystemSection, type Tool } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { isInside } from "../_kits/paths/index";
import { createSkillsApi, type SkillsRunState } from "./api";
import { loadSkills, SKILL_FILE, skillFolder } from "./load";
import { SKILL_TOOL, SkillTool } from "./skill-tool";
import type { ProjectPlace } from "../../loader/index";
import { pathExists } from "../../loader/index";
import { skillsOptions } from "./options";

export { getSkillsApi, type SkillsApi } from "./api";
export { loadSkills, skillFolder, SKILL_FILE } from "./load";
export { skillListing, clamp, DESCRIPTION_LIMIT, LISTING_LIMIT } from "./listing";
export { SkillTool, SKILL_TOOL } from "./skill-tool";
export type { Skill } from "./skill";

/** The plugin's name (also the owner of the Skill tool). */
export const NAME = "ubiquity:skills";

/** The system prompt's one sentence about skills. */
export const SKILLS_NOTE =
  "# Skills\nSkills — packaged instructions for particular kinds of task — are available through the Skill tool, whose description lists them: when a task matches one, load it before you start.";

/** What the plugin keeps per run: its narrowing (see api.ts) and the Skill tool it offers when narrowed (null: none). */
interface RunState extends SkillsRunState {
  tool?: SkillTool | null;
  /** The listing's budget in characters, from the run's context window. */
  budget?: number;
}

/** The skills of Claude Code plugins, named `plugin:skill` as Claude Code names them (`${CLAUDE_PLUGIN_ROOT}` filled in). */
async function pluginSkills(
  plugins: readonly { name: string; root: string; skillsDirs: readonly string[] }[],
  cwd: string,
  report: (message: string) => void,
): Promise<Skill[]> {
  const out: Skill[] = [];
  for (const plugin of plugins) {
    const dirs = plugin.skillsDirs.filter(pathExists);
    if (dirs.length === 0) continue;
    for (const skill of await loadSkills({ skills: dirs }, { cwd, home: homedir() }, report, true)) {
      out.push({
        ...skill,
        name: `${plugin.name}:${skill.name}`,
        body: expandPluginRoot(skill.body, plugin.root),
        // Its rules name the plugin's scripts through `${CLAUDE_PLUGIN_ROOT}` too.
        frontmatter: Object.freeze({
          ...skill.frontmatter,
          ...("allowed-tools" in skill.frontmatter
            ? {
                "allowed-tools": expandIn(skill.frontmatter["allowed-tools"], (t) => expandPluginRoot(t, plugin.root)),
              }
            : {}),
        }),
      });
    }
  }
  return out;
}

/** The skills plugin. */
export const skillsPlugin = definePlugin({
  name: NAME,
  options: skillsOptions,
  projectFiles: (place: ProjectPlace) => [
    ...definitionProjectFiles("skills", skillFolder, "adds skills to the system prompt", place),
    // A skill folder anywhere in the project (one a `skills` root may hold): pinned whole, with its scripts.
    ...(pathExists(join(place.cwd, SKILL_FILE))
      ? [
          {
            path: place.cwd,
            kind: "skill",
            effect: "a skill folder: its instructions and allowed-tools apply where the skills option names it",
          },
        ]
      : []),
  ],
  runState: (): RunState => ({}),
  apply(kernel, context) {
    const stateOf = (run: RunContext): RunState => context.run(run);
    const api = createSkillsApi(kernel, stateOf);
    let registered: SkillTool | undefined;
    // A skill's `allowed-tools` are allowed for the run once the model loads it (until the next prompt ends what was granted).
    const shellLinesOff = (run: RunContext) => context.optionsOf(run).disableSkillShellExecution === true;
    const onLoad = (skill: Skill, run: RunContext) => {
      const rules = toolRules(skill.frontmatter["allowed-tools"]);
      if (!rules?.length) return;
      try {
        getPermissionsApi(kernel).grant(run, rules, `skill ${skill.name} (${skill.dir}/SKILL.md) allowed-tools`, "add");
      } catch (error) {
        run.logger.warn(`[${NAME}] skill ${skill.name}: its allowed-tools were not granted: ${describeError(error)}`);
      }
    };
    // Ours (the registered one or a narrowed copy), not a same-name tool a plugin put in its place.
    const offersSkills = (run: RunContext) => run.tools.some((t) => t instanceof SkillTool);

    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      const { cwd, trust, skillSources: wanted, compat, claudePlugins } = context.options;
      const skipped = (path: string) =>
        kernel.logger.debug(`[${NAME}] ${path}: new or changed since its folder was trusted; not read`);
      const skillSources = permittedSources(wanted, trust, (source) => skillFolder(source, cwd, homedir()), skipped);
      const compatRoots = permittedCompatPaths(
        "skills",
        { compat, sources: wanted, trust },
        { cwd, home: homedir() },
        skipped,
      );
      const plugins = readPlugins(claudePlugins, cwd, trust, (message) => warnOnce(kernel, NAME, message));
      // A skill folder under a `skills` root in the project is one of the project's files: under a
      // trusted folder's pins it is read only while approved and unchanged (its allowed-tools
      // grant tools, and the agent itself could have written it since), as a plugin folder is.
      const { skills } = context.options;
      const admit = (dir: string) => {
        if (projectFolderApplies(dir, cwd, trust)) return true;
        warnOnce(
          kernel,
          NAME,
          `skills: ${dir} was not read: a skill folder of the project that is new or changed since the project was trusted; trust the project again to use it`,
        );
        return false;
      };
      if (!skills?.length && !skillSources?.length && !compatRoots.length && !plugins.length) return;
      const loaded = await loadSkills(
        { skills, skillSources, compatRoots, admit },
        { cwd, home: homedir() },
        (message) => warn(kernel, NAME, message),
      );
      // Claude Code plugins' skills, named `plugin:skill` as Claude Code names them.
      loaded.push(...(await pluginSkills(plugins, cwd, (message) => warn(kernel, NAME, message))));
      // Codex's [[skills.config]] entries of ~/.codex/config.toml (read by the settings plugin): a skill turned off is not offered.
      const { kept, off } = applySkillSwitches(loaded, getSettingsApi(kernel).skillSwitches);
      for (const { skill, file } of off)
        kernel.logger.debug(`[${NAME}] skill ${skill.name} (${skill.dir}): turned off in ${file} ([[skills.config]])`);
      kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      api.load(kept);
      if (kept.length === 0) return;
      registered = new SkillTool(kept, undefined, onLoad, shellLinesOff);
      kernel.registries.tools.register(SKILL_TOOL, registered, NAME);
    });

    // A narrowed run sees its own listing; a run with nothing left sees no Skill tool. The
    // listing's budget follows the run's context window (worked out once per run).
    kernel.hooks.tool.list.tapPromise(NAME, async (tools: Tool[], run) => {
      if (!registered || !tools.includes(registered)) return tools;
      const state = stateOf(run);
      state.budget ??= listingBudget((await resolveContextWindow(run, run.modelLabel)).tokens);
      const own = api.skillsFor(run);
      if (own.length === registered.skills.length && state.budget === registered.budget) return tools;
      if (state.tool === undefined)
        state.tool = own.length ? new SkillTool(own, state.budget, onLoad, shellLinesOff) : null;
      const tool = state.tool;
      return tool ? tools.map((t) => (t === registered ? tool : t)) : tools.filter((t) => t !== registered);
    });

    // Step three is reading bundled files: a path Read refuses would make the body's pointers useless.
    kernel.hooks.session.start.tap(NAME, (run) => {
      if (!offersSkills(run)) return;
      // The init message names them (claude -p's `skills`), for scripts that check what loaded.
      if (!run.agent) run.initExtra.skills = api.skillsFor(run).map((skill) => skill.name);
      for (const skill of api.skillsFor(run)) {
        if (!run.roots.some((root) => isInside(root, skill.root))) run.roots.push(skill.root);
      }
    });

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections: SystemSection[], run) =>
      offersSkills(run) ? [...sections, { id: "skills", text: SKILLS_NOTE }] : sections,
    );
  },
});

export default skillsPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
