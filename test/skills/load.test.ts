import { describe, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { loadSkills, clamp, skillListing, DESCRIPTION_LIMIT, LISTING_LIMIT } from "../../plugins/skills/index";
import type { Skill } from "ubiquity/plugins/skills";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";

const temp = tempDirs();
const home = tempHome();

const skillMd = (front: string, body = "Follow `checklist.md`.") => `---\n${front}\n---\n${body}\n`;

async function load(options: { skills?: string[]; skillSources?: string[] }, cwd: string) {
  const problems: string[] = [];
  const skills = await loadSkills(options, { cwd, home: home() }, (m) => problems.push(m));
  return { skills, problems, by: Object.fromEntries(skills.map((s) => [s.name, s])) };
}

describe("loading skills", () => {
  it("takes a folder of skills or a single skill folder; name defaults to the folder; other keys kept", async () => {
    const cwd = realpathSync(temp("ubq-skills-"));
    writeTree(cwd, {
      "skills/release/SKILL.md": skillMd("description: Cut a release\nallowed-tools: Bash"),
      "skills/release/checklist.md": "1. bump",
      "skills/lint/SKILL.md": skillMd("name: lint-fix\ndescription: Fix lint"),
      "skills/not-a-skill/README.md": "no SKILL.md here",
      "one/SKILL.md": skillMd("description: A single skill folder"),
    });
    const { skills, by, problems } = await load({ skills: ["./skills", "one"] }, cwd);
    expect(problems).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(["lint-fix", "one", "release"]);
    expect(by.release).toMatchObject({
      description: "Cut a release",
      body: "Follow `checklist.md`.",
      dir: join(cwd, "skills", "release"),
      root: join(cwd, "skills"),
      source: "skills",
    });
    expect(by.release!.frontmatter).toEqual({ description: "Cut a release", "allowed-tools": "Bash" });
    expect(by.one).toMatchObject({ dir: join(cwd, "one"), root: join(cwd, "one") });
  });

  it("reads user, project and local sources only when asked; later wins a name and explicit skills win last; ~ is the home folder", async () => {
    const cwd = realpathSync(temp("ubq-skills-"));
    writeTree(home(), {
      ".ubiquity/skills/shared/SKILL.md": skillMd("description: from user"),
      ".ubiquity/skills/user-only/SKILL.md": skillMd("description: user only"),
      "my-skills/release/SKILL.md": skillMd("name: shared\ndescription: explicit wins"),
    });
    writeTree(cwd, {
      ".ubiquity/skills/shared/SKILL.md": skillMd("description: from project"),
      ".ubiquity/skills.local/local-only/SKILL.md": skillMd("description: local only"),
    });
    expect((await load({}, cwd)).skills).toEqual([]);
    const sources = await load({ skillSources: ["project", "user", "local"] }, cwd);
    expect(Object.fromEntries(sources.skills.map((s) => [s.name, [s.source, s.description]]))).toEqual({
      "local-only": ["local", "local only"],
      shared: ["project", "from project"],
      "user-only": ["user", "user only"],
    });
    const all = await load({ skillSources: ["user", "project"], skills: ["~/my-skills/release"] }, cwd);
    expect(all.by.shared).toMatchObject({
      source: "skills",
      description: "explicit wins",
      dir: join(home(), "my-skills", "release"),
    });
  });

  it("skips a skill without a description (or with broken frontmatter) with a warning, and names a missing root", async () => {
    const cwd = realpathSync(temp("ubq-skills-"));
    writeTree(cwd, {
      "skills/good/SKILL.md": skillMd("description: fine"),
      "skills/bare/SKILL.md": "Just a body, no frontmatter.",
      "skills/broken/SKILL.md": "---\ndescription: [\n---\nbody",
    });
    const { skills, problems } = await load({ skills: ["skills", "nowhere"] }, cwd);
    expect(skills.map((s) => s.name)).toEqual(["good"]);
    expect(problems).toEqual([
      expect.stringMatching(/bare\/SKILL\.md: it has no description/),
      expect.stringMatching(/broken\/SKILL\.md: its frontmatter is not valid YAML/),
      expect.stringMatching(/^skills: nowhere \(.*\) is not a folder/),
    ]);
  });
});

describe("the skill listing", () => {
  const skill = (name: string, description: string): Skill => ({
    name,
    description,
    body: "",
    dir: "/s",
    root: "/s",
    source: "skills",
    frontmatter: {},
  });

  it("is sorted by name and clamps each description to 1,536 characters (Claude Code's limit)", () => {
    const long = "wordy ".repeat(400);
    const { text, degraded } = skillListing([skill("zeta", "last"), skill("alpha", long)]);
    expect(degraded).toBe(false);
    const lines = text.split("\n");
    expect(lines[1]).toBe("- zeta: last");
    expect(lines[0]!.startsWith("- alpha: wordy wordy")).toBe(true);
    expect(lines[0]!.length).toBe("- alpha: ".length + DESCRIPTION_LIMIT);
    expect(lines[0]!.endsWith("…")).toBe(true);
    expect(clamp("a\n  b")).toBe("a b");
  });

  it("degrades to names alone past 8,000 characters", () => {
    const many = Array.from({ length: 40 }, (_, i) => skill(`skill-${String(i).padStart(2, "0")}`, "x".repeat(240)));
    const full = skillListing(many.slice(0, 30));
    expect(full.degraded).toBe(false);
    expect(full.text.length).toBeLessThanOrEqual(LISTING_LIMIT);
    const names = skillListing([...many].reverse());
    expect(names.degraded).toBe(true);
    expect(names.text.split("\n")).toEqual(many.map((s) => `- ${s.name}`));
  });
});
