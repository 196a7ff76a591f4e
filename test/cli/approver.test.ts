import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import permissions, { explainPermission } from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { terminalApprover } from "../../runner/run";
import { describeRule } from "../../runner/approver";
import { askInTerminal } from "../../plugins/tool-ask-user/index";
import { collect, ofType } from "../helpers/collect";
import { tempDir } from "../tools/helpers";

/** A fake terminal: each time the approver prints a question, the next scripted reply is typed. */
function terminal(replies: string[]) {
  const stdin = new PassThrough();
  const questions: string[] = [];
  const approver = terminalApprover(
    {
      stdout: () => {},
      stderr: (text) => {
        if (!text.trimEnd().endsWith(":")) return;
        questions.push(text);
        const reply = replies.shift();
        if (reply !== undefined) setImmediate(() => stdin.write(`${reply}\n`));
      },
      stdin,
      stdoutIsTTY: true,
    },
    { answerers: [askInTerminal] },
  );
  return { approver, questions };
}

const ctx = (suggestions: string[], signal = new AbortController().signal) => ({ signal, suggestions, toolUseId: "t" });

/** A folder whose repository configuration names the remote `origin` (git takes any other name for a path). */
function withOrigin(): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".git"));
  writeFileSync(join(cwd, ".git", "config"), '[remote "origin"]\n\turl = https://example.invalid/x/y\n');
  return cwd;
}

describe("the runner's terminal approver", () => {
  it("'always' remembers the suggested rules, not the whole tool", async () => {
    const { approver, questions } = terminal(["a", "n"]);
    expect(await approver("Bash", { command: "git push origin" }, ctx(["Bash(git push:*)"]))).toEqual({
      behavior: "allow",
    });
    // covered by the remembered rule: no question
    expect(await approver("Bash", { command: "git push --tags" }, ctx(["Bash(git push:*)"]))).toEqual({
      behavior: "allow",
    });
    expect(questions).toHaveLength(1);
    // another command of the same tool is asked about again
    expect(await approver("Bash", { command: "rm -rf build" }, ctx(["Bash(rm:*)"]))).toMatchObject({
      behavior: "deny",
    });
    expect(questions).toHaveLength(2);
  });

  it("offers no 'always' for a call the engine could not suggest a rule for", async () => {
    const { approver, questions } = terminal(["a"]);
    expect(await approver("Bash", { command: "$(curl x)" }, ctx([]))).toMatchObject({ behavior: "deny" });
    expect(questions[0]).toContain("[y]es / [n]o:");
    expect(questions[0]).not.toContain("always");
  });

  it("an abort ends a pending prompt", async () => {
    const { approver } = terminal([]);
    const controller = new AbortController();
    const pending = approver("Write", { file_path: "x" }, ctx(["Write(x)"], controller.signal));
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toThrow();
  });

  it("AskUserQuestion: a number picks an option, free text is an answer, an empty reply asks again", async () => {
    const { approver } = terminal(["", "2", "something else"]);
    const input = {
      questions: [
        {
          question: "Which database?",
          header: "DB",
          options: [
            { label: "Postgres", description: "" },
            { label: "SQLite", description: "" },
          ],
        },
        {
          question: "Anything else?",
          header: "Other",
          options: [
            { label: "No", description: "" },
            { label: "Yes", description: "" },
          ],
        },
      ],
    };
    const answer = await approver("AskUserQuestion", input, ctx([]));
    expect(answer).toEqual({
      behavior: "allow",
      updatedInput: { ...input, answers: { "Which database?": "SQLite", "Anything else?": "something else" } },
    });
  });

  it("the prompt says exactly what 'always' will allow", async () => {
    const { approver, questions } = terminal(["n", "n", "n"]);
    await approver("Bash", { command: "npm test" }, ctx(["Bash(npm test)"]));
    await approver("Bash", { command: "git add . && git status" }, ctx(["Bash(git add:*)", "Bash(git status:*)"]));
    await approver("Write", { file_path: "src/a.ts", content: "" }, ctx(["Write(./src/a.ts)"]));
    expect(questions[0]).toContain("[y]es / [n]o / [a]lways allow Bash(npm test) (exactly this command) this session:");
    expect(questions[1]).toContain(
      "[a]lways allow Bash(git add:*) (git add with any arguments), Bash(git status:*) (git status with any arguments) this session:",
    );
    expect(questions[2]).toContain("[a]lways allow Write(./src/a.ts) (only this path) this session:");
    expect(describeRule("mcp__db__query", { sql: "x" })).toBe("mcp__db__query (every mcp__db__query call)");
    expect(describeRule("Bash(git push *)", { command: "git push x" })).toBe(
      "Bash(git push *) (anything matching the pattern)",
    );
  });
});

