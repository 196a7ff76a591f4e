/**
 * Slash commands through `summon()`: command files (ours, and Claude Code's under `compat`),
 * arguments, `!` shell lines judged as Bash calls (a refused one fails the command and never
 * runs: marker files), `@file` includes through Read, namespacing, skills as `/name`, trust,
 * and `supportedCommands()`.
 */
import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel, type ScriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import commandsPlugin from "ubiquity/plugins/commands";
import { digestsOf, findFilesToPin, TrustPins } from "../../loader/index";
import { toolRules } from "../../plugins/_kits/sources/index";

const temp = tempDirs();
const home = tempHome();

/** The text of the last user message the model received. */
function lastUserText(model: ScriptedModel): string {
  const prompt = model.requests.at(-1)!.prompt;
  const user = prompt.filter((m) => m.role === "user").at(-1)!;
  return (user.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("\n");
}

async function run(prompt: string, cwd: string, options: Options = {}) {
  const model = scriptedModel(["done"]);
  const messages = await collect(summon(prompt, { model, cwd, sandbox: false, persistSession: false, ...options }));
  return { model, messages, result: resultOf(messages) };
}

const project = (files: Record<string, string>) => {
  const cwd = realpathSync(temp("ubq-commands-"));
  writeTree(cwd, files);
  return cwd;
};

describe("command files", () => {
  it("expand $ARGUMENTS and $1…$9; subfolders are namespaced with ':'; frontmatter is listed by supportedCommands()", async () => {
    const cwd = project({
      ".ubiquity/commands/frontend/component.md":
        "---\ndescription: Make a component\nargument-hint: <name> [size]\nmodel: haiku\nallowed-tools: Bash(git add:*), Bash(git status:*)\n---\nCreate the component $1 at size $2 (all: $ARGUMENTS).\n",
      ".ubiquity/commands/plain.md": "# Say what is here\nDescribe the repository.\n",
    });
    const { model, result } = await run('/frontend:component Button "very big"', cwd, { commandSources: ["project"] });
    expect(result.isError).toBe(false);
    expect(lastUserText(model)).toContain('Create the component Button at size very big (all: Button "very big").');

    const plain = await run("/plain now please", cwd, { commandSources: ["project"] });
    // A body that uses no argument gets them appended, as Claude Code does.
    expect(lastUserText(plain.model)).toBe("# Say what is here\nDescribe the repository.\n\nARGUMENTS: now please");

    const query = summon("hello", {
      model: scriptedModel(["done"]),
      cwd,
      sandbox: false,
      persistSession: false,
      commandSources: ["project"],
    });
    const listed = await query.supportedCommands();
    await collect(query);
    expect(listed).toEqual([
      { name: "frontend:component", description: "Make a component", argumentHint: "<name> [size]" },
      { name: "plain", description: "Say what is here", argumentHint: "" },
    ]);
  });

  it("read nothing unless asked; an unknown /name reaches the model unchanged", async () => {
    const cwd = project({ ".ubiquity/commands/review.md": "Review it carefully.\n" });
    const { model } = await run("/review", cwd);
    expect(lastUserText(model)).toBe("/review");
    const other = await run("/nonesuch x", cwd, { commandSources: ["project"] });
    expect(lastUserText(other.model)).toBe("/nonesuch x");
  });

  it("user-level folders: ~/.ubiquity/commands, and ~/.claude/commands under compat; project wins a name", async () => {
    writeTree(home(), {
      ".ubiquity/commands/mine.md": "From my home.\n",
      ".claude/commands/theirs.md": "---\ndescription: Claude's\n---\nFrom Claude's home: $ARGUMENTS\n",
      ".claude/commands/shared.md": "user shared\n",
    });
    const cwd = project({ ".claude/commands/shared.md": "project shared\n" });
    expect(lastUserText((await run("/mine", cwd, { commandSources: ["user"] })).model)).toBe("From my home.");
    expect(lastUserText((await run("/theirs", cwd, { commandSources: ["user"] })).model)).toBe("/theirs");
    expect(lastUserText((await run("/theirs x y", cwd, { compat: ["claude"] })).model)).toBe("From Claude's home: x y");
    expect(lastUserText((await run("/shared", cwd, { compat: ["claude"] })).model)).toBe("project shared");
  });

  it("a project's command files are not read in an untrusted folder (user ones still are)", async () => {
    writeTree(home(), { ".ubiquity/commands/mine.md": "From my home.\n" });
    const marker = join(temp("ubq-marker-"), "ran");
    const cwd = project({
      ".ubiquity/commands/evil.md": `!\`touch ${marker}\`\nDo it.\n`,
      ".claude/commands/evil2.md": `!\`touch ${marker}\`\nDo it.\n`,
    });
    const untrusted: Options = {
      trust: false,
      commandSources: ["user", "project"],
      compat: ["claude"],
      permissionMode: "bypassPermissions",
    };
    expect(lastUserText((await run("/evil", cwd, untrusted)).model)).toBe("/evil");
    expect(lastUserText((await run("/evil2", cwd, untrusted)).model)).toBe("/evil2");
    expect(lastUserText((await run("/mine", cwd, untrusted)).model)).toBe("From my home.");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("command files under approved digests (TrustPins)", () => {
  it("trusting a folder approves its command folders; a command added or changed since is not read", async () => {
    const cwd = project({
      ".ubiquity/commands/ok.md": "Approved body.\n",
      ".claude/commands/theirs.md": "Their approved body.\n",
    });
    const plugins = [commandsPlugin()];
    const pinned = findFilesToPin(cwd, home(), plugins).map((f) => f.path);
    expect(pinned).toEqual(
      expect.arrayContaining([join(cwd, ".ubiquity", "commands"), join(cwd, ".claude", "commands")]),
    );
    const approved = new TrustPins(digestsOf(findFilesToPin(cwd, home(), plugins)), home());
    const options: Options = { commandSources: ["project"], compat: ["claude"], trust: approved };
    expect(lastUserText((await run("/ok", cwd, options)).model)).toBe("Approved body.");
    expect(lastUserText((await run("/theirs", cwd, options)).model)).toBe("Their approved body.");

    const marker = join(cwd, "planted-marker");
    writeTree(cwd, { ".ubiquity/commands/planted.md": `!\`touch ${marker}\`\n` });
    const after = await run("/planted", cwd, { ...options, permissionMode: "bypassPermissions" });
    expect(lastUserText(after.model)).toBe("/planted");
    expect(lastUserText((await run("/ok", cwd, options)).model)).toBe("/ok"); // its folder changed: none of it is read
    expect(lastUserText((await run("/theirs", cwd, options)).model)).toBe("Their approved body."); // the other folder is unchanged
    expect(existsSync(marker)).toBe(false);
  });
});

describe("! shell lines", () => {
  it("run as Bash calls the rules allow; their output takes their place and the calls are in the stream", async () => {
    const cwd = project({ ".ubiquity/commands/status.md": "Branch state:\n!`echo state-of-$1`\nSummarize it.\n" });
    const { model, messages, result } = await run("/status main", cwd, {
      commandSources: ["project"],
      allowedTools: ["Bash(echo:*)"],
    });
    expect(result.isError).toBe(false);
    expect(lastUserText(model)).toMatch(/^Branch state:\nstate-of-main\n*\nSummarize it\.$/);
    expect(ofType(messages, "tool_use").map((m) => [m.toolName, (m.toolInput as { command: string }).command])).toEqual(
      [["Bash", "echo state-of-main"]],
    );
  });

  it("a fenced block opened with ```! runs as one command; `!` after another character is text (Claude Code's skills docs)", async () => {
    const cwd = project({
      ".ubiquity/commands/env.md":
        "## Environment\n\n```!\necho first-$1\necho second\n```\n\nKEY=!`touch inline-marker` stays text; so does a!`touch b-marker`.\n- now: !`echo spaced`\n",
    });
    const { model, messages, result } = await run("/env one", cwd, {
      commandSources: ["project"],
      allowedTools: ["Bash(echo:*)", "Bash(touch:*)"],
    });
    expect(result.isError).toBe(false);
    expect(lastUserText(model)).toMatch(
      /^## Environment\n\nfirst-one\nsecond\n*\n\nKEY=!`touch inline-marker` stays text; so does a!`touch b-marker`\.\n- now: spaced\n*$/,
    );
    expect(ofType(messages, "tool_use").map((m) => (m.toolInput as { command: string }).command)).toEqual([
      "echo first-one\necho second",
      "echo spaced",
    ]);
    expect(existsSync(join(cwd, "inline-marker"))).toBe(false);
    expect(existsSync(join(cwd, "b-marker"))).toBe(false);
  });

  it("a refused line fails the command with a clear message, never runs, and the model is not called", async () => {
    const cwd = project({});
    const marker = join(cwd, "ran");
    writeTree(cwd, { ".ubiquity/commands/deploy.md": `Deploying.\n!\`touch ${marker}\`\n` });
    for (const options of [
      { disallowedTools: ["Bash(touch:*)"] },
      {} /* default mode: it asks, nothing answers */,
    ] satisfies Options[]) {
      const { model, result } = await run("/deploy", cwd, { commandSources: ["project"], ...options });
      expect(result.isError).toBe(true);
      expect(result.result).toContain(`/deploy: the shell line \`touch ${marker}\` was not run`);
      expect(model.requests).toHaveLength(0);
      expect(existsSync(marker)).toBe(false);
    }
    // The same line runs when allowed: the marker proves the refusal above was the rules'.
    const allowed = await run("/deploy", cwd, { commandSources: ["project"], allowedTools: ["Bash(touch:*)"] });
    expect(allowed.result.isError).toBe(false);
    expect(existsSync(marker)).toBe(true);
  });

  it("allowed-tools grants the command's own lines and the model's calls of that prompt; deny rules still win", async () => {
    const cwd = project({});
    writeTree(cwd, {
      ".ubiquity/commands/mark.md": `---\nallowed-tools: Bash(touch:*)\n---\n!\`touch ${join(cwd, "line-marker")}\`\nNow mark more.\n`,
    });
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `touch ${join(cwd, "model-marker")}` } }] },
      "done",
    ]);
    const granted = resultOf(
      await collect(
        summon("/mark", { model, cwd, sandbox: false, persistSession: false, commandSources: ["project"] }),
      ),
    );
    expect(granted.isError).toBe(false);
    expect(existsSync(join(cwd, "line-marker"))).toBe(true);
    expect(existsSync(join(cwd, "model-marker"))).toBe(true);

    // Without the command, the same call of the model asks, and headless that is a denial.
    const plain = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `touch ${join(cwd, "plain-marker")}` } }] },
      "done",
    ]);
    const denied = resultOf(
      await collect(
        summon("mark it", { model: plain, cwd, sandbox: false, persistSession: false, commandSources: ["project"] }),
      ),
    );
    expect(denied.permissionDenials).toHaveLength(1);
    expect(existsSync(join(cwd, "plain-marker"))).toBe(false);

    const { rmSync } = await import("node:fs");
    rmSync(join(cwd, "line-marker"));
    const { result } = await run("/mark", cwd, { commandSources: ["project"], disallowedTools: ["Bash(touch:*)"] });
    expect(result.isError).toBe(true);
    expect(existsSync(join(cwd, "line-marker"))).toBe(false);
  });

  it("allowed-tools written space-separated, as Claude Code's skills write it, grants each rule", async () => {
    const cwd = project({});
    writeTree(cwd, {
      ".ubiquity/commands/mark2.md": `---\nallowed-tools: Read Grep Bash(touch *)\n---\nNow mark.\n`,
    });
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `touch ${join(cwd, "spaced-marker")}` } }] },
      "done",
    ]);
    const granted = resultOf(
      await collect(
        summon("/mark2", { model, cwd, sandbox: false, persistSession: false, commandSources: ["project"] }),
      ),
    );
    expect(granted.permissionDenials).toEqual([]);
    expect(existsSync(join(cwd, "spaced-marker"))).toBe(true);
    // A space before the parenthesis separates nothing: never a bare `Bash`.
    expect(toolRules("Bash (git:*)")).toEqual(["Bash (git:*)"]);
    expect(toolRules("Read, Write  Bash(npm run *) mcp__linear__create_issue")).toEqual([
      "Read",
      "Write",
      "Bash(npm run *)",
      "mcp__linear__create_issue",
    ]);
  });

  it("a malformed allowed-tools entry pre-approves nothing, named with its file; the command runs (as in Claude Code)", async () => {
    const cwd = project({ ".ubiquity/commands/bad.md": "---\nallowed-tools: Bash(unclosed\n---\nSay hi.\n" });
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) };
    const { result, model } = await run("/bad", cwd, { commandSources: ["project"], logger });
    expect(result.isError, result.result).toBe(false);
    expect(lastUserText(model)).toContain("Say hi.");
    expect(warnings.join("\n")).toMatch(/\/bad \(.*bad\.md\) allowed-tools: "Bash\(unclosed" pre-approves nothing/);
  });

  it("allowed-tools: * loads the command and pre-approves nothing (fail closed); its other entries apply", async () => {
    const cwd = project({});
    writeTree(cwd, {
      ".ubiquity/commands/star.md": "---\nallowed-tools: *\n---\nMark it.\n",
      ".ubiquity/commands/mixed.md": "---\nallowed-tools: *, Bash(touch:*)\n---\nMark it too.\n",
    });
    const touch = (name: string) =>
      scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: `touch ${join(cwd, name)}` } }] }, "done"]);
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) };
    const base: Options = { cwd, sandbox: false, persistSession: false, commandSources: ["project"], logger };

    const star = touch("star-marker");
    const starred = resultOf(await collect(summon("/star", { ...base, model: star })));
    expect(lastUserText(star)).toContain("Mark it.");
    // Every call is judged by the rules: headless, the ask is a denial.
    expect(starred.permissionDenials).toHaveLength(1);
    expect(existsSync(join(cwd, "star-marker"))).toBe(false);
    expect(warnings.join("\n")).toContain('"*" pre-approves nothing');
    expect(warnings.join("\n")).toContain("star.md");

    const mixed = touch("mixed-marker");
    const granted = resultOf(await collect(summon("/mixed", { ...base, model: mixed })));
    expect(lastUserText(mixed)).toContain("Mark it too.");
    expect(granted.permissionDenials).toHaveLength(0);
    expect(existsSync(join(cwd, "mixed-marker"))).toBe(true);
  });

  it("a PreToolUse hook that blocks the line fails the command (allowed by the rules, still never run)", async () => {
    const cwd = project({});
    const marker = join(cwd, "hooked-marker");
    writeTree(cwd, { ".ubiquity/commands/h.md": `!\`touch ${marker}\`\n` });
    const seen: string[] = [];
    const { result, model } = await run("/h", cwd, {
      commandSources: ["project"],
      allowedTools: ["Bash(touch:*)"],
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input) => (
                seen.push(String((input.toolInput as { command?: string }).command)),
                { decision: "block", reason: "no touching" }
              ),
            ],
          },
        ],
      },
    });
    expect(seen).toEqual([`touch ${marker}`]);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("was not run");
    expect(result.result).toContain("no touching");
    expect(model.requests).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });

  it("without a Bash tool the command fails rather than sending the line unexpanded", async () => {
    const cwd = project({ ".ubiquity/commands/s.md": "!`echo hi`\n" });
    const { result, model } = await run("/s", cwd, { commandSources: ["project"], disallowedTools: ["Bash"] });
    expect(result.isError).toBe(true);
    expect(result.result).toContain("has no Bash tool");
    expect(model.requests).toHaveLength(0);
  });
});

