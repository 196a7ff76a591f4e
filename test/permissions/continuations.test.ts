/** Backslash-newline is removed where bash removes it, and kept where bash keeps it. */
import { describe, expect, it } from "vitest";
import { joinContinuations } from "../../plugins/permissions/shell/continuations";

describe("line continuations", () => {
  it.each([
    ["r\\\nm -rf /", "rm -rf /"],
    ["git \\\n  status", "git   status"],
    ['echo "a\\\nb"', 'echo "ab"'],
    ["echo 'a\\\nb'", "echo 'a\\\nb'"],
    ["echo $'a\\\nb'", "echo $'a\\\nb'"],
    ["echo \\\\\nls", "echo \\\\\nls"],
    ["echo a # c \\\nls", "echo a # c \\\nls"],
    ["echo $(r\\\nm x)", "echo $(rm x)"],
    ["echo `r\\\nm x`", "echo `rm x`"],
  ])("%j becomes %j", (source, joined) => {
    expect(joinContinuations(source)).toEqual({ text: joined });
  });

  it("is uncertain with a here-document or inside a substitution within double quotes", () => {
    expect(joinContinuations("cat <<E\na\\\nb\nE").uncertain).toMatch(/here-document/);
    expect(joinContinuations('echo "$(r\\\nm x)"').uncertain).toMatch(/substitution within double quotes/);
  });
});
