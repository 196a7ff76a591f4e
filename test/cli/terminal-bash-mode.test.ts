/**
 * `!command` in the terminal UI (Claude Code's bash mode), in a real pty through tmux with the built
 * bin: the command runs at once, unasked (typing it answers the approval question) and with no model
 * turn, and its output is shown; a deny rule still refuses one; what the commands printed reaches
 * the model ahead of the next prompt. The scripted model logs each request's user texts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { inTerminal, PROMPT } from "../helpers/terminal";
import { hasTmux, TmuxTerminal } from "../helpers/tmux";

const CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\\n"));

export default {
  persistSession: false,
  disallowedTools: ["Bash(rm:*)"],
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const users = request.prompt.filter((m) => m.role === "user").map(textOf);
    appendFileSync(process.env.UBQ_LOG, JSON.stringify(users) + "\\n");
    return { text: "answered " + (users[users.length - 1] ?? "").split("\\n").pop() };
  }),
};
`;

const terminals: TmuxTerminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.close();
});
afterAll(removeTempProjects);
beforeAll(requireDist);

/** The UI is idle: the status line is drawn and no spinner runs. */
const idle = (s: string) => s.includes(" mode · ") && !/· \d+s · ↓/.test(s);

describe.skipIf(!hasTmux())("! bash mode in the terminal UI (tmux)", () => {
  it("runs a typed command unasked and without a model turn, refuses a denied one, and sends the output with the next prompt", async () => {
    const dir = tempProject(
      { "ubiquity.config.mjs": CONFIG, "notes.txt": "bang-notes-line\n" },
      { linkUbiquity: true },
    );
    const home = tempProject({}, { packageJson: false });
    const log = join(dir, "model.log");
    writeFileSync(log, "");
    const requests = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
    const t = TmuxTerminal.start(dir, [], { HOME: home, UBQ_LOG: log });
    terminals.push(t);
    await t.waitFor("the prompt", (s) => s.includes("›") && s.includes(" mode · "), { on: "screen" });

    // A command runs unasked (typing it is the user's answer); its output is shown; the model is not called.
    t.type("!cat notes.txt && touch made-by-bang.txt\r");
    await t.waitFor("the command's output", (s) => s.includes("⎿ bang-notes-line") && idle(s), { on: "screen" });
    expect(existsSync(join(dir, "made-by-bang.txt"))).toBe(true);
    expect(requests()).toEqual([]);

    // A deny rule still refuses it: nothing runs, and nothing of it goes to the model.
    t.type("!rm notes.txt\r");
    await t.waitFor("the refusal", (s) => s.includes("not run: nothing goes to the model") && idle(s), {
      on: "screen",
    });
    expect(existsSync(join(dir, "notes.txt"))).toBe(true);
    expect(requests()).toEqual([]);

    t.type("what did I run\r");
    await t.waitFor("the answer", (s) => s.includes("answered what did I run") && idle(s), { on: "screen" });
    const sent = JSON.parse(requests()[0]!) as string[];
    const last = sent.at(-1)!;
    expect(last).toContain("<bash-input>cat notes.txt && touch made-by-bang.txt</bash-input>");
    expect(last).toContain("bang-notes-line");
    expect(last).not.toContain("<bash-input>rm");
    expect(last.indexOf("bang-notes-line")).toBeLessThan(last.indexOf("what did I run"));
    t.keys("C-d");
    expect(await t.exitCode()).toBe(0);
  });
});

describe("! bash mode at the line prompt (UBIQUITY_TUI=0, a pty through script)", () => {
  it("runs the command, prints what it printed, and sends it with the next prompt", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    const home = tempProject({}, { packageJson: false });
    const log = join(dir, "model.log");
    writeFileSync(log, "");
    const { code, screen } = await inTerminal(dir, ["chat"], { HOME: home, UBQ_LOG: log, UBIQUITY_TUI: "0" }, [
      { until: (s) => s.includes(PROMPT), type: "!echo line-mode-$((2+3))\r" },
      { until: (s) => s.includes("line-mode-5") && s.includes(PROMPT), type: "next\r" },
      { until: (s) => s.includes("answered next") && s.includes(PROMPT), type: "/exit\r" },
    ]);
    expect(code, screen).toBe(0);
    const sent = (JSON.parse(readFileSync(log, "utf8").split("\n")[0]!) as string[]).at(-1)!;
    expect(sent).toContain("<bash-input>echo line-mode-$((2+3))</bash-input>");
    expect(sent).toContain("line-mode-5");
  });
});
