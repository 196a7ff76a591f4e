import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "ubiquity";
import { cli, tempDirs } from "./helpers";

const temp = tempDirs();

describe("ubiquity run --resume / --continue with the default preset", () => {
  it("continues a stored session: the runs share one transcript, replayed as conversation", async () => {
    const project = temp("ubq-project-");
    const sessionDir = temp();
    writeFileSync(join(project, ".ubiquityrc.json"), JSON.stringify({ sessionDir, todoDir: temp("ubq-todos-"), marketPricing: false }));
    const run = (...args: string[]) => cli(["run", "--cwd", project, "--model", "test", "--output-format", "json", ...args]);

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
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).result).toMatch(/No stored session with id "nope"/);
  });
});
