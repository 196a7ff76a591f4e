/**
 * acceptEdits' allow of a plain filesystem command names the programs it approves, and only those
 * it does approve: its message listed `mv`, which asks (a move leaves later paths unprovable).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decidePermission } from "../../plugins/permissions/decide";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-accept-")));
writeFileSync(join(cwd, "a.txt"), "a\n");
mkdirSync(join(cwd, "d"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const decide = (command: string) =>
  decidePermission({ toolName: "Bash", input: { command }, rules: {}, cwd, mode: "acceptEdits" });

describe("acceptEdits and plain filesystem commands", () => {
  it("allows mkdir, touch and cp, saying so, and names no program it does not approve", async () => {
    for (const command of ["mkdir e", "touch x", "cp a.txt c.txt"]) {
      const d = await decide(command);
      expect(d.behavior, `${command}: ${d.message}`).toBe("allow");
      expect(d.message).toContain("mkdir, touch, cp");
      expect(d.message).not.toMatch(/\bmv\b/);
    }
  });

  it("asks for mv", async () => {
    for (const command of ["mv a.txt b.txt", "mv a.txt d/"])
      expect((await decide(command)).behavior, command).toBe("ask");
  });
});
