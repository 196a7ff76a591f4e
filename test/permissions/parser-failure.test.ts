/** A parser failure fails closed for that call only; work is capped by size and time, not by sub-command count. */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Parser } from "web-tree-sitter";
import { analyzeShell, loadShellParser } from "../../plugins/permissions/index";
import { decidePermission } from "ubiquity/plugins/permissions";
import { MAX_SHELL_SOURCE } from "../../plugins/permissions/shell/parser";

beforeAll(() => loadShellParser());
afterEach(() => vi.restoreAllMocks());

describe("parser failures", () => {
  it("a crash inside the parser makes that call unprovable, and the next call is judged normally", async () => {
    vi.spyOn(Parser.prototype, "parse").mockImplementationOnce(() => {
      throw new Error("RuntimeError: memory access out of bounds");
    });
    // Texts no other test analyses: a text's analysis is kept once the parser read it, and test
    // files sharing a worker share what is kept.
    const crashed = analyzeShell("git status # parser-failure");
    expect(crashed.unsafe.join(" ")).toMatch(/parser failed/);
    const allow = { allow: ["Bash(git:*)"] };
    const first = await decidePermission({
      toolName: "Bash",
      input: { command: "git status # parser-failure" },
      rules: allow,
    });
    expect(first.behavior, first.message).toBe("allow");
    // Crash once, on the command (rule text is parsed too, when rules are compiled).
    vi.restoreAllMocks();
    const real = Parser.prototype.parse;
    let crashes = 1;
    vi.spyOn(Parser.prototype, "parse").mockImplementation(function (
      this: Parser,
      ...args: Parameters<Parser["parse"]>
    ) {
      if (args[0] === "git status -s # parser-failure" && crashes-- > 0) throw new Error("RuntimeError: unreachable");
      return real.apply(this, args);
    });
    // A text not analysed before (a text's analysis is kept once the parser read it).
    expect(
      (await decidePermission({ toolName: "Bash", input: { command: "git status -s # parser-failure" }, rules: allow }))
        .behavior,
    ).toBe("ask");
    const after = await decidePermission({ toolName: "Bash", input: { command: "git log" }, rules: allow });
    expect(after.behavior, after.message).toBe("allow");
  });

  it("a parse that runs out of time is cancelled and fails closed", () => {
    // A text not analysed before in this file: a text's analysis is kept once the parser read it.
    vi.spyOn(Parser.prototype, "parse").mockImplementationOnce(() => null);
    expect(analyzeShell("git status --short # parser-failure").unsafe.join(" ")).toMatch(/longer than/);
    expect(analyzeShell("git status --short # parser-failure").unsafe).toEqual([]);
  });

  it("a text's analysis is kept and shared (frozen); a parser failure is not kept", () => {
    const first = analyzeShell("git diff --stat # parser-failure");
    expect(analyzeShell("git diff --stat # parser-failure")).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.candidates)).toBe(true);
    vi.spyOn(Parser.prototype, "parse").mockImplementationOnce(() => {
      throw new Error("RuntimeError: unreachable");
    });
    expect(analyzeShell("git diff --cached # parser-failure").unsafe.join(" ")).toMatch(/parser failed/);
    expect(analyzeShell("git diff --cached # parser-failure").unsafe).toEqual([]);
  });

  it("over-long input is refused by size, and a deny rule still sees the program in it", async () => {
    const long = `${"true && ".repeat(Math.ceil(MAX_SHELL_SOURCE / 8))}rm -rf /`;
    expect(analyzeShell(long).unsafe.join(" ")).toMatch(/too long/);
    expect(
      (await decidePermission({ toolName: "Bash", input: { command: long }, rules: { allow: ["Bash(true)"] } }))
        .behavior,
    ).toBe("ask");
    expect(
      (
        await decidePermission({
          toolName: "Bash",
          input: { command: long },
          rules: { deny: ["Bash(rm:*)"] },
          mode: "bypassPermissions",
        })
      ).behavior,
    ).toBe("deny");
  });

  it("many sub-commands are not a cap: 20,000 are all judged", () => {
    const many = `${"true; ".repeat(20_000)}rm -rf /`;
    const a = analyzeShell(many);
    expect(a.unsafe).toEqual([]);
    expect(a.candidates.at(-1)?.text).toBe("rm -rf /");
  });
});
