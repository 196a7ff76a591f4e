/**
 * A background (`asyncRewake`) Stop hook still running when a `-p` run ends is stopped with the
 * run, and said so in one line: it was reported as a failure ("failed (exit signal)") with what
 * its shell printed while its folders went away (compat survey r, left open).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "ubiquity.mjs");

it("a background Stop hook stopped at the end of a -p run is named as stopped, not as failed", () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bg-stop-")));
  mkdirSync(join(cwd, ".claude"));
  // What it prints (noise-42) is not in its command text, which the warning names.
  const command = "echo noise-$((6*7)) >&2; sleep 300; exit 2";
  writeFileSync(
    join(cwd, ".claude", "settings.json"),
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command, asyncRewake: true }] }] } }),
  );
  const out = spawnSync(
    process.execPath,
    [BIN, "run", "--compat", "claude", "--trust", "--model", "test", "-p", "hi"],
    {
      cwd,
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: cwd, TERM: "dumb" },
    },
  );
  expect(out.status, out.stderr).toBe(0);
  expect(out.stdout).toContain("Offline test model");
  expect(out.stderr).toContain(`Stop hook command ${JSON.stringify(command)} was stopped with its run`);
  expect(out.stderr).not.toContain("failed (exit");
  expect(out.stderr).not.toContain("noise-42");
});
