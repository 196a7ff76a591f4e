/** Paths: hard links and symlinks resolved on both the rule and the target, Unicode NFC, case folding probed per folder. */
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import { foldsCase } from "../../plugins/permissions/match-path";
import { tempDir } from "./helpers";

const read = (cwd: string, file_path: string, deny: string[]) =>
  decidePermission({ toolName: "Read", input: { file_path }, rules: { deny }, cwd, home: cwd });

describe("path normalisation", () => {
  it("a hard link to a denied file is the denied file", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, ".env"), "SECRET=1\n");
    linkSync(join(cwd, ".env"), join(cwd, "innocent.txt"));
    expect((await read(cwd, "innocent.txt", ["Read(./.env)"])).behavior).toBe("deny");
    writeFileSync(join(cwd, "other.txt"), "x\n");
    expect((await read(cwd, "other.txt", ["Read(./.env)"])).behavior).toBe("allow");
  });

  it("a rule naming a symlinked folder also covers where it points", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "real"));
    writeFileSync(join(cwd, "real", "key"), "k\n");
    symlinkSync(join(cwd, "real"), join(cwd, "secrets"));
    expect((await read(cwd, "real/key", ["Read(./secrets/**)"])).behavior).toBe("deny");
    expect((await read(cwd, "secrets/key", ["Read(./secrets/**)"])).behavior).toBe("deny");
  });

  it("compares names in Unicode NFC, whichever form the rule or the path uses", async () => {
    const cwd = tempDir();
    const nfd = "re\u0301sume\u0301.txt";
    writeFileSync(join(cwd, nfd), "x\n");
    expect((await read(cwd, nfd, ["Read(résumé.txt)"])).behavior).toBe("deny");
    expect((await read(cwd, "résumé.txt", [`Read(${nfd})`])).behavior).toBe("deny");
  });

  it("probes case folding per folder: this test's temp folder is case-sensitive", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "Abc"));
    expect(foldsCase(join(cwd, "Abc", "x.txt"))).toBe(false);
  });
});
