import { describe, expect, it } from "vitest";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { loadMemory, MAX_MEMORY_CHARS, type MemoryFile } from "../../plugins/memory/index";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";

const temp = tempDirs();
const home = tempHome();

/** A repo with the cwd one folder down, so the walk has two levels of our own. */
function repo(files: Record<string, string>) {
  const root = realpathSync(temp("ubq-repo-"));
  mkdirSync(join(root, "app"), { recursive: true });
  writeTree(root, files);
  return { root, cwd: join(root, "app") };
}

async function load(options: { memorySources?: string[]; memory?: string[] }, cwd: string) {
  const problems: string[] = [];
  const files = await loadMemory(options, { cwd, home: home() }, (m) => problems.push(m));
  // The walk starts at the filesystem root; keep only what this test wrote.
  const ours = files.filter((f) => f.path.startsWith(cwd.slice(0, cwd.lastIndexOf("/"))) || f.path.startsWith(home()));
  return { files: ours, problems };
}

const shape = (files: MemoryFile[], base: string) =>
  files.map((f) => [
    f.path.replace(base, "<repo>").replace(home(), "~"),
    f.source,
    f.includedBy?.replace(base, "<repo>").replace(home(), "~"),
  ]);

describe("memory files", () => {
  it("are read only when asked for", async () => {
    const { cwd } = repo({ "app/UBIQUITY.md": "rules" });
    expect((await load({}, cwd)).files).toEqual([]);
  });

  it("come weakest first: user, project root → cwd, local, then the memory option; a file reached twice keeps its first position", async () => {
    const { root, cwd } = repo({
      "UBIQUITY.md": "repo rules",
      ".ubiquity/UBIQUITY.md": "repo dot rules",
      "UBIQUITY.local.md": "repo local",
      "app/UBIQUITY.md": "app rules",
      "app/UBIQUITY.local.md": "app local",
      "app/docs/conventions.md": "conventions",
    });
    writeTree(home(), { ".ubiquity/UBIQUITY.md": "user rules" });
    const { files, problems } = await load(
      {
        memorySources: ["local", "project", "user"],
        memory: ["./docs/conventions.md", "../UBIQUITY.md", "missing.md"],
      },
      cwd,
    );
    expect(shape(files, root)).toEqual([
      ["~/.ubiquity/UBIQUITY.md", "user", undefined],
      ["<repo>/UBIQUITY.md", "project", undefined],
      ["<repo>/.ubiquity/UBIQUITY.md", "project", undefined],
      ["<repo>/app/UBIQUITY.md", "project", undefined],
      ["<repo>/UBIQUITY.local.md", "local", undefined],
      ["<repo>/app/UBIQUITY.local.md", "local", undefined],
      ["<repo>/app/docs/conventions.md", "memory", undefined],
    ]);
    expect(files.map((f) => f.content)).toContain("user rules");
    expect(problems).toEqual([expect.stringMatching(/^memory: missing\.md \(.*\) does not exist/)]);
  });

  it("puts an include right after its includer, relative to the includer's folder; each file once, so a cycle ends", async () => {
    const { root, cwd } = repo({
      "app/UBIQUITY.md": "Read @docs/style.md, then @docs/release.md.",
      "app/docs/style.md": "Style. See @nested/deep.md and back to @../UBIQUITY.md",
      "app/docs/nested/deep.md": "Deep. Also @../style.md again.",
      "app/docs/release.md": "Release steps.",
    });
    const { files, problems } = await load({ memorySources: ["project"] }, cwd);
    expect(shape(files, root)).toEqual([
      ["<repo>/app/UBIQUITY.md", "project", undefined],
      ["<repo>/app/docs/style.md", "project", "<repo>/app/UBIQUITY.md"],
      ["<repo>/app/docs/nested/deep.md", "project", "<repo>/app/docs/style.md"],
      ["<repo>/app/docs/release.md", "project", "<repo>/app/UBIQUITY.md"],
    ]);
    expect(problems).toEqual([]);
  });

  it("goes five levels deep and no further", async () => {
    const chain: Record<string, string> = { "app/UBIQUITY.md": "level 0 @l1.md" };
    for (let i = 1; i <= 7; i++) chain[`app/l${i}.md`] = `level ${i} @l${i + 1}.md`;
    const { files, problems } = await load({ memorySources: ["project"] }, repo(chain).cwd);
    expect(files.map((f) => f.content.split(" @")[0])).toEqual([
      "level 0",
      "level 1",
      "level 2",
      "level 3",
      "level 4",
      "level 5",
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/did not include @l6\.md from .*l5\.md: includes go at most 5 levels deep/),
    ]);
  });

  it("lets only a user file reach the home folder; a project file includes only from under the cwd (symlinks resolved)", async () => {
    writeTree(home(), {
      "secret.md": "HOME SECRET",
      "notes/personal.md": "personal notes",
      ".ubiquity/UBIQUITY.md": "user: @~/notes/personal.md",
    });
    const { root, cwd } = repo({
      "outside.md": "OUTSIDE THE CWD",
      "app/UBIQUITY.md": `project: @~/secret.md and @../outside.md and @link.md and @${join(home(), "secret.md")}`,
    });
    symlinkSync(join(home(), "secret.md"), join(cwd, "link.md"));
    const { files, problems } = await load({ memorySources: ["user", "project"] }, cwd);
    expect(shape(files, root)).toEqual([
      ["~/.ubiquity/UBIQUITY.md", "user", undefined],
      ["~/notes/personal.md", "user", "~/.ubiquity/UBIQUITY.md"],
      ["<repo>/app/UBIQUITY.md", "project", undefined],
    ]);
    expect(files.map((f) => f.content).join()).not.toContain("SECRET");
    expect(problems).toHaveLength(4);
    for (const p of problems) expect(p).toMatch(/a project file may include only from under the working directory/);
    // Claude Code's documented `@~/….md` import of one's own instructions is told what to do instead;
    // a link or an absolute path that leads home is not (it is no import of one's own).
    expect(problems.filter((p) => p.includes("memory option"))).toEqual([
      expect.stringContaining(
        `did not include @~/secret.md from ${join(cwd, "UBIQUITY.md")}: a project file may include only from under the working directory; Claude Code reads such an import, ubiquity does not let a project's file reach your home folder: name ${join(home(), "secret.md")} in the config's memory option`,
      ),
    ]);
  });

  it("includes only text extensions", async () => {
    const { cwd } = repo({
      "app/UBIQUITY.md": "@run.sh @data.bin @notes.txt @conf.yaml @param",
      "app/run.sh": "echo hi",
      "app/data.bin": "x",
      "app/notes.txt": "notes",
      "app/conf.yaml": "a: 1",
    });
    const { files } = await load({ memorySources: ["project"] }, cwd);
    expect(files.map((f) => f.path.split("/").pop())).toEqual(["UBIQUITY.md", "notes.txt", "conf.yaml"]);
  });

  it("cuts a file over 40,000 characters with a marker naming it (includes past the cut are not read)", async () => {
    const big = `${"x".repeat(MAX_MEMORY_CHARS + 50)} @late.md`;
    const { cwd } = repo({ "app/UBIQUITY.md": big, "app/late.md": "late" });
    const { files } = await load({ memorySources: ["project"] }, cwd);
    expect(files).toHaveLength(1);
    expect(files[0]!.cut).toBe(true);
    expect(files[0]!.content.startsWith(`${"x".repeat(MAX_MEMORY_CHARS)}\n\n[… `)).toBe(true);
    expect(files[0]!.content).toContain(
      `${join(cwd, "UBIQUITY.md")} was cut here: it is 40,059 bytes long and only the first 40,000 characters are included`,
    );
  });
});
