/**
 * readRegularFileSync (the terminal's approval diff, a hook's session env files): one open that
 * follows no link in the last part and does not block on a FIFO, judged on what was opened. A FIFO
 * with no writer would block an ordinary open for good: here it is refused at once.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRegularFileSync } from "../../plugins/_kits/process/regular-file-sync";
import { approvalBody } from "../../runner/tui/approval-view";
import { createTheme } from "../../runner/tui/theme";
import { tsNodeArgs } from "../helpers/ts-child";

const dir = mkdtempSync(join(tmpdir(), "ubq-regular-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("readRegularFileSync", () => {
  it("reads a regular file, and refuses a FIFO (no writer: it would block), a link, a folder and a file over the size", () => {
    writeFileSync(join(dir, "a.txt"), "alpha\n");
    execFileSync("mkfifo", [join(dir, "pipe")]);
    symlinkSync(join(dir, "a.txt"), join(dir, "link"));
    expect(readRegularFileSync(join(dir, "a.txt"), 100)).toEqual({ text: "alpha\n", bytes: 6 });
    // In a child with a time limit: a blocking open would hang this worker, not fail the test.
    const child = spawnSync(
      process.execPath,
      [
        ...tsNodeArgs,
        "-e",
        `import(${JSON.stringify(join(import.meta.dirname, "../../plugins/_kits/process/regular-file-sync.ts"))}).then((m) => console.log(JSON.stringify(m.readRegularFileSync(${JSON.stringify(join(dir, "pipe"))}, 100))))`,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(child.signal, child.stderr).toBeNull();
    expect(JSON.parse(child.stdout)).toEqual({ skipped: "not a regular file" });
    expect(readRegularFileSync(join(dir, "link"), 100)).toEqual({ skipped: "ELOOP" });
    expect(readRegularFileSync(dir, 100)).toEqual({ skipped: "not a regular file" });
    expect(readRegularFileSync(join(dir, "a.txt"), 3)).toEqual({ skipped: "too large" });
    expect(readRegularFileSync(join(dir, "missing"), 100)).toEqual({ skipped: "ENOENT" });
  });

  it("the approval of a Write shows the diff of the file a link leads to", () => {
    writeFileSync(join(dir, "b.txt"), "old line\n");
    symlinkSync(join(dir, "b.txt"), join(dir, "b-link"));
    const theme = createTheme(false);
    const viaLink = approvalBody("Write", { file_path: join(dir, "b-link"), content: "new line\n" }, dir, theme).join(
      "\n",
    );
    expect(viaLink).toContain("old line");
  });
});
