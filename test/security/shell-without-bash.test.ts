/**
 * The permission engine reads a command as bash does. Where PATH has no bash, the Bash tool runs
 * commands with /bin/sh (dash, busybox), which reads some of them otherwise (`((touch m))` is
 * arithmetic to bash and a command to dash): outside the sandbox an allow is then no proof, so it
 * asks (with -p: denied, naming the fix). Red team z's open item, closed by that rule.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, streamMessages, tempProject } from "../helpers/project";
import { tempHome } from "../helpers/temp-home";

const home = tempHome();
beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

async function run(path: string | undefined) {
  const dir = tempProject({}, { linkUbiquity: true });
  const settings = path === undefined ? [] : ["--settings", JSON.stringify({ env: { PATH: path } })];
  const out = await runCli(
    [
      "run",
      "-p",
      "--no-sandbox",
      "--model",
      "test",
      "--output-format",
      "stream-json",
      "--allowedTools",
      "Bash(touch:*)",
      ...settings,
      'call Bash {"command":"touch made"}',
    ],
    dir,
    { HOME: home() },
  );
  expect(out.code, out.stderr).toBe(0);
  const result = streamMessages(out.stdout).find((m) => m.type === "tool_result");
  return { dir, result };
}

describe("Bash without bash on PATH", () => {
  it("an allowed command asks (denied with -p) when /bin/sh would run it; the control runs it", async () => {
    // A PATH of folders without bash (coreutils are reached by absolute path here: the command never runs).
    const empty = realpathSync(mkdtempSync(join(tmpdir(), "ubq-nobash-")));
    const without = await run(empty);
    expect(without.result.output.isError).toBe(true);
    expect(without.result.output.content).toContain("no bash on PATH");
    expect(existsSync(join(without.dir, "made"))).toBe(false);
    const control = await run(undefined);
    expect(control.result.output.isError, control.result.output.content).toBe(false);
    expect(existsSync(join(control.dir, "made"))).toBe(true);
    rmSync(empty, { recursive: true, force: true });
  });
});
