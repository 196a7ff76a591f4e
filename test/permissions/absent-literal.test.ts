/**
 * A folder read to the bottom (`git add -A`, `grep -r`) under a Read deny rule is searched for
 * the file the rule names, and past 20,000 entries (any project with node_modules) it is denied
 * as too many to check. A rule naming one literal path that does not exist names nothing below
 * any folder, so it no longer denies by budget; the same rule denies once the file is there.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";

let big: string;
beforeAll(() => {
  big = realpathSync(mkdtempSync(join(tmpdir(), "ubq-absent-")));
  // Over the walk's 20,000-entry budget, as a node_modules makes it.
  for (let d = 0; d < 110; d++) {
    const dir = join(big, "node_modules", `pkg${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 200; f++) writeFileSync(join(dir, `f${f}.js`), "");
  }
});
afterAll(() => rmSync(big, { recursive: true, force: true }));

const decide = (command: string, deny: string[]) =>
  decidePermission({
    toolName: "Bash",
    input: { command },
    rules: { allow: ["Bash(git:*)", "Bash(grep:*)"], deny },
    cwd: big,
  });

describe("a literal Read deny rule for a file that does not exist", () => {
  it("does not deny staging or a recursive search of a large tree", async () => {
    for (const command of ["git add -A", "git add .", "grep -r TODO ."]) {
      const d = await decide(command, ["Read(./.env)"]);
      expect(d.behavior, `${command}: ${d.message}`).toBe("allow");
    }
  });

  it("a glob rule still denies by budget, and the literal rule denies once the file exists", async () => {
    expect((await decide("git add -A", ["Read(**/.env)"])).behavior).toBe("deny");
    writeFileSync(join(big, ".env"), "KEY=1\n");
    try {
      const d = await decide("git add -A", ["Read(./.env)"]);
      expect(d.behavior).toBe("deny");
    } finally {
      rmSync(join(big, ".env"));
    }
  });

  it("a dangling link where the file would be counts as there (it exists as a name)", async () => {
    symlinkSync(join(big, "nowhere"), join(big, ".env"));
    try {
      expect((await decide("git add -A", ["Read(./.env)"])).behavior).toBe("deny");
    } finally {
      rmSync(join(big, ".env"));
    }
  });
});
