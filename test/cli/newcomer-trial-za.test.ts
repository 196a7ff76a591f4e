/**
 * What a newcomer's trial (za, 2026-12-07: a developer who lives in Claude Code's interactive
 * terminal — @file mentions, `!` lines, Shift-Tab through the permission modes, Esc, approvals,
 * a dev server in the background, /compact, /cost, /model, /resume, /rewind, custom commands and
 * skills, CLAUDE.md and `.claude/settings.json` — spends the same day in `ubiquity` with no
 * prompt, the packed package in an empty project, a scripted model, the screen read through tmux)
 * met:
 * - `what does @src/math.js do?` sent the words as typed: the file was never read (Claude Code's
 *   prompt brings an `@path` file in; here only a command file's `@path` did). In the terminal mode
 *   a typed prompt's `@path` files are now read through the Read tool (judged by the rules, shown
 *   as calls) and put ahead of the prompt: the commands plugin's `fileMentions` option, which the
 *   terminal turns on;
 * - Shift-Tab did nothing (the key was dropped) and the docs said "the terminal has no mode cycle":
 *   it now cycles default → acceptEdits → plan (and back to the mode the run started in when it is
 *   another), from the next tool call on, and the status line shows the mode;
 * - the status line said "default mode" while `.claude/settings.json`'s `defaultMode` had the
 *   session in acceptEdits (a Write ran without asking, under a line that said it would ask): it now
 *   shows the mode the session's init message names;
 * - a dev server started in the background was gone after `/compact` (and `/clear`, `/resume <id>`,
 *   `/rewind <uuid>`, which end the live session and its tasks with it), without a word; `/tasks`
 *   then said "No background task". Claude Code's /compact keeps them. Each of these commands now
 *   names the tasks it stopped;
 * - Esc interrupted the turn and said "(Ctrl-C again quits)": after Esc one Ctrl-C does not quit.
 *   The hint is now given only after a Ctrl-C;
 * - Esc at an approval denied the call and the model went on (it tried again); Claude Code's
 *   "No, and tell Claude what to do differently (esc)" stops the turn and waits for the user. Esc
 *   now denies and interrupts; `n` still denies and lets the model go on. `/help` lists these keys;
 * - each prompt's closing line gave the live session's totals so far with the prompt's own seconds:
 *   a one-turn `/greet` late in the day ended "11 turns · 41,617 in / 449 out tokens · 0.1s". It
 *   now gives the prompt's own turns, tokens and cost (the status line and /cost keep the session's);
 * - `/model sonnet` answered "[plugin ubiquity:model] hook model.resolve: …", the kernel's terms
 *   the runner keeps for --verbose elsewhere: it now reads "plugin ubiquity:model: …";
 * - the dev server's log could be read only by the model (BashOutput): `/tasks` listed the task
 *   without its output (Claude Code's task view shows it). `/tasks <id>` now prints its latest lines;
 * - `/rewind` listed checkpoints by 36-character uuids, and `/rewind <uuid>` wanted one whole (Claude
 *   Code picks from a menu): the start of a listed uuid now does, as git takes a short hash;
 * - Claude Code's own commands typed from habit (`/bashes`, `/permissions`, `/memory`, `/init`, `/mcp`,
 *   `/plan`…) were "Unknown command …; /help lists them": each now says what does its work here;
 * - the folder's trust question ended "[t]rust … / [q]uit: ", and the `t` typed at it sat there (the
 *   approvals after it take one key): it now says "then Enter";
 * - Claude Code's way to add a memory now is to have CLAUDE.md edited; done mid-session in a trusted
 *   folder, the next session (`/clear`, `/compact`) left the whole CLAUDE.md out without a word (the
 *   edit made it "changed", and only the start's warning said so). These commands now ask the trust
 *   question about the changed files, and the new session reads what is approved.
 * Same as Claude Code, so left: `#` at the start of a prompt is text (Claude Code removed its
 * memory shortcut in 2.0.70).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyDecoder } from "../../runner/tui/keys";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { closedAfterEach, hasTmux, idleScreen, TmuxTerminal } from "../helpers/tmux";

/** A scripted model that answers by the user's last line (or the last tool result) and logs each request's user texts. */
const CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\\n"));

