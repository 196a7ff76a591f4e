/**
 * Claude Code's prompt habits in the terminal UI, in a real pty through tmux with the built bin:
 * Tab completes a `/command` (the terminal's own, the session's command files) and an `@path`, in
 * place of Claude Code's menus (complete.ts's cases below, without a terminal); and `!command`
 * (Claude Code's bash mode): the command runs at once, unasked (typing it answers the approval question) and with no model
 * turn, and its output is shown; a deny rule still refuses one; what the commands printed reaches
 * the model ahead of the next prompt. The scripted model logs each request's user texts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { inTerminal, PROMPT } from "../helpers/terminal";
import { complete, completes } from "../../runner/tui/complete";
import { closedAfterEach, hasTmux, idleScreen, TmuxTerminal } from "../helpers/tmux";

const CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\\n"));

export default {
  persistSession: false,
  disallowedTools: ["Bash(rm:*)"],
  commands: ["cmds"],
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const users = request.prompt.filter((m) => m.role === "user").map(textOf);
    appendFileSync(process.env.UBQ_LOG, JSON.stringify(users) + "\\n");
    return { text: "answered " + (users[users.length - 1] ?? "").split("\\n").pop() };
  }),
};
`;

const terminal = closedAfterEach();
afterAll(removeTempProjects);
beforeAll(requireDist);

const idle = idleScreen;

describe.skipIf(!hasTmux())("Tab and ! bash mode in the terminal UI (tmux)", () => {
  it("Tab completes /commands and @paths; a typed ! command runs unasked and without a model turn, refuses a denied one, and sends the output with the next prompt", async () => {
    const dir = tempProject(
      {
        "ubiquity.config.mjs": CONFIG,
        "notes.txt": "bang-notes-line\n",
        "src/math.ts": "export const two = 2;\n",
        "cmds/costly.md": "---\ndescription: a command file\n---\nSay costly.\n",
      },
      { linkUbiquity: true },
    );
    const home = tempProject({}, { packageJson: false });
    const log = join(dir, "model.log");
    writeFileSync(log, "");
    const requests = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
    const t = terminal(TmuxTerminal.start(dir, [], { HOME: home, UBQ_LOG: log }));
    await t.waitFor("the prompt", (s) => s.includes("›") && s.includes(" mode · "), { on: "screen" });

    // Tab: `/co` lists what it could be (the terminal's /compact and /cost, the command file /costly), `/cost` completes to
    // the one it names (tmux trims the space after it: the unit cases below check it); `@s` completes to the folder, then its one file.
    t.type("/co\t");
    await t.waitFor("the candidates", (s) => /\/compact\s+\/cost\s+\/costly/.test(s), { on: "screen" });
    t.type("stl\t");
    await t.waitFor("/costly completed", (s) => s.includes("› /costly"), { on: "screen" });
    t.keys("C-u");
    t.type("what is in @s\t");
    await t.waitFor("the folder completed", (s) => s.includes("› what is in @src/"), { on: "screen" });
    t.type("\t");
    await t.waitFor("the file completed", (s) => s.includes("› what is in @src/math.ts"), { on: "screen" });
    t.keys("C-u");
    await t.waitFor("the prompt emptied", (s) => !s.includes("› what is in"), { on: "screen" });

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
    const dir = tempProject(
      { "ubiquity.config.mjs": CONFIG, "cmds/costly.md": "Say costly.\n" },
      { linkUbiquity: true },
    );
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

describe("Tab's completions (complete.ts)", () => {
  it("completes a /command at the start of the prompt only, and @paths from the folder they name", () => {
    const dir = tempProject({ "src/a.ts": "", "src/ab.ts": "", ".env": "", "docs/x.md": "" }, { packageJson: false });
    const commands = ["/clear", "/compact", "/cost", "/costly"];
    expect(completes("/co")).toBe("command");
    expect(completes("say /co")).toBeUndefined();
    expect(complete("/cl", commands, dir)).toEqual({ insert: "ear ", candidates: ["/clear"] });
    expect(complete("/co", commands, dir)).toEqual({ insert: "", candidates: ["/compact", "/cost", "/costly"] });
    expect(complete("/cost", commands, dir)).toEqual({ insert: "", candidates: ["/cost", "/costly"] });
    expect(complete("/x", commands, dir)).toBeUndefined();
    expect(complete("read @s", [], dir)).toEqual({ insert: "rc/", candidates: ["src/"] });
    expect(complete("read @src/a", [], dir)).toEqual({ insert: "", candidates: ["a.ts", "ab.ts"] });
    expect(complete("read @src/ab", [], dir)).toEqual({ insert: ".ts ", candidates: ["ab.ts"] });
    // Hidden entries only when the typed part starts with a dot.
    expect(complete("@", [], dir)?.candidates).toEqual(["docs/", "src/"]);
    expect(complete("@.e", [], dir)).toEqual({ insert: "nv ", candidates: [".env"] });
    expect(complete("@nowhere/x", [], dir)).toBeUndefined();
  });
});
