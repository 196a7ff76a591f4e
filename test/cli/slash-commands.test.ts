/**
 * Slash commands through the built bin: `ubiquity run "/name args"` expands a command file; a
 * refused `!` line ends the run with exit 1 and never runs (a marker file); in the terminal a
 * `/name` that is not built in runs the command file, and an unknown one says so.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist } from "../helpers/project";
import { SCRIPTED_CONFIG, scriptedProject, type Logged } from "../helpers/scripted-project";
import { inTerminal, PROMPT } from "../helpers/terminal";

afterAll(removeTempProjects);
beforeAll(requireDist);

const CONFIG = SCRIPTED_CONFIG.replace("marketPricing: false,", 'marketPricing: false,\n  commandSources: ["project"],\n  sandbox: false,');

describe("slash commands through the bin", () => {
  it("run: a command file expands with its arguments; a refused ! line fails the run and never runs", async () => {
    const p = scriptedProject({
      "ubiquity.config.ts": CONFIG,
      ".ubiquity/commands/git/hello.md": "---\ndescription: Greet\n---\nSay hello to $1 and $2.\n",
      ".ubiquity/commands/deploy.md": "Deploying.\n!`touch deployed-marker`\n",
    });
    const ok = await p.run(["/git:hello Ada Grace"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.requests[0]!.users.at(-1)).toBe("Say hello to Ada and Grace.");

    const refused = await p.run(["/deploy"]);
    expect(refused.code).toBe(1);
    expect(`${refused.stdout}${refused.stderr}`).toContain("/deploy: the shell line `touch deployed-marker` was not run");
    expect(refused.requests).toHaveLength(0);
    expect(existsSync(join(p.dir, "deployed-marker"))).toBe(false);
  }, 60_000);

  it.skipIf(!existsSync("/usr/bin/script"))("terminal: /name runs a command file, /help lists it, an unknown /name says so", async () => {
    const p = scriptedProject({ "ubiquity.config.ts": CONFIG, ".ubiquity/commands/hello.md": "---\ndescription: Greet someone\nargument-hint: <who>\n---\nSay hello to $ARGUMENTS.\n" });
    const logFile = join(p.dir, "chat.log");
    writeFileSync(logFile, "");
    const { code, screen } = await inTerminal(p.dir, ["chat"], { UBQ_LOG: logFile, UBQ_SESSIONS: p.sessions }, [
      { until: (s) => s.includes(PROMPT), type: "/help\r" },
      { until: (s) => s.includes("Greet someone") && s.includes(PROMPT), type: "/nonesuch\r" },
      { until: (s) => s.includes("Unknown command /nonesuch") && s.includes(PROMPT), type: "/hello the world\r" },
      { until: (s) => s.includes("answer to Say hello to the world.") && s.includes(PROMPT), type: "/exit\r" },
    ]);
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/\/hello <who>\s+Greet someone/);
    const requests = readFileSync(logFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Logged);
    expect(requests.map((r) => r.users.at(-1))).toEqual(["Say hello to the world."]);
  }, 90_000);
});
