import { afterEach, describe, expect, it, vi } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "ubiquity";
import { cli, tempDirs } from "./helpers";

const temp = tempDirs();
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("ubiquity run --resume / --continue with the default preset", () => {
  it("continues a stored session: the runs share one transcript, replayed as conversation", async () => {
    const project = temp("ubq-project-");
    const sessionDir = temp();
    writeFileSync(
      join(project, ".ubiquityrc.json"),
      JSON.stringify({ sessionDir, todoDir: temp("ubq-todos-"), marketPricing: false }),
    );
    const run = (...args: string[]) =>
      cli(["run", "--cwd", project, "--model", "test", "--output-format", "json", ...args]);

    const first = await run("remember the word papaya");
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;

    const continued = await run("--continue", "what did I say?");
    expect(continued.code, continued.stderr).toBe(0);
    expect(JSON.parse(continued.stdout)).toMatchObject({ sessionId: id, isError: false });

    const resumed = await run("--resume", id, "and now?");
    expect(JSON.parse(resumed.stdout)).toMatchObject({ sessionId: id, isError: false });

    const sessions = await new SessionStore({ dir: sessionDir }).list();
    expect(sessions.map((s) => [s.sessionId, s.summary])).toEqual([[id, "remember the word papaya"]]);
    const stored = await new SessionStore({ dir: sessionDir }).get(id);
    expect(stored!.records.filter((r) => r.type === "user").map((r) => (r.message as { text: string }).text)).toEqual([
      "remember the word papaya",
      "what did I say?",
      "and now?",
    ]);

    const unknown = await run("--resume", "nope", "hi");
    // A configuration error found before any request: exit 2 (issue 38).
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).result).toMatch(/No stored session with id "nope"/);
  });

  it("--resume without --model runs on the session's stored model", async () => {
    const project = temp("ubq-project-");
    const sessionDir = temp();
    writeFileSync(
      join(project, ".ubiquityrc.json"),
      JSON.stringify({ sessionDir, todoDir: temp("ubq-todos-"), marketPricing: false }),
    );
    vi.stubEnv("UBIQUITY_MODEL", undefined);
    const first = await cli(["run", "--cwd", project, "--model", "test", "--output-format", "json", "remember papaya"]);
    const id = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;
    // No --model and no UBIQUITY_MODEL: only the transcript can say which model to use.
    const resumed = await cli(["run", "--cwd", project, "--output-format", "stream-json", "--resume", id, "and now?"]);
    expect(resumed.code, resumed.stdout).toBe(0);
    const [init] = resumed.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { model: string });
    expect(init!.model).toBe("test");
    const continued = await cli(["run", "--cwd", project, "--output-format", "json", "--continue", "still there?"]);
    expect(JSON.parse(continued.stdout)).toMatchObject({ sessionId: id, isError: false });
    // --model still wins: an unknown provider is the run's error (a configuration error: exit 2), not the stored model.
    const overridden = await cli([
      "run",
      "--cwd",
      project,
      "--output-format",
      "json",
      "--resume",
      id,
      "--model",
      "nope:x",
      "hi",
    ]);
    expect(overridden.code).toBe(2);
    expect(JSON.parse(overridden.stdout)).toMatchObject({
      subtype: "error_configuration",
      result: expect.stringContaining('unknown provider "nope"'),
    });
    // An unknown id without --model: the message names the id, not only the missing model.
    const unknown = await cli(["run", "--cwd", project, "--output-format", "json", "--resume", "nope", "hi"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).result).toMatch(
      /^No stored session with id "nope" in .*\(check the id: ubiquity sessions list\), so there is no model to resume on: pass --model/,
    );
    const empty = temp("ubq-empty-");
    writeFileSync(join(empty, ".ubiquityrc.json"), JSON.stringify({ sessionDir }));
    const nothing = await cli(["run", "--cwd", empty, "--output-format", "json", "--continue", "hi"]);
    expect(nothing.code).toBe(2);
    expect(JSON.parse(nothing.stdout).result).toMatch(/^No earlier session of this folder in .* to continue, so there/);
  });
});
