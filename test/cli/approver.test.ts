import { describe, expect, it } from "vitest";
import { PassThrough } from "node:stream";
import { terminalApprover } from "../../src/runner";

/** A fake terminal: each time the approver prints a question, the next scripted reply is typed. */
function terminal(replies: string[]) {
  const stdin = new PassThrough();
  const questions: string[] = [];
  const approver = terminalApprover({
    stdout: () => {},
    stderr: (text) => {
      if (!text.trimEnd().endsWith(":")) return;
      questions.push(text);
      const reply = replies.shift();
      if (reply !== undefined) setImmediate(() => stdin.write(`${reply}\n`));
    },
    stdin,
    stdoutIsTTY: true,
  });
  return { approver, questions };
}

const ctx = (suggestions: string[], signal = new AbortController().signal) => ({ signal, suggestions, toolUseId: "t" });

describe("the runner's terminal approver", () => {
  it("'always' remembers the suggested rules, not the whole tool", async () => {
    const { approver, questions } = terminal(["a", "n"]);
    expect(await approver("Bash", { command: "git push origin" }, ctx(["Bash(git push:*)"]))).toEqual({ behavior: "allow" });
    // covered by the remembered rule: no question
    expect(await approver("Bash", { command: "git push --tags" }, ctx(["Bash(git push:*)"]))).toEqual({ behavior: "allow" });
    expect(questions).toHaveLength(1);
    // another command of the same tool is asked about again
    expect(await approver("Bash", { command: "rm -rf build" }, ctx(["Bash(rm:*)"]))).toMatchObject({ behavior: "deny" });
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
        { question: "Which database?", header: "DB", options: [{ label: "Postgres", description: "" }, { label: "SQLite", description: "" }] },
        { question: "Anything else?", header: "Other", options: [{ label: "No", description: "" }, { label: "Yes", description: "" }] },
      ],
    };
    const answer = await approver("AskUserQuestion", input, ctx([]));
    expect(answer).toEqual({ behavior: "allow", updatedInput: { ...input, answers: { "Which database?": "SQLite", "Anything else?": "something else" } } });
  });
});
