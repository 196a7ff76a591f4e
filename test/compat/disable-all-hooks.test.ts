/**
 * Claude Code's `disableAllHooks: true`, through the bin under `--compat claude`: in the user's own
 * settings file it turns off every settings file's hooks; in a project's file, the project's only
 * (a project file never turns off the user's hooks, which may be their guards). It was reported
 * and ignored, so hooks the user had turned off ran (compat survey r, left open).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "ubiquity.mjs");

/** A UserPromptSubmit hook that leaves `name` in the project folder (writable in the sandbox too). */
const hook = (name: string) => ({
  UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch "$CLAUDE_PROJECT_DIR/${name}"` }] }],
});

function run(user: Record<string, unknown>, project: Record<string, unknown>) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ubq-disable-hooks-")));
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ hooks: hook("user-hook-ran"), ...user }));
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks: hook("project-hook-ran"), ...project }));
  const out = spawnSync(process.execPath, [BIN, "run", "--compat", "claude", "--trust", "--model", "test", "hi"], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, TERM: "dumb" },
  });
  expect(out.status, out.stderr).toBe(0);
  return {
    stderr: out.stderr,
    user: existsSync(join(cwd, "user-hook-ran")),
    project: existsSync(join(cwd, "project-hook-ran")),
  };
}

describe("disableAllHooks", () => {
  it("without it, the user's and the project's hooks both run (the control)", () => {
    expect(run({}, {})).toMatchObject({ user: true, project: true });
  });

  it("in the user's own file, turns off every settings file's hooks, and says so", () => {
    const r = run({ disableAllHooks: true }, {});
    expect(r).toMatchObject({ user: false, project: false });
    expect(r.stderr).toContain("disableAllHooks is true: no hook of a settings file or a Claude Code plugin runs");
  });

  it("in a project's file, turns off the project's hooks only, and names what still runs", () => {
    const r = run({}, { disableAllHooks: true });
    expect(r).toMatchObject({ user: true, project: false });
    expect(r.stderr).toContain("this project's hooks");
    expect(r.stderr).toContain("a project file never turns off the user's hooks");
  });

  it("a value that is not true or false keeps the hooks running, and is named", () => {
    const r = run({ disableAllHooks: "yes" }, {});
    expect(r).toMatchObject({ user: true, project: true });
    expect(r.stderr).toContain("disableAllHooks (not true or false: the hooks run)");
  });
});