export default {
  compat: ["claude"],
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const users = request.prompt.filter((m) => m.role === "user").map(textOf);
    const system = request.prompt.filter((m) => m.role === "system").map(textOf).join("\\n");
    appendFileSync(process.env.UBQ_LOG, JSON.stringify({ system, users }) + "\\n");
    const last = request.prompt[request.prompt.length - 1];
    if (last.role === "tool") return "the tool finished";
    const said = (users[users.length - 1] ?? "").split("\\n").pop();
    if (said.includes("write")) return { toolCalls: [{ toolName: "Write", input: { file_path: "hello.txt", content: "hello\\n" } }] };
    if (said.includes("server")) return { toolCalls: [{ toolName: "Bash", input: { command: "echo listening on 3000; sleep 600", run_in_background: true, description: "dev server" } }] };
    if (said.includes("slow")) return { text: "slow answer", delayMs: 120000 };
    return { text: "answer to " + said, chunkSize: 4 };
  }),
};
`;

const terminal = closedAfterEach();
afterAll(removeTempProjects);
beforeAll(requireDist);

const idle = idleScreen;
/** The status line (the screen's last line). */
const status = (s: string) => s.split("\n").at(-1) ?? "";

describe("the terminal's keys", () => {
  it("Shift-Tab is a key of its own, not dropped", () => {
    expect(new KeyDecoder().feed("\x1b[Z")).toEqual([{ name: "shift-tab" }]);
  });
});

describe.skipIf(!hasTmux())("a Claude Code user's day in the terminal UI (tmux)", () => {
  it("the trust question says Enter; a CLAUDE.md edited during the session is asked about at /clear, then read", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG, "CLAUDE.md": "- Use tabs.\n" }, { linkUbiquity: true });
    const home = tempProject({}, { packageJson: false });
    const log = join(dir, "model.log");
    writeFileSync(log, "");
    const systems = () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { system: string }).system);
    const t = terminal(TmuxTerminal.start(dir, [], { UBIQUITY_TRUST: "", HOME: home, UBQ_LOG: log }));
    await t.waitFor("the trust question", (s) => s.includes("[q]uit, then Enter:"), { on: "screen" });
    t.type("t\r");
    await t.waitFor("the prompt", (s) => s.includes("›") && s.includes(" mode · "), { on: "screen" });
    t.type("first\r");
    await t.waitFor("the first answer", (s) => s.includes("answer to first") && idle(s), { on: "screen" });
    expect(systems().at(-1)).toContain("Use tabs.");

    // The memory edited mid-session (as Claude Code users now add one): /clear asks about it, and the new session reads it.
    writeFileSync(join(dir, "CLAUDE.md"), "- Use tabs.\n- Use pnpm.\n");
    t.type("/clear\r");
    await t.waitFor(
      "the question about the changed file",
      (s) => s.includes("CLAUDE.md (changed)") && s.includes("[q]uit, then Enter:"),
      { on: "screen" },
    );
    t.type("t\r");
    await t.waitFor("the new session", (s) => s.includes("New session") && idle(s), { on: "screen" });
    t.type("second\r");
    await t.waitFor("the second answer", (s) => s.includes("answer to second") && idle(s), { on: "screen" });
    expect(systems().at(-1)).toContain("Use pnpm.");
    t.keys("C-d");
    expect(await t.exitCode()).toBe(0);
  });

  it("@file is read; the settings' mode is shown; Shift-Tab cycles modes; Esc at an approval stops the turn; /compact names the server it stops; Esc's hint", async () => {
    const dir = tempProject(
      {
        "ubiquity.config.mjs": CONFIG,
        "notes.md": "alpha\nbeta\n",
        ".claude/settings.json": JSON.stringify({ permissions: { defaultMode: "plan" } }),
      },
      { linkUbiquity: true },
    );
    // Outside the project: a checkpoint covers the project's files, and /rewind would put the log back too.
    const log = join(tempProject({}, { packageJson: false }), "model.log");
    writeFileSync(log, "");
    const users = () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .flatMap((l) => (JSON.parse(l) as { users: string[] }).users);
    const t = terminal(TmuxTerminal.start(dir, [], { UBQ_LOG: log, UBQ_SESSIONS: join(dir, "sessions") }));
    await t.waitFor("the prompt", (s) => s.includes("›") && s.includes(" mode · "), { on: "screen" });

    // @notes.md: the file is read through Read (shown as a call) and reaches the model ahead of the prompt.
    t.type("what is in @notes.md?\r");
    let screen = await t.waitFor("the answer", (s) => s.includes("answer to what is in @notes.md?") && idle(s), {
      on: "screen",
    });
    expect(screen).toContain("→ Read(notes.md)");
    expect(users().join("\n")).toMatch(/Contents of notes\.md \(included by the prompt\):\n[\s\S]*alpha/);
    // The settings file's defaultMode is the session's, and the status line says so.
    expect(status(screen)).toContain("plan mode");

    // Shift-Tab: plan → default → acceptEdits, shown at once; the Write then runs without asking.
    t.keys("BTab");
    await t.waitFor("default mode", (s) => status(s).includes("default mode"), { on: "screen" });
    // In default mode the Write asks; Esc there denies it and stops the turn (Claude Code's "No (esc)").
    t.type("write the file\r");
    await t.waitFor("the Write approval", (s) => s.includes("Allow Write?"), { on: "screen" });
    t.keys("Escape");
    screen = await t.waitFor("the turn stopped", (s) => s.includes("interrupted; the session stays") && idle(s), {
      on: "screen",
    });
    expect(screen).toContain("╰ Allow Write? no");
    expect(screen).not.toContain("the tool finished");
    expect(existsSync(join(dir, "hello.txt"))).toBe(false);
    t.keys("BTab");
    await t.waitFor("acceptEdits mode", (s) => status(s).includes("acceptEdits mode"), { on: "screen" });
    t.type("write the file\r");
    screen = await t.waitFor("the Write's end", (s) => s.includes("the tool finished") && idle(s), { on: "screen" });
    expect(screen.match(/╰ Allow Write\?/g)).toHaveLength(1); // the one answered with Esc above
    expect(readFileSync(join(dir, "hello.txt"), "utf8")).toBe("hello\n");

    // /rewind takes the start of a listed checkpoint's uuid, as git takes a short hash.
    t.type("/rewind\r");
    screen = await t.waitFor("the checkpoints", (s) => /^ {2}[0-9a-f-]{36} {2}\d{4}-/m.test(s) && idle(s), {
      on: "screen",
    });
    const uuid = /^ {2}([0-9a-f-]{36}) {2}\d{4}-\S+ \S+ {2}write the file$/m.exec(screen)![1]!;
    t.type(`/rewind ${uuid.slice(0, 8)}\r`);
    await t.waitFor("the rewind question", (s) => s.includes("Rewind 1 file? [y/N]"), { on: "screen" });
    t.type("y\r");
    await t.waitFor("the rewind", (s) => s.includes("The conversation goes on as it was") && idle(s), { on: "screen" });
    expect(existsSync(join(dir, "hello.txt"))).toBe(false);

    // A dev server in the background, then /compact: the server it stops is named.
    t.type("start the server\r");
    await t.waitFor("the Bash approval", (s) => s.includes("Allow Bash?"), { on: "screen" });
    t.type("y");
    await t.waitFor("the server started", (s) => s.includes("shell-1 started in the background") && idle(s), {
      on: "screen",
    });
    // The server's log, read by the user: /tasks <id>, asked again until its first line has arrived.
    const asks = (s: string) => s.split("› /tasks shell-1").length - 1;
    for (let tail = "", tries = 0; !tail.includes("  listening on 3000"); tries++) {
      if (tries === 50) throw new Error(`/tasks shell-1 never showed the server's output:\n${t.history()}`);
      const asked = asks(t.history()) + 1;
      t.type("/tasks shell-1\r");
      const shown = await t.waitFor("the answer to /tasks shell-1", (s) => {
        const last = s.split("› /tasks shell-1").at(-1)!;
        return asks(s) === asked && (last.includes("has printed nothing yet") || last.includes("listening on 3000"));
      });
      tail = shown.split("› /tasks shell-1").at(-1)!;
    }

    // A one-turn prompt late in the session: its closing line has its own figures, not the session's so far.
    t.type("hello again\r");
    screen = await t.waitFor("the answer", (s) => s.includes("answer to hello again") && idle(s), { on: "screen" });
    expect(screen).toMatch(/answer to hello again\n1 turn · [\d,]+ in \/ \d+ out tokens/);
    t.type("/compact\r");
    screen = await t.waitFor("the compact notice", (s) => s.includes("will be summarized") && idle(s), {
      on: "screen",
    });
    expect(screen).toMatch(/Stopped shell-1 \(echo listening on 3000; sleep 600\): \/compact ends the live session/);

    // Esc interrupts without the Ctrl-C hint (one Ctrl-C after it does not quit).
    t.type("slow please\r");
    await t.waitFor("the slow turn", (s) => /working · \d+s/.test(s), { on: "screen" });
    t.keys("Escape");
    screen = await t.waitFor("the interrupt", (s) => s.includes("interrupted; the session stays") && idle(s), {
      on: "screen",
    });
    expect(screen).not.toContain("Ctrl-C again quits");
    // /model with Claude Code's alias: refused in the words of the terminal, not the kernel's hook.
    t.type("/model sonnet\r");
    screen = await t.waitFor("the /model answer", (s) => s.includes("model unchanged:") && idle(s), { on: "screen" });
    expect(screen).toContain('model unchanged: plugin ubiquity:model: model "sonnet" names no provider');
    expect(screen).not.toContain("hook model.resolve");
    // Claude Code's own commands: what does their work here, not a bare "Unknown command".
    t.type("/bashes\r");
    screen = await t.waitFor(
      "the /bashes answer",
      (s) => s.includes("/bashes is Claude Code's; here: /tasks") && idle(s),
      {
        on: "screen",
      },
    );
    expect(screen).not.toContain("Unknown command /bashes");
    // /help names the keys a Claude Code user looks for.
    t.type("/help\r");
    await t.waitFor("the keys in /help", (s) => s.includes("Keys: Shift-Tab cycles the permission mode"), {
      on: "screen",
    });
    t.keys("C-d");
    expect(await t.exitCode()).toBe(0);
  });
});
