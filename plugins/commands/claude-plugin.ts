/** A Claude Code plugin's skills, as `/plugin:skill` commands (the plugin folder itself: see the sources kit). */
import { pathExists } from "../../loader/index";
import { expandPluginRoot, type ClaudePlugin } from "../_kits/sources/index";
import { loadSkills } from "../skills/index";
import type { SlashCommand } from "./command";

/** The plugins' skills, as `/plugin:skill` commands. */
export async function pluginSkills(plugins: readonly ClaudePlugin[], place: { cwd: string; home: string }, report: (message: string) => void): Promise<SlashCommand[]> {
  const out: SlashCommand[] = [];
  for (const plugin of plugins) {
    if (!pathExists(plugin.skillsDir)) continue;
    for (const skill of await loadSkills({ skills: [plugin.skillsDir] }, place, report)) {
      const hint = skill.frontmatter["argument-hint"];
      out.push({
        name: `${plugin.name}:${skill.name}`,
        description: skill.description,
        ...(typeof hint === "string" && hint.trim() ? { argumentHint: hint.trim() } : {}),
        body: expandPluginRoot(skill.body, plugin.root),
        file: `${skill.dir}/SKILL.md`,
        source: "skill",
        dir: skill.dir,
      });
    }
  }
  return out;
}
