/** Each rule form, through decidePermission(). */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineTool } from "ubiquity/plugin";
import { decidePermission } from "ubiquity/plugins/permissions";
import { z } from "zod";
import { tempDir } from "./helpers";

/** A folder whose repository configuration names the remote `origin` (git takes any other name for a path). */
function withOrigin(): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".git"));
  writeFileSync(join(cwd, ".git", "config"), '[remote "origin"]\n\turl = https://example.invalid/x/y\n');
  return cwd;
}

const bash = async (command: string, allow: string[]) =>
  (await decidePermission({ toolName: "Bash", input: { command }, rules: { allow }, cwd: withOrigin() })).behavior;

describe("command rules", () => {
  it("prefix `git:*`: git itself and anything after a word boundary — not gitk", async () => {
    expect(await bash("git", ["Bash(git:*)"])).toBe("allow");
    expect(await bash("git log --oneline", ["Bash(git:*)"])).toBe("allow");
    expect(await bash("gitk", ["Bash(git:*)"])).toBe("ask");
    expect(await bash("git-lfs pull", ["Bash(git:*)"])).toBe("ask");
    expect(await bash("git push origin", ["Bash(git push:*)"])).toBe("allow");
    expect(await bash("git pushy", ["Bash(git push:*)"])).toBe("ask");
  });

  it("wildcard: `*` is any run of characters, one trailing ` *` is optional, `\\*` is a literal star", async () => {
    expect(await bash("git push", ["Bash(git push *)"])).toBe("allow");
    expect(await bash("git push origin main", ["Bash(git push *)"])).toBe("allow");
    expect(await bash("git pushx", ["Bash(git push *)"])).toBe("ask");
    expect(await bash("npm run test:unit", ["Bash(npm run test*)"])).toBe("allow");
    expect(await bash("docker run --rm img", ["Bash(docker * img)"])).toBe("allow");
    expect(await bash("docker run --rm other", ["Bash(docker * img)"])).toBe("ask");
    expect(await bash("echo '*'", ["Bash(echo \\*)"])).toBe("allow");
    expect(await bash("echo hi", ["Bash(echo \\*)"])).toBe("ask");
  });

  it("a trailing ` *` is optional only when it is the rule's one wildcard: `git *` matches `git`, `* run *` does not match `npm run`", async () => {
    expect(await bash("git", ["Bash(git *)"])).toBe("allow");
    expect(await bash("npm run", ["Bash(* run *)"])).toBe("ask");
    // (npm run build would ask anyway: a project script needs a rule naming more than the program.)
    // docker has no spec, so only a rule that names it covers it (a leading `*` names no program).
    expect(await bash("docker run img", ["Bash(* run *)"])).toBe("ask");
    expect(await bash("docker run img", ["Bash(docker run *)"])).toBe("allow");
    expect(await bash("docker run", ["Bash(* run *)"])).toBe("ask");
    expect(await bash("docker run", ["Bash(docker * *)"])).toBe("ask");
  });

  it("exact otherwise, with quoting and spacing normalised on both sides", async () => {
    expect(await bash("npm test", ["Bash(npm test)"])).toBe("allow");
    expect(await bash("npm  test", ["Bash(npm test)"])).toBe("allow");
    expect(await bash("npm test --watch", ["Bash(npm test)"])).toBe("ask");
    expect(await bash('git commit -m "fix it"', ["Bash(git commit -m 'fix it')"])).toBe("allow");
    expect(await bash("git commit -m 'fix it'", ['Bash(git commit -m "fix it")'])).toBe("allow");
  });

  it("content rules must cover every command; a bare rule covers the tool", async () => {
    expect(await bash("npm test && git status", ["Bash(npm test)", "Bash(git:*)"])).toBe("allow");
    expect(await bash("npm test && git status", ["Bash(npm test)"])).toBe("ask");
    expect(await bash("npm test && git status", ["Bash"])).toBe("allow");
    // …but never a command that cannot be proven safe
    expect(await bash("curl x | sh", ["Bash"])).toBe("ask");
  });

  it("deny and ask fire on any one command, also under its plain program name", async () => {
    const d = (command: string, deny: string[]) =>
      decidePermission({ toolName: "Bash", input: { command }, rules: { allow: ["Bash"], deny }, cwd: tempDir() });
    expect(await d("ls; /usr/bin/curl evil", ["Bash(curl:*)"])).toMatchObject({
      behavior: "deny",
      rule: "Bash(curl:*)",
    });
    expect(await d("ls && git push -f", ["Bash(git push -f)"])).toMatchObject({ behavior: "deny" });
    const a = await decidePermission({
      toolName: "Bash",
      input: { command: "ls | git push" },
      rules: { allow: ["Bash"], ask: ["Bash(git push *)"] },
      cwd: tempDir(),
    });
    expect(a).toMatchObject({ behavior: "ask", rule: "Bash(git push *)" });
  });

  it("a content rule for a tool that declares no rule content asks, and says how the tool would declare it", async () => {
    const tool = defineTool({
      name: "Weather",
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => city,
    });
    const decision = await decidePermission({
      toolName: "Weather",
      tool,
      input: { city: "Paris" },
      rules: { allow: ["Weather(Paris)"] },
      cwd: tempDir(),
    });
    expect(decision).toMatchObject({ behavior: "ask" });
    expect(JSON.stringify(decision)).toMatch(
      /declares no rule content .*permissionRuleContent.*a rule naming the tool alone covers it/,
    );
  });

  it("other tools: content rules match what permissionRuleContent declares; MCP names by server", async () => {
    const mcp = (toolName: string, rules: { allow?: string[]; deny?: string[] }) =>
      decidePermission({ toolName, input: {}, rules, cwd: tempDir() });
    expect(await mcp("mcp__db__query", { allow: ["mcp__db__*"] })).toMatchObject({ behavior: "allow" });
    expect(await mcp("mcp__db__query", { allow: ["mcp__db"] })).toMatchObject({ behavior: "allow" });
    expect(await mcp("mcp__db__drop", { allow: ["mcp__db__query"] })).toMatchObject({ behavior: "ask" });
    expect(await mcp("mcp__db__drop", { allow: ["mcp__db__*"], deny: ["mcp__db__drop"] })).toMatchObject({
      behavior: "deny",
    });
  });
});

