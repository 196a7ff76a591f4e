/**
 * Claude Code's `!` bash mode through the SDK's `Query.shell()` (the terminal's `!command` calls
 * it): the command runs at once with no model request, through the Bash tool's rules (a deny
 * stands, nothing runs), and what it printed reaches the model ahead of the next prompt, once.
 * Real processes in a temp folder; the scripted model records what it was sent.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { summon, type Message, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { inbox, promptShape } from "../live/helpers";

const dir = mkdtempSync(join(tmpdir(), "ubq-bang-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: Options = { persistSession: false, persistTodos: false, sandbox: false, cwd: dir };

/** A live session whose prompts each end in a result; `send` resolves with that result's messages. */
function session(options: Options) {
  const input = inbox();
  const query = summon(input, options);
  const messages: Message[] = [];
  let waiting: ((m: Message[]) => void) | undefined;
  let from = 0;
  const pump = (async () => {
    for await (const m of query) {
      messages.push(m);
      if (m.type === "result" && waiting) {
        const w = waiting;
        waiting = undefined;
        w(messages.slice(from));
        from = messages.length;
      }
    }
  })();
  return {
    query,
    messages,
    send: (text: string) =>
      new Promise<Message[]>((done) => {
        waiting = done;
        input.push(text);
      }),
    end: async () => {
      input.end();
      await pump;
    },
  };
}

describe("! bash mode (Query.shell)", () => {
  it("runs the command with no model request and puts what it printed ahead of the next prompt, once", async () => {
    const model = scriptedModel([{ text: "first answer" }, { text: "second answer" }]);
    const s = session({ ...base, model, allowedTools: ["Bash"] });
    const outcome = await s.query.shell("echo bang-$((6*7)) && echo to-err >&2");
    expect(outcome).toMatchObject({ ran: true, exitCode: 0 });
    expect(outcome.output).toContain("bang-42");
    expect(model.requests).toHaveLength(0);
    const failed = await s.query.shell("exit 3");
    expect(failed).toMatchObject({ ran: true, exitCode: 3 });

    await s.send("what did it print?");
    const first = promptShape(model.requests[0]!.prompt as never).filter((l) => l.startsWith("user:"));
    const sent = first.join("\n");
    expect(sent).toContain("<bash-input>echo bang-$((6*7)) && echo to-err >&2</bash-input>");
    expect(sent).toContain("bang-42");
    expect(sent).toContain("<bash-input>exit 3</bash-input>");
    expect(sent.indexOf("bang-42")).toBeLessThan(sent.indexOf("what did it print?"));

    await s.send("and now?");
    const second = promptShape(model.requests[1]!.prompt as never).filter((l) => l.startsWith("user:"));
    // The first prompt's message keeps its blocks in the history; the new prompt carries none.
    expect(second.at(-1)).not.toContain("bash-input");
    expect(second.filter((l) => l.includes("<bash-input>echo bang"))).toHaveLength(1);
    await s.end();
  });

  it("judges the command by the rules: a denied one does not run and reaches the model as nothing", async () => {
    const marker = join(dir, "keep-me");
    writeFileSync(marker, "x");
    const model = scriptedModel([{ text: "ok" }]);
    const s = session({ ...base, model, disallowedTools: ["Bash(rm:*)"] });
    const outcome = await s.query.shell(`rm -f ${marker}`);
    expect(outcome.ran).toBe(false);
    expect(outcome.output).toMatch(/denied|deny|not allowed/i);
    expect(existsSync(marker)).toBe(true);
    await s.send("hi");
    expect(JSON.stringify(model.requests[0]!.prompt)).not.toContain("bash-input");
    await s.end();
  });

  it("asks whoever answers prompts about a command no rule allows (typing it is no rule)", async () => {
    const asked: string[] = [];
    const model = scriptedModel([{ text: "ok" }]);
    const s = session({
      ...base,
      model,
      canUseTool: async (toolName, input) => {
        asked.push(`${toolName}:${String(input.command)}`);
        return { behavior: "deny", message: "not now" };
      },
    });
    const target = join(dir, "made-by-bang");
    const outcome = await s.query.shell(`touch ${target}`);
    expect(asked).toEqual([`Bash:touch ${target}`]);
    expect(outcome.ran).toBe(false);
    expect(existsSync(target)).toBe(false);
    await s.end();
  });

  it("refuses an empty command, naming the argument", async () => {
    const s = session({ ...base, model: scriptedModel([]) });
    await expect(s.query.shell("  ")).rejects.toThrow(/shell\(command\): command must be a non-empty string/);
    await s.end();
  });
});