describe("@file includes", () => {
  it("bring an existing file in through Read; other @words stay as they are", async () => {
    const cwd = project({
      "src/a.ts": "export const answer = 42;\n",
      ".ubiquity/commands/review.md": "Review @src/a.ts and @$1, ping @nobody.\n",
    });
    const { model, result } = await run("/review src/a.ts", cwd, { commandSources: ["project"] });
    expect(result.isError).toBe(false);
    const text = lastUserText(model);
    expect(text).toContain("Contents of src/a.ts (included by /review):");
    expect(text).toContain("export const answer = 42;");
    expect(text).toContain("Review @src/a.ts and @src/a.ts, ping @nobody.");
  });

  it("a file Read refuses fails the command", async () => {
    const outside = join(temp("ubq-outside-"), "secret.txt");
    const cwd = project({ ".ubiquity/commands/leak.md": `Look at @${outside}\n` });
    writeTree(join(outside, ".."), { "secret.txt": "TOP SECRET" });
    const { model, result } = await run("/leak", cwd, { commandSources: ["project"] });
    expect(result.isError).toBe(true);
    expect(result.result).toContain(`/leak: @${outside} was not read`);
    expect(model.requests).toHaveLength(0);
  });
});

describe("frontmatter model", () => {
  it("the command's prompt goes to its model; the next prompt to the session's again", async () => {
    const cwd = project({ ".ubiquity/commands/offline.md": "---\nmodel: test\n---\nHello there.\n" });
    const { model, result } = await run("/offline", cwd, { commandSources: ["project"] });
    expect(result.isError).toBe(false);
    // The offline `test` model answered: the session's scripted model was never called.
    expect(model.requests).toHaveLength(0);
    const bad = project({ ".ubiquity/commands/nowhere.md": "---\nmodel: nosuchprovider:x\n---\nHi.\n" });
    const failed = await run("/nowhere", bad, { commandSources: ["project"] });
    expect(failed.result.isError).toBe(true);
    expect(failed.result.result).toContain('/nowhere: its model "nosuchprovider:x" could not be used');
  });
});

