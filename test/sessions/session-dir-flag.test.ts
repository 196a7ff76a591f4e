/**
 * `ubiquity run --session-dir <dir>`: a CI job keeps its sessions in its workspace, and a later
 * step (another HOME, as a fresh runner has) resumes from there; `ubiquity sessions list
 * --session-dir` shows the same store.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { tempHome } from "../helpers/temp-home";

const home = tempHome();
beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

describe("ubiquity run --session-dir", () => {
  it("stores the session there, and a step with another HOME resumes it from there", async () => {
    const dir = tempProject({}, { linkUbiquity: true });
    const first = await runCli(
      ["run", "-p", "--model", "test", "--output-format", "json", "--session-dir", "ci-sessions", "step one"],
      dir,
      { HOME: home() },
    );
    expect(first.code, first.stderr).toBe(0);
    const { sessionId } = JSON.parse(first.stdout) as { sessionId: string };
    expect(existsSync(join(dir, "ci-sessions"))).toBe(true);
    expect(JSON.stringify(readdirSync(join(dir, "ci-sessions"), { recursive: true }))).toContain(sessionId);
    // A later step on a fresh runner: another HOME, the same workspace.
    const env = { HOME: home() };
    const missing = await runCli(["run", "-p", "--model", "test", "--resume", sessionId, "step two"], dir, env);
    expect(missing.code).not.toBe(0);
    const second = await runCli(
      [
        "run",
        "-p",
        "--model",
        "test",
        "--output-format",
        "json",
        "--session-dir",
        "ci-sessions",
        "--resume",
        sessionId,
        "step two",
      ],
      dir,
      env,
    );
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ sessionId, isError: false });
    const list = await runCli(["sessions", "list", "--session-dir", "ci-sessions", "--json"], dir, env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(sessionId);
  });
});