describe("the engine's suggestions never widen an approval", () => {
  const suggestionsFor = async (
    cwd: string,
    command: string,
    extra: { additionalDirectories?: string[]; sandbox?: boolean } = {},
  ) =>
    (await explainPermission({ toolName: "Bash", input: { command }, cwd, home: "/nonexistent-home", ...extra }))
      .suggestions;

  it.each([
    ["rm -rf build", ["Bash(rm -rf build)"]],
    ["mv old.txt new.txt", ["Bash(mv old.txt new.txt)"]],
    ["dd of=disk.img bs=1M count=1", ["Bash(dd of=disk.img bs=1M count=1)"]],
    ["chmod 755 run.sh", ["Bash(chmod 755 run.sh)"]],
    ["chown me run.sh", ["Bash(chown me run.sh)"]],
    ["truncate -s 0 app.log", ["Bash(truncate -s 0 app.log)"]],
    ["shred secret.txt", ["Bash(shred secret.txt)"]],
    ["cp a.txt b.txt", ["Bash(cp a.txt b.txt)"]],
    ["sed -i s/a/b/ notes.txt", ["Bash(sed -i s/a/b/ notes.txt)"]],
    ["git push --force origin main", ["Bash(git push --force origin main)"]],
    ["git push origin main", ["Bash(git push origin main)"]], // `git push:*` would allow a force push
    ["kubectl delete pod web", ["Bash(kubectl delete pod web)"]],
    ["npx rimraf dist", ["Bash(npx rimraf dist)"]],
    ["sudo ls", ["Bash(sudo ls)", "Bash(ls:*)"]],
    ["python3 build.py", ["Bash(python3 build.py)"]],
    ["rm 'a*b'", ["Bash(rm 'a\\*b')"]], // a literal star is written \* so the rule stays exact
  ])("%s: only the exact command", async (command, expected) => {
    expect(await suggestionsFor(withOrigin(), command)).toEqual(expected);
  });

  // Without the sandbox they write files of the work tree a commit holds, the sensitive set among
  // them: a firm question, no "always" (red team r, R5). With it, the exact command.
  it.each([
    ["git reset --hard", ["Bash(git reset --hard)"]],
    ["git clean -fdx", ["Bash(git clean -fdx)"]],
    ["git checkout -- .", ["Bash(git checkout -- .)"]],
  ])("%s: only the exact command (sandboxed), none without the sandbox", async (command, expected) => {
    expect(await suggestionsFor(withOrigin(), command, { sandbox: true })).toEqual(expected);
    expect(await suggestionsFor(withOrigin(), command)).toEqual([]);
  });

  it.each([
    ["rm -rf build", "rm -rf src"],
    ["rm 'a*b'", "rm 'aXb'"],
    ["git push origin main", "git push --force origin main"],
    ["npm run build", "npm run deploy"],
    ["chmod 644 a.txt", "chmod 777 a.txt"],
  ])("the suggestion for %s, used as an allow rule, covers it and not %s", async (command, neighbour) => {
    const cwd = withOrigin();
    const rules = { allow: await suggestionsFor(cwd, command) };
    expect(rules.allow).not.toEqual([]);
    const verdict = async (c: string) =>
      (await explainPermission({ toolName: "Bash", input: { command: c }, cwd, rules })).behavior;
    expect(await verdict(command)).toBe("allow");
    expect(await verdict(neighbour)).toBe("ask");
  });

  it.each([
    ["git status", ["Bash(git status:*)"]],
    ["npm test", ["Bash(npm test:*)"]],
    ["npm run build", ["Bash(npm run build:*)"]], // not every script: `npm run:*`
    ["npx prettier --check .", ["Bash(npx prettier:*)"]],
    ["ls -la", ["Bash(ls:*)"]],
    ["npm test | tee test.log", ["Bash(npm test:*)", "Bash(tee test.log)"]],
    ["npm test > /dev/null", ["Bash(npm test:*)"]],
  ])("%s: a program that changes nothing keeps its prefix rule", async (command, expected) => {
    expect(await suggestionsFor(tempDir(), command)).toEqual(expected);
  });

  it.each([
    "rm -rf /tmp/elsewhere",
    "rm -rf ../sibling",
    "rm -rf ~/projects",
    "cat /etc/hosts",
    "chmod -R 777 link/inside",
    "cp notes.txt --target-directory=/srv",
    "echo hi > out.txt", // a redirect's target is no part of a rule
    "time -o report.txt npm test", // the file written is not pinned by the rule
    "git -c core.pager=less log",
    "/usr/bin/git push",
  ])("%s: nothing (a path outside the permitted folders, or a write no rule can pin)", async (command) => {
    const cwd = tempDir();
    symlinkSync("/etc", join(cwd, "link"));
    expect(await suggestionsFor(cwd, command)).toEqual([]);
  });

  it("a path inside an additional directory is fine; a path tool outside every permitted folder gets nothing", async () => {
    const cwd = tempDir();
    const extra = tempDir();
    expect(await suggestionsFor(cwd, `rm -rf ${extra}/cache`, { additionalDirectories: [extra] })).toEqual([
      `Bash(rm -rf ${extra}/cache)`,
    ]);
    const write = (file_path: string) =>
      explainPermission({ toolName: "Write", input: { file_path, content: "" }, cwd, additionalDirectories: [extra] });
    expect((await write("src/a.ts")).suggestions).toEqual(["Write(./src/a.ts)"]);
    expect((await write(join(extra, "b.ts"))).suggestions).toEqual([`Write(${join(extra, "b.ts")})`]);
    expect((await write("../elsewhere.ts")).suggestions).toEqual([]);
    expect((await write("src/[id].ts")).suggestions).toEqual([]); // as a rule it would be a pattern
    mkdirSync(join(cwd, "real"));
    symlinkSync("real", join(cwd, "linked"));
    expect((await write("linked/c.ts")).suggestions).toEqual(["Write(./linked/c.ts)", "Write(./real/c.ts)"]);
  });

  it("answering 'always' to `rm -rf build` (real engine suggestions) does not approve a later `rm -rf src`", async () => {
    const cwd = tempDir();
    const { approver, questions } = terminal(["a", "n", "n"]);
    const ask = async (command: string) => approver("Bash", { command }, ctx(await suggestionsFor(cwd, command)));
    expect(await ask("rm -rf build")).toEqual({ behavior: "allow" });
    expect(await ask("rm -rf build")).toEqual({ behavior: "allow" }); // the same command: remembered
    expect(questions).toHaveLength(1);
    expect(await ask("rm -rf src")).toMatchObject({ behavior: "deny" });
    expect(await ask("rm -rf build src")).toMatchObject({ behavior: "deny" }); // covers build and more: asked again
    expect(questions).toHaveLength(3);
    expect(questions[1]).toContain("[a]lways allow Bash(rm -rf src) (exactly this command) this session:");
  });

  it("through summon(): 'always' for `rm -rf build` removes build, and `rm -rf src` is asked about and kept", async () => {
    const cwd = realpathSync(tempDir());
    mkdirSync(join(cwd, "build"));
    mkdirSync(join(cwd, "src"));
    const { approver, questions } = terminal(["a", "n"]);
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", toolName: "Bash", input: { command: "rm -rf build" } }] },
      { toolCalls: [{ id: "c2", toolName: "Bash", input: { command: "rm -rf src" } }] },
      "done",
    ]);
    const messages = await collect(
      summon("clean up", {
        presets: [],
        plugins: [permissions()],
        tools: builtinTools(),
        cwd,
        model,
        canUseTool: approver,
      }),
    );
    const results = ofType(messages, "tool_result");
    expect(existsSync(join(cwd, "build"))).toBe(false);
    expect(existsSync(join(cwd, "src"))).toBe(true);
    expect(questions).toHaveLength(2);
    expect(questions[0]).toContain("Bash(rm -rf build) (exactly this command)");
    expect(results[1]!.output.content).toBe("The user declined this call.");
  });
});