describe("skills as /name", () => {
  it("a skill runs as a command: its body with its folder and the arguments", async () => {
    const cwd = project({
      ".ubiquity/skills/release/SKILL.md":
        "---\ndescription: Cut a release\nargument-hint: <version>\n---\nBump to the version asked.\n",
    });
    const { model } = await run("/release 2.0.0", cwd, { skillSources: ["project"] });
    const text = lastUserText(model);
    expect(text).toContain(`Base directory for this skill: ${join(cwd, ".ubiquity", "skills", "release")}`);
    expect(text).toContain("Bump to the version asked.\n\nARGUMENTS: 2.0.0");
    const query = summon("hi", {
      model: scriptedModel(["done"]),
      cwd,
      sandbox: false,
      persistSession: false,
      skillSources: ["project"],
    });
    const listed = await query.supportedCommands();
    await collect(query);
    expect(listed).toEqual([{ name: "release", description: "Cut a release", argumentHint: "<version>" }]);
  });

  it("a command file of ubiquity's own folders wins a skill's name (Claude Code's folders give it to the skill)", async () => {
    const cwd = project({
      ".ubiquity/skills/release/SKILL.md": "---\ndescription: Cut a release\n---\nThe skill's steps.\n",
      ".ubiquity/commands/release.md": "---\ndescription: Cut a release\n---\nThe command's steps.\n",
    });
    const { model } = await run("/release", cwd, { skillSources: ["project"], commandSources: ["project"] });
    expect(lastUserText(model)).toContain("The command's steps.");
    expect(lastUserText(model)).not.toContain("The skill's steps.");
  });
});

