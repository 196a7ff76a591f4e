/**
 * The terminal mode under a pseudo-terminal (util-linux `script`), typed into the way a person
 * would — each line only after the screen shows what it answers: two prompts in one session, an
 * approval (the tool line shown before its question), Ctrl-C interrupting a slow turn with the
 * session kept, /cost, /exit.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist } from "../helpers/project";
import { scriptedProject, type Logged } from "../helpers/scripted-project";
import { inTerminal, PROMPT } from "../helpers/terminal";

// Long enough that a summary of the turns up to it is smaller than they are (compaction applies only then).
const MORE = `more: ${"the apple and the pear and the plum ".repeat(8).trim()}`;

afterAll(removeTempProjects);
beforeAll(requireDist);

describe.skipIf(!existsSync("/usr/bin/script"))("ubiquity chat under a pseudo-terminal", () => {
  it("two prompts in one session, an approval, Ctrl-C on a slow turn, /cost, /exit", async () => {
    const p = scriptedProject();
    const logFile = join(p.dir, "chat.log");
    writeFileSync(logFile, "");
    // `ubiquity` alone in a terminal is the terminal mode (`ubiquity chat` is the same command).
    const { code, screen } = await inTerminal(p.dir, [], { UBQ_LOG: logFile, UBQ_SESSIONS: p.sessions }, [
      { until: (s) => s.includes(PROMPT), type: "first question\r" },
      { until: (s) => s.includes("answer to first question") && s.includes(PROMPT), type: "second question\r" },
      { until: (s) => s.includes("answer to second question") && s.includes(PROMPT), type: "echo something\r" },
      { until: (s) => s.includes("[y]es / [n]o"), type: "y\r" },
      { until: (s) => s.includes("done") && s.includes(PROMPT), type: "be slow\r" },
      { until: (_s, log) => log().some((r) => r.users.at(-1) === "be slow"), type: "\u0003" },
      { until: (s) => s.includes("interrupted") && s.includes(PROMPT), type: "after the interrupt\r" },
      { until: (s) => s.includes("answer to after the interrupt") && s.includes(PROMPT), type: "/cost\r" },
      { until: (s) => /session [0-9a-f-]{36}: \d+ turns/.test(s) && s.includes(PROMPT), type: "/exit\r" },
    ]);
    expect(code, screen).toBe(0);
    const requests = readFileSync(logFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Logged);
    // The second prompt went with the first; the prompt after the interrupt with all before it.
    expect(requests[1]!.users).toEqual(["first question", "second question"]);
    expect(requests.at(-1)!.users.slice(0, 3)).toEqual(["first question", "second question", "echo something"]);
    // The interrupted prompt stays in the session as interrupted, never sent again: the next prompt is a message of its own.
    expect(requests.at(-1)!.users.slice(-2)).toEqual(["be slow", "after the interrupt"]);
    expect(requests.filter((r) => r.users.at(-1) === "be slow")).toHaveLength(1);
    expect(screen).toContain("[interrupted by the user]");
    // The tool line (the terminal UI's: the key argument) comes before its approval question, and the approved call ran.
    const toolLine = screen.indexOf("→ Bash(echo hi)");
    expect(toolLine).toBeGreaterThan(-1);
    expect(toolLine).toBeLessThan(screen.indexOf("Allow Bash"));
    expect(screen).toContain("⎿ hi");
    expect(screen).toContain("interrupted; the session stays");
    expect(screen).toMatch(/\d+ turns? · [\d,]+ in \/ [\d,]+ out tokens · cost unknown/);
  });

  it("a background shell is shown when it starts, listed by /tasks, stopped by /stop", async () => {
    const p = scriptedProject();
    const logFile = join(p.dir, "chat.log");
    writeFileSync(logFile, "");
    const { code, screen } = await inTerminal(p.dir, ["chat"], { UBQ_LOG: logFile, UBQ_SESSIONS: p.sessions }, [
      { until: (s) => s.includes(PROMPT), type: "start it in the background\r" },
      { until: (s) => s.includes("[y]es / [n]o"), type: "y\r" },
      { until: (s) => s.includes("done") && s.includes(PROMPT), type: "/tasks\r" },
      { until: (s) => /shell-1\s+running\s+sleep 600/.test(s), type: "/stop shell-1\r" },
      { until: (s) => s.includes("Stopped shell-1."), type: "/tasks\r" },
      { until: (s) => /shell-1\s+killed\s+sleep 600\s+\(stopped by stopTask\(\)/.test(s), type: "/exit\r" },
    ]);
    expect(code, screen).toBe(0);
    expect(screen).toContain("⧗ shell-1 started in the background: sleep 600");
    // The outcome names who stopped it; what follows depends on timing ("; 1 process it left running
    // stopped" when the sleep had not yet died of the group's SIGTERM as the shell's end was read).
    expect(screen).toMatch(/shell-1\s+killed\s+sleep 600\s+\(stopped by stopTask\(\)[;)]/);
  });

  it("/clear starts a new session, /resume lists and continues one, /model switches the model, Ctrl-D quits", async () => {
    const p = scriptedProject();
    const logFile = join(p.dir, "chat.log");
    writeFileSync(logFile, "");
    const idOf = (s: string) => /session ([0-9a-f-]{36})/.exec(s)![1]!;
    const { code, screen } = await inTerminal(p.dir, ["chat"], { UBQ_LOG: logFile, UBQ_SESSIONS: p.sessions }, [
      { until: (s) => s.includes(PROMPT), type: "hello\r" },
      { until: (s) => s.includes("answer to hello") && s.includes(PROMPT), type: "/cost\r" },
      { until: (s) => /session [0-9a-f-]{36}/.test(s) && s.includes(PROMPT), type: "/clear\r" },
      { until: (s) => s.includes("New session") && s.includes(PROMPT), type: "/cost\r" },
      { until: (s) => s.includes("(not started)") && s.includes(PROMPT), type: "/resume\r" },
      {
        until: (s) => s.includes("Continue one with /resume <id>") && s.includes(PROMPT),
        type: (s) => `/resume ${idOf(s)}\r`,
      },
      { until: (s) => s.includes("the next prompt continues it") && s.includes(PROMPT), type: `${MORE}\r` },
      { until: (s) => s.includes("answer to more:") && s.includes(PROMPT), type: "/compact keep the fruit names\r" },
      {
        until: (s) => s.includes("will be summarized before your next prompt") && s.includes(PROMPT),
        type: "after compacting\r",
      },
      { until: (s) => s.includes("answer to after compacting") && s.includes(PROMPT), type: "/model test\r" },
      { until: (s) => s.includes("from the next prompt on") && s.includes(PROMPT), type: "again\r" },
      { until: (s) => s.includes('you said "again"') && s.includes(PROMPT), type: "/nope\r" },
      { until: (s) => s.includes("Unknown command /nope") && s.includes(PROMPT), type: "\u0004" },
    ]);
    expect(code, screen).toBe(0);
    const requests = readFileSync(logFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Logged);
    expect(requests.slice(0, 2).map((r) => r.users)).toEqual([["hello"], ["hello", MORE]]);
    // /compact: the summarizer's request carried the instructions; the next prompt went with the summary, not the old turns.
    expect(requests[2]!.system).toContain("keep the fruit names");
    expect(requests[3]!.users.at(-1)).toBe("after compacting");
    expect(requests[3]!.users).not.toContain("hello");
    expect(screen).toContain("the conversation so far was summarized");
    expect(screen).toMatch(/[0-9a-f-]{36} {2}\S+ \S+ {2}hello/); // the /resume list: id, time, first prompt
  });

  it("ubiquity run with a prompt in a terminal: the tool line, then its question, then the closing line; exit 0", async () => {
    const p = scriptedProject();
    const logFile = join(p.dir, "run.log");
    writeFileSync(logFile, "");
    const { code, screen } = await inTerminal(
      p.dir,
      ["run", "echo something"],
      { UBQ_LOG: logFile, UBQ_SESSIONS: p.sessions },
      [{ until: (s) => s.includes("[y]es / [n]o"), type: "y\n" }],
    );
    expect(code, screen).toBe(0);
    const toolLine = screen.indexOf('→ Bash(command: "echo hi")');
    expect(toolLine).toBeGreaterThan(-1);
    expect(toolLine).toBeLessThan(screen.indexOf("Allow Bash"));
    expect(screen.indexOf("Allow Bash")).toBeLessThan(screen.indexOf("✓ Bash: ok"));
    expect(screen).toMatch(/2 turns · [\d,]+ in \/ [\d,]+ out tokens · cost unknown · [\d.]+s/);
  });
});
