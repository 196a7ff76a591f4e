/** The Skill tool: returns one skill's full instructions; its description lists the skills. */
import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import { runShellLines, ShellLineError, substituteArguments } from "../_kits/sources/index";
import { LISTING_LIMIT, skillListing } from "./listing";
import type { Skill } from "./skill";

/** The tool's name. */
export const SKILL_TOOL = "Skill";

const SkillInput = z.object({
  skill: z.string().min(1).describe("The name of the skill to load, exactly as listed"),
  // Claude Code's Skill tool takes the words a user would type after /name; models trained on it send them.
  args: z.string().optional().describe("Arguments for the skill, as a user would type them after /name"),
});

/** The Skill tool for a fixed set of skills. */
export class SkillTool extends Tool<typeof SkillInput> {
  readonly name = SKILL_TOOL;
  readonly description: string;
  readonly inputSchema = SkillInput;
  readonly #byName: ReadonlyMap<string, Skill>;

  constructor(
    readonly skills: readonly Skill[],
    /** The listing's budget in characters (see `listingBudget`). */
    readonly budget: number = LISTING_LIMIT,
    /** Called when the model loads a skill (its `allowed-tools` are granted then). */
    private readonly onLoad?: (skill: Skill, run: NonNullable<ToolContext["run"]>) => void,
    /** `disableSkillShellExecution` for a run: its skills' shell lines stand replaced, unrun. */
    private readonly shellLinesOff?: (run: NonNullable<ToolContext["run"]>) => boolean,
  ) {
    super();
    // Claude Code's `disable-model-invocation: true`: the user's to run as /name, not the model's to load.
    skills = skills.filter((s) => s.frontmatter["disable-model-invocation"] !== true);
    this.#byName = new Map(skills.map((s) => [s.name, s]));
    const listing = skillListing([...this.#byName.values()], budget);
    this.description = [
      "Load a skill: packaged instructions for one kind of task, sometimes with bundled files. When the task matches a skill listed below, call this tool with its name before you start; it returns the skill's full instructions. Files they mention are in the skill's folder: read them with Read.",
      "",
      listing.degraded ? "Skills (names only; load one to see what it is for):" : "Skills:",
      listing.text,
      ...(listing.note ? ["", listing.note] : []),
    ].join("\n");
  }

  override isReadOnly(): boolean {
    return true;
  }
  override isConcurrencySafe(): boolean {
    return true;
  }
  /**
   * `Skill(name)` and `Skill(name *)` rules, as Claude Code writes them: the skill's name, then its
   * args (a `deny: ["Skill(deploy)"]` loaded the skill all the same). The name alone is one of the
   * call's strings whatever the args: a deny or ask rule naming the skill holds for every call of
   * it (red team o, O5: `args: "now"` made the content `deploy now`, which `Skill(deploy)` does
   * not match, and the skill loaded, its allowed-tools granted and its shell lines run); an allow
   * rule covers the call only when it covers both.
   */
  override permissionRuleContent(input: z.output<typeof SkillInput>): string[] {
    const args = input.args?.trim();
    return args ? [input.skill, `${input.skill} ${args}`] : [input.skill];
  }
  override validateInput(input: z.output<typeof SkillInput>): string | undefined {
    if (this.#byName.has(input.skill)) return undefined;
    return `there is no skill named ${JSON.stringify(input.skill)}. Skills: ${[...this.#byName.keys()].join(", ")}.`;
  }
  async call(input: z.output<typeof SkillInput>, ctx: ToolContext): Promise<ToolOutput> {
    const skill = this.#byName.get(input.skill)!;
    if (ctx.run) this.onLoad?.(skill, ctx.run);
    // As Claude Code's Skill tool: `$ARGUMENTS`, `$1`… and `${CLAUDE_SESSION_ID}` in place, the args appended when none is used.
    let body = substituteArguments(skill.body, input.args?.trim() ?? "", ctx.sessionId);
    // Its `!`command`` lines run now, each a Bash call judged as the model's own (after the skill's
    // `allowed-tools` were granted above), and stand replaced by their output, as Claude Code's do.
    if (ctx.run) {
      try {
        body = await runShellLines(body, ctx.run, `the skill ${skill.name}`, this.shellLinesOff?.(ctx.run) === true);
      } catch (error) {
        if (!(error instanceof ShellLineError)) throw error;
        return { content: error.message, isError: true, metadata: { skill: skill.name, dir: skill.dir } };
      }
    }
    return {
      content: `Skill: ${skill.name}${skill.displayName ? ` (${skill.displayName})` : ""}\nFolder: ${skill.dir} (relative paths below are relative to it; read bundled files with Read)\n\n${body}`,
      metadata: { skill: skill.name, dir: skill.dir },
    };
  }
}
