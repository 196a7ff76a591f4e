/** A loaded skill. */
export interface Skill {
  /** The identifier the Skill tool is called with: the frontmatter's `name`, else the folder's name; derived from a display name (see `displayName`). */
  name: string;
  /** A frontmatter `name` written for people ("Systematic Debugging"): shown next to `name`, which is then the folder's name or derived from it. */
  displayName?: string;
  description: string;
  /** The instructions: SKILL.md after its frontmatter. */
  body: string;
  /** The skill's folder: bundled files are relative to it. */
  dir: string;
  /** Where it was found: a folder of skills, or the skill folder itself. Becomes a permitted root. */
  root: string;
  /** `user`, `project`, `local`, or `skills` (the option). */
  source: "user" | "project" | "local" | "skills";
  /** Every frontmatter key, kept for inspection; nothing acts on the ones beyond name and description. */
  frontmatter: Readonly<Record<string, unknown>>;
}