describe("sessions", () => {
  it("a resumed session replays the expanded command, not the /name typed", async () => {
    const cwd = project({ ".ubiquity/commands/s.md": "State: !`echo hi-there`\n" });
    const sessionDir = join(cwd, "sessions");
    const first = resultOf(
      await collect(
        summon("/s", {
          model: scriptedModel(["ok"]),
          cwd,
          sandbox: false,
          sessionDir,
          commandSources: ["project"],
          allowedTools: ["Bash(echo:*)"],
        }),
      ),
    );
    expect(first.isError).toBe(false);
    const model = scriptedModel(["again"]);
    const second = resultOf(
      await collect(summon("more", { model, cwd, sandbox: false, sessionDir, resume: first.sessionId })),
    );
    expect(second.isError, second.result).toBe(false);
    const users = model.requests[0]!.prompt.filter((m) => m.role === "user").map((m) =>
      (m.content as { text?: string }[]).map((p) => p.text).join(""),
    );
    expect(users).toEqual(["State: hi-there", "more"]);
  });
});

describe("UserPromptExpansion hooks (Claude Code's event when a slash command expands)", () => {
  const files = {
    ".ubiquity/commands/deploy.md": "---\ndescription: Deploy\n---\nDeploy $ARGUMENTS now.\n",
    ".ubiquity/commands/other.md": "---\ndescription: Other\n---\nDo the other thing.\n",
  };
  // Records its input, then answers with context (or blocks with exit 2 when the args say "friday").
  const hook = (log: string) => ({
    type: "command" as const,
    command: `cat > ${JSON.stringify(log)}; if grep -q friday ${JSON.stringify(log)}; then echo "no deploys on Fridays" >&2; exit 2; fi; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":"DEPLOY-CONTEXT"}}'`,
  });

  it("fire for the command their matcher names, with the expansion, and add their context", async () => {
    const cwd = project(files);
    const log = join(cwd, "expansion.json");
    const hooks = { UserPromptExpansion: [{ matcher: "^deploy$", hooks: [hook(log)] }] };
    const { model, result } = await run("/deploy web", cwd, { commandSources: ["project"], hooks });
    expect(result.isError, result.result).toBe(false);
    const input = JSON.parse(readFileSync(log, "utf8")) as Record<string, unknown>;
    expect(input).toMatchObject({
      hook_event_name: "UserPromptExpansion",
      expansion_type: "slash_command",
      command_name: "deploy",
      command_args: "web",
      command_source: "project",
      prompt: "Deploy web now.",
    });
    expect(JSON.stringify(model.requests[0]!.prompt)).toContain("DEPLOY-CONTEXT");
    // Another command does not match: the hook does not run.
    rmSync(log);
    const other = await run("/other", cwd, { commandSources: ["project"], hooks });
    expect(existsSync(log)).toBe(false);
    expect(JSON.stringify(other.model.requests[0]!.prompt)).not.toContain("DEPLOY-CONTEXT");
  });

  it("a hook that exits 2 blocks the command before the model sees it, saying why", async () => {
    const cwd = project(files);
    const hooks = { UserPromptExpansion: [{ matcher: "deploy", hooks: [hook(join(cwd, "expansion.json"))] }] };
    const { model, result } = await run("/deploy friday", cwd, { commandSources: ["project"], hooks });
    expect(result.isError).toBe(true);
    expect(result.result).toContain("/deploy: no deploys on Fridays");
    expect(model.requests).toHaveLength(0);
  });
});
