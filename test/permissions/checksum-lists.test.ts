/**
 * `md5sum -c LIST` (and every `*sum -c`, `cksum -c`) reads the files LIST names, which the command
 * line does not: with `Read(./.env)` denied, the engine judged `md5sum -c sums` a read of `sums`
 * and allowed it, and bash (the oracle) printed `.env: OK`, a yes/no answer about the denied file's
 * contents for any guess (red team m's report). `-c`/`--check` are no longer in these programs'
 * specs, so such a command is unproven: denied under a Read deny rule (it may read that file),
 * otherwise asked unless a rule names it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sums-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
writeFileSync(join(cwd, ".env"), "KEY=secret\n");
writeFileSync(join(cwd, "a.txt"), "a\n");
const hash = spawnSync("md5sum", [".env"], { cwd, encoding: "utf8" }).stdout;
writeFileSync(join(cwd, "sums"), hash);

const decide = (command: string, allow: string[], mode: "default" | "bypassPermissions" = "default") =>
  decidePermission({ toolName: "Bash", input: { command }, rules: { allow, deny: ["Read(./.env)"] }, cwd, mode });

const CHECKS = ["md5sum -c sums", "sha256sum --check sums", "md5sum -wc sums", "cksum -c sums", "b2sum --check sums"];
const RULES = ["Bash(md5sum:*)", "Bash(sha256sum:*)", "Bash(cksum:*)", "Bash(b2sum:*)"];

describe("a checksum program's check mode", () => {
  it("reads the files its list names (bash as the oracle)", () => {
    expect(spawnSync("md5sum", ["-c", "sums"], { cwd, encoding: "utf8" }).stdout).toBe(".env: OK\n");
  });

  it("is unproven: under a Read deny rule it may read the denied file, so it is denied, whatever allows the program", async () => {
    for (const command of CHECKS) {
      const ruled = await decide(command, RULES);
      expect(ruled.behavior, `${command}: ${ruled.message}`).toBe("deny");
      expect(ruled.message).toMatch(/may read files the engine cannot name/);
      const bypassed = await decide(command, [], "bypassPermissions");
      expect(bypassed.behavior, `${command}: ${bypassed.message}`).not.toBe("allow");
    }
  });

  it("the plain reads stay as they were: a named file is allowed, the denied one denied", async () => {
    expect((await decide("md5sum a.txt", RULES)).behavior).toBe("allow");
    expect((await decide("sha256sum a.txt sums", RULES)).behavior).toBe("allow");
    expect((await decide("md5sum .env", RULES)).behavior).toBe("deny");
  });

  it("without a Read deny rule, a rule for the program asks about it and one that names the check covers it", async () => {
    const judge = (allow: string[]) =>
      decidePermission({ toolName: "Bash", input: { command: "md5sum -c sums" }, rules: { allow }, cwd });
    expect((await judge(["Bash(md5sum:*)"])).behavior).toBe("ask");
    expect((await judge(["Bash(md5sum -c:*)"])).behavior).toBe("allow");
  });
});
