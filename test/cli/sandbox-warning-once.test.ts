/**
 * A run with the sandbox turned off says so once on stderr, whatever the output format: the run's
 * logger and the init message carry the same warning, and the runner printed both (compat survey
 * r, left open).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "ubiquity.mjs");

describe("the sandbox-off warning", () => {
  it.each([["text"], ["json"], ["stream-json"]])("is printed once with --output-format %s", (format) => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-warn-once-")));
    writeFileSync(join(cwd, "ubiquity.config.mjs"), "export default { sandbox: false };\n");
    const out = spawnSync(
      process.execPath,
      [BIN, "run", "--trust", "--model", "test", "--output-format", format, "hi"],
      {
        cwd,
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: cwd, TERM: "dumb" },
      },
    );
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr.match(/the sandbox is off/g), out.stderr).toHaveLength(1);
    expect(out.stderr).toContain("remove `sandbox: false` (or `--no-sandbox`) to turn it back on");
  });
});