describe("path rules (Read/Write/Edit/Glob/Grep)", () => {
  const setup = () => {
    const cwd = tempDir();
    const home = tempDir();
    mkdirSync(join(cwd, "src/deep/er"), { recursive: true });
    mkdirSync(join(cwd, "build"));
    writeFileSync(join(cwd, "src/deep/er/.env"), "");
    return { cwd, home };
  };
  const edit = async (file_path: string, allow: string[], where = setup()) =>
    (
      await decidePermission({
        toolName: "Edit",
        input: { file_path, old_string: "a", new_string: "b" },
        rules: { allow },
        cwd: where.cwd,
        home: where.home,
        additionalDirectories: [where.home],
      })
    ).behavior;

  it("a name without a slash matches at any depth", async () => {
    expect(await edit("src/deep/er/notes.md", ["Edit(notes.md)"])).toBe("allow");
    expect(await edit("src/deep/er/notes.md", ["Edit(*.md)"])).toBe("allow");
    expect(await edit("src/deep/er/notes.txt", ["Edit(*.md)"])).toBe("ask");
  });

  it("./x and a/b are relative to the cwd; a folder covers what is inside it", async () => {
    expect(await edit("src/a.ts", ["Edit(./src)"])).toBe("allow");
    expect(await edit("src/deep/er/a.ts", ["Edit(src/)"])).toBe("allow");
    expect(await edit("src/deep/er/a.ts", ["Edit(src/*.ts)"])).toBe("ask");
    expect(await edit("src/deep/er/a.ts", ["Edit(src/**/*.ts)"])).toBe("allow");
    expect(await edit("other/src/a.ts", ["Edit(./src/**)"])).toBe("ask");
  });

  it("/x is absolute and ~/x is under the home folder", async () => {
    const where = setup();
    expect(await edit(join(where.cwd, "build/x.js"), [`Edit(${where.cwd}/build/**)`], where)).toBe("allow");
    expect(await edit("~/notes/today.md", ["Edit(~/notes/**)"], where)).toBe("allow");
    expect(await edit(join(where.home, "notes/today.md"), ["Edit(~/notes/**)"], where)).toBe("allow");
    expect(await edit("~/elsewhere/today.md", ["Edit(~/notes/**)"], where)).toBe("ask");
  });

  it("matches the resolved path and the path as written: a symlink can neither launder a denied name nor borrow an allowed one", async () => {
    const where = setup();
    symlinkSync("src/deep/er/.env", join(where.cwd, "innocent.txt"));
    symlinkSync(join(where.cwd, "build"), join(where.cwd, "src/build-link"));
    const read = (file_path: string, rules: { allow?: string[]; deny?: string[] }) =>
      decidePermission({ toolName: "Read", input: { file_path }, rules, cwd: where.cwd, home: where.home });
    expect(await read("innocent.txt", { deny: ["Read(.env)"] })).toMatchObject({ behavior: "deny" });
    expect(await edit("src/build-link/out.js", ["Edit(./src/**)"], where)).toBe("ask");
    expect(await edit("src/build-link/out.js", ["Edit(./src/**)", "Edit(./build/**)"], where)).toBe("allow");
  });
});
