/**
 * The terminal UI through a real terminal (tmux), driving the built bin with a scripted model:
 * an Edit's approval shows the diff and the rule "always" adds, a running tool shows its line and
 * a spinner, the answer's markdown is rendered, a multi-line paste is one prompt, type-ahead during
 * a turn is queued as the next prompt, Ctrl-C interrupts and twice quits. Screen captures of the
 * approval, the running tool and the finished turn are written to test/fixtures/snapshots/.
 * Every step waits for what the screen shows (polling, generous bounds), never for time.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, repoRoot, requireDist, tempProject } from "../helpers/project";
import { scriptedProject, type Logged } from "../helpers/scripted-project";
import { inTerminal } from "../helpers/terminal";
import { hasTmux, TmuxTerminal } from "../helpers/tmux";

const ANSWER = [
  "# Done",
  "",
  "I **changed** the file and ran `npm test`:",
  "",
  "- one",
  "- two",
  "",
  "```ts",
  "const x = 1;",
  "```",
  "",
  "That is all.",
].join("\n");

/** A scripted model that answers by the last tool result or the user's last line, logging each request. */
const CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\\n"));
const ANSWER = ${JSON.stringify(ANSWER)};

export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const users = request.prompt.filter((m) => m.role === "user").map(textOf);
    appendFileSync(process.env.UBQ_LOG, JSON.stringify({ system: "", tools: [], users }) + "\\n");
    const last = request.prompt[request.prompt.length - 1];
    const tool = last.role === "tool" ? last.content[0].toolName : undefined;
    if (tool === "Read") return { toolCalls: [{ toolName: "Edit", input: { file_path: "notes.md", old_string: "beta\\n", new_string: "BETA\\ngamma\\n" } }] };
    if (tool === "Edit") return { text: ANSWER, chunkSize: 7 };
    if (tool) return { text: "the tool finished", chunkSize: 5 };
    const said = (users[users.length - 1] ?? "").split("\\n").pop();
    if (said.includes("log")) process.stderr.write("a plugin's log line\\n");
    if (said.includes("ask me")) return { toolCalls: [{ toolName: "AskUserQuestion", input: { questions: [{ question: "Which colour?", header: "Colour", options: [{ label: "red", description: "warm" }, { label: "blue", description: "cold" }] }] } }] };
    if (said.includes("edit")) return { toolCalls: [{ toolName: "Read", input: { file_path: "notes.md" } }] };
    if (said.includes("wait")) return { toolCalls: [{ toolName: "Bash", input: { command: "while [ ! -e release ]; do sleep 0.1; done; seq 1 5", description: "wait for the release file" } }] };
    if (said.includes("slow")) return { text: "slow answer", delayMs: 120000 };
    return { text: "answer to " + said, chunkSize: 3 };
  }),
};
`;

const SNAPSHOTS = join(repoRoot, "test", "fixtures", "snapshots");

/** A capture without what changes from run to run: the project's temp path, seconds, the spinner's frame. */
function normalized(screen: string, dir: string): string {
  return `${screen
    .split(dir)
    .join("<project>")
    .replace(/\b\d+(\.\d+)?s\b/g, "Ns")
    .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, "⠋")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/[\d,]+ (in|out) /g, "N $1 ")
    .replace(/↓ [\d,]+ tokens/g, "↓ N tokens")
    .replace(/· [\d,]+ tokens/g, "· N tokens")}\n`;
}

function snapshot(name: string, screen: string, dir: string): void {
  mkdirSync(SNAPSHOTS, { recursive: true });
  writeFileSync(join(SNAPSHOTS, name), normalized(screen, dir));
}

function project() {
  const dir = tempProject({ "ubiquity.config.ts": CONFIG, "notes.md": "alpha\nbeta\ndelta\n" }, { linkUbiquity: true });
  const log = join(dir, "model.log");
  writeFileSync(log, "");
  const requests = () =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Logged);
  return { dir, env: { UBQ_LOG: log, UBQ_SESSIONS: join(dir, "sessions") }, requests };
}

const terminals: TmuxTerminal[] = [];
const open = (...args: Parameters<typeof TmuxTerminal.start>) => {
  const t = TmuxTerminal.start(...args);
  terminals.push(t);
  return t;
};
afterEach(() => {
  for (const t of terminals.splice(0)) t.close();
});
afterAll(removeTempProjects);
beforeAll(requireDist);

const PROMPT = "›";
/** The UI is idle: the status line is drawn and no spinner runs. */
const idle = (s: string) => s.includes(" mode · ") && !s.includes("Ctrl-C interrupts ·") && !/· \d+s · ↓/.test(s);

describe.skipIf(!hasTmux())("the terminal UI in a real terminal (tmux)", () => {
  it("an Edit's approval shows the diff and the rule; the running tool its line; the answer's markdown is rendered; captures saved", async () => {
    const p = project();
    const t = open(p.dir, ["chat"], p.env);
    await t.waitFor("the prompt and the status line", (s) => s.includes(PROMPT) && s.includes("default mode"), {
      on: "screen",
    });

    t.type("edit the notes\r");
    const approval = await t.waitFor("the Edit approval", (s) => s.includes("Allow Edit?"), { on: "screen" });
    snapshot("tui-approval.txt", approval, p.dir);
    // The call's line, then the diff of the file with line numbers — not the input's JSON.
    expect(approval).toContain("→ Edit(notes.md)");
    expect(approval).toMatch(/ {3}2 - beta/);
    expect(approval).toMatch(/ {3}2 \+ BETA/);
    expect(approval).toMatch(/ {3}3 \+ gamma/);
    expect(approval).toMatch(/ {3}1 {3}alpha/);
    expect(approval).not.toContain('"old_string"');
    expect(approval).toMatch(/\[a\]lways allow Edit\([^)]*notes\.md\)/);
    t.type("a");

    const finished = await t.waitFor(
      "the finished turn",
      (s) => s.includes("That is all.") && /\d+ turns? · /.test(s) && idle(s),
      { on: "screen" },
    );
    snapshot("tui-finished-turn.txt", finished, p.dir);
    expect(readFileSync(join(p.dir, "notes.md"), "utf8")).toBe("alpha\nBETA\ngamma\ndelta\n");
    // Markdown rendered: no heading marks, bold stars, fences or list dashes; code indented under a bar.
    expect(finished).toMatch(/^Done$/m);
    expect(finished).toContain("I changed the file and ran npm test:");
    expect(finished).toMatch(/^• one$/m);
    expect(finished).toMatch(/^│ const x = 1;$/m);
    expect(finished).not.toContain("```");
    expect(finished).not.toContain("**");
    expect(finished).toMatch(/╰ Allow Edit\? always/);

    t.type("now wait\r");
    const bash = await t.waitFor("the Bash approval", (s) => s.includes("Allow Bash?"), { on: "screen" });
    // Bash asks first: the command is shown as a command, with the rules "always" would add.
    expect(bash).toMatch(/\$ while \[ ! -e release \]; do sleep 0\.1; done; seq 1 5/);
    expect(t.history()).toContain(
      "[a]lways allow Bash(sleep:*) (sleep with any arguments), Bash(seq:*) (seq with any arguments) this session",
    );
    // Answered as a word with Enter: "es" and the Enter belong to the answer, not to a next prompt.
    t.type("yes\r");
    const running = await t.waitFor(
      "the running Bash call",
      (s) => s.includes("→ Bash(while") && /Bash\(while[^\n]* · \d+s · ↓/.test(s),
      { on: "screen" },
    );
    snapshot("tui-running-tool.txt", running, p.dir);
    writeFileSync(join(p.dir, "release"), "");
    const after = await t.waitFor("the tool's output and answer", (s) => s.includes("the tool finished") && idle(s), {
      on: "screen",
    });
    // A few lines of the output under the call, the rest counted.
    expect(after).toMatch(/⎿ 1\n\s+2\n\s+3\n\s+… \+2 lines/);

    expect(p.requests().flatMap((r) => r.users)).not.toContain("es");
    t.type("/exit\r");
    expect(await t.exitCode()).toBe(0);
  }, 120_000);

  it("a pasted multi-line block is one prompt; type-ahead during a turn runs next and is not echoed into the answer", async () => {
    const p = project();
    const t = open(p.dir, ["chat"], p.env);
    await t.waitFor("the prompt", (s) => s.includes(PROMPT) && s.includes("default mode"), { on: "screen" });

    const block = "first line of the paste\n\nthird line\n  indented fourth\nlast line";
    t.paste(block);
    await t.waitFor("the pasted text in the editor", (s) => s.includes("indented fourth"), { on: "screen" });
    t.type("\r");
    await t.waitFor("the answer to the paste", (s) => s.includes("answer to last line") && idle(s), { on: "screen" });
    expect(p.requests()).toHaveLength(1);
    expect(p.requests()[0]!.users).toEqual([block]);

    // Typed on several lines: a backslash before Enter, and Alt-Enter, continue the prompt.
    t.type("typed one\\\r");
    await t.waitFor("the second editor line", (s) => /^› typed one\n\s*$/m.test(s) || /^› typed one$/m.test(s), {
      on: "screen",
    });
    t.type("typed two");
    t.keys("M-Enter");
    t.type("typed three\r");
    await t.waitFor("the answer to the typed lines", (s) => s.includes("answer to typed three") && idle(s), {
      on: "screen",
    });
    expect(p.requests().at(-1)!.users.at(-1)).toBe("typed one\ntyped two\ntyped three");

    t.type("now wait\r");
    await t.waitFor("the running Bash call's approval", (s) => s.includes("Allow Bash?"), { on: "screen" });
    t.type("y");
    await t.waitFor("the running Bash call", (s) => /Bash\(while[^\n]* · \d+s · ↓/.test(s), { on: "screen" });
    t.type("typed ahead\r");
    await t.waitFor("the queued prompt", (s) => s.includes("↳ queued: typed ahead"), { on: "screen" });
    writeFileSync(join(p.dir, "release"), "");
    await t.waitFor("the queued prompt's answer", (s) => s.includes("answer to typed ahead") && idle(s), {
      on: "screen",
    });
    const users = p.requests().at(-1)!.users;
    expect(users.at(-1)).toBe("typed ahead");
    expect(users).toContain("now wait");
    // The answer to the waiting turn came before the queued prompt was sent, and no typed text landed in it.
    const history = t.history();
    expect(history.indexOf("the tool finished")).toBeLessThan(history.lastIndexOf("› typed ahead"));
    expect(history).not.toMatch(/the tool finished.*typed/);
    t.keys("C-d");
    expect(await t.exitCode()).toBe(0);
  }, 120_000);

  it("a line another part of the program writes to the terminal goes above the live region, which stays whole", async () => {
    const p = project();
    const t = open(p.dir, ["chat"], p.env);
    await t.waitFor("the prompt", (s) => s.includes(PROMPT) && s.includes("default mode"), { on: "screen" });
    t.type("log something\r");
    const screen = await t.waitFor("the answer", (s) => s.includes("answer to log something") && idle(s), {
      on: "screen",
    });
    const lines = screen.split("\n");
    expect(lines.filter((l) => l.includes("default mode ·"))).toHaveLength(1);
    expect(lines.at(-1)).toContain("default mode ·");
    expect(lines.indexOf("a plugin's log line")).toBeGreaterThan(lines.indexOf("› log something"));
    expect(lines.indexOf("a plugin's log line")).toBeLessThan(lines.indexOf("answer to log something"));
    // A narrower terminal: the region is drawn again once, not left behind in pieces.
    t.type("a prompt being typed that is long enough to wrap in a narrow terminal");
    await t.waitFor("the typed text", (s) => s.includes("narrow terminal"), { on: "screen" });
    t.resize(50, 30);
    const narrow = await t.waitFor(
      "the redrawn region",
      (s) => s.split("\n").at(-1)!.includes("mode ·") && s.includes("narrow terminal"),
      { on: "screen" },
    );
    expect(narrow.split("\n").filter((l) => l.includes("default mode"))).toHaveLength(1);
    expect(narrow.split("\n").filter((l) => l.startsWith("› a prompt being typed"))).toHaveLength(1);
    t.keys("C-u");
    t.type("/exit\r");
    expect(await t.exitCode()).toBe(0);
  }, 120_000);

  it("a tool's own question (AskUserQuestion) is asked in the prompt line and answered there", async () => {
    const p = project();
    const t = open(p.dir, ["chat"], p.env);
    await t.waitFor("the prompt", (s) => s.includes(PROMPT) && s.includes("default mode"), { on: "screen" });
    t.type("ask me\r");
    await t.waitFor(
      "the question",
      (s) => s.includes("Which colour?") && s.includes("2. blue — cold") && s.includes("Pick a number"),
      { on: "screen" },
    );
    t.type("2\r");
    await t.waitFor("the answer", (s) => s.includes("the tool finished") && idle(s), { on: "screen" });
    t.type("/exit\r");
    expect(await t.exitCode()).toBe(0);
  }, 120_000);

  it("Ctrl-C (or Esc) interrupts the turn and the session stays; the next prompt runs next; Ctrl-C twice quits", async () => {
    const p = project();
    const t = open(p.dir, ["chat"], p.env);
    await t.waitFor("the prompt", (s) => s.includes(PROMPT) && s.includes("default mode"), { on: "screen" });
    t.type("be slow\r");
    await t.waitFor("the slow request", () => p.requests().some((r) => r.users.at(-1) === "be slow"));
    await t.waitFor("the spinner", (s) => /working · \d+s · ↓/.test(s), { on: "screen" });
    t.keys("C-c");
    await t.waitFor("the interrupt", (s) => s.includes("interrupted; the session stays") && idle(s), { on: "screen" });
    t.type("after the interrupt\r");
    await t.waitFor("the next answer", (s) => s.includes("answer to after the interrupt") && idle(s), { on: "screen" });
    expect(p.requests().at(-1)!.users.at(-1)).toMatch(/after the interrupt$/);
    // Esc interrupts too.
    t.type("be slow again\r");
    await t.waitFor("the second slow request", () => p.requests().some((r) => r.users.at(-1) === "be slow again"));
    await t.waitFor("the spinner", (s) => /working · \d+s · ↓/.test(s), { on: "screen" });
    t.keys("Escape");
    await t.waitFor("the second interrupt", (s) => s.split("interrupted; the session stays").length === 3 && idle(s), {
      on: "screen",
    });
    t.keys("C-c");
    await t.waitFor("the quit hint", (s) => s.includes("Ctrl-C again quits"), { on: "screen" });
    t.keys("C-c");
    expect(await t.exitCode()).toBe(0);
  }, 120_000);

  it("ubiquity run with a prompt in a terminal: the Edit's approval shows the diff too (no JSON), and y applies it", async () => {
    const p = project();
    const t = open(p.dir, ["run", "edit the notes"], p.env);
    const approval = await t.waitFor("the Edit approval", (s) => s.includes("Allow Edit?"), { on: "screen" });
    expect(approval).toMatch(/ {3}2 - beta\n {3}2 \+ BETA\n {3}3 \+ gamma/);
    // The question names the tool and the rule; the input is not dumped as JSON.
    expect(approval).toContain(
      "Allow Edit? [y]es / [n]o / [a]lways allow Edit(./notes.md) (only this path) this session:",
    );
    expect(approval).not.toContain('{"file_path"');
    t.type("y\r");
    expect(await t.exitCode()).toBe(0);
    expect(readFileSync(join(p.dir, "notes.md"), "utf8")).toBe("alpha\nBETA\ngamma\ndelta\n");
  }, 120_000);
});

describe.skipIf(!existsSync("/usr/bin/script"))("the terminal UI under script(1)", () => {
  it("several lines written in one go (no bracketed paste) are one prompt; a line feed sends like Enter", async () => {
    const p = project();
    const { code, screen } = await inTerminal(p.dir, ["chat"], p.env, [
      { until: (s) => s.includes("default mode"), type: "alpha\nbeta\ngamma\n" },
      { until: (s) => s.includes("answer to gamma"), type: "single line\n" },
      { until: (s) => s.includes("answer to single line"), type: "/exit\r" },
    ]);
    expect(code, screen).toBe(0);
    expect(p.requests().map((r) => r.users.at(-1))).toEqual(["alpha\nbeta\ngamma", "single line"]);
  }, 120_000);
});

describe.skipIf(!hasTmux())("the plain line mode", () => {
  it("UBIQUITY_TUI=0 keeps the readline terminal mode (no live region, no status line)", async () => {
    const p = project();
    const t = open(p.dir, ["chat"], { ...p.env, UBIQUITY_TUI: "0" });
    await t.waitFor("the prompt", (s) => /^› ?$/m.test(s), { on: "screen" });
    t.type("hello\r");
    const screen = await t.waitFor("the answer", (s) => s.includes("answer to hello") && /\d+ turns? · /.test(s), {
      on: "screen",
    });
    expect(screen).not.toContain("default mode ·");
    t.type("/exit\r");
    expect(await t.exitCode()).toBe(0);
  }, 120_000);
});

describe("without a terminal nothing changes", () => {
  it("ubiquity run with piped output prints plain text: no escape sequences, no spinner, no status line", async () => {
    const p = scriptedProject();
    const out = await p.run(["say hi"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("answer to say hi");
    expect(out.stdout + out.stderr).not.toMatch(/\x1b\[/);
    expect(out.stderr).not.toContain("mode ·");
  });
});

describe("the terminal UI is loaded only in terminal mode", () => {
  it("the runner's entry does not import the UI's chunk (cold start of ubiquity run -p)", () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, "utf8");
      // Static imports only: `import … from "./x.mjs"` and bare `import "./x.mjs"`.
      for (const m of code.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm))
        visit(join(file, "..", m[1]!));
    };
    visit(join(repoRoot, "dist", "runner", "cli.mjs"));
    expect(seen.size).toBeGreaterThan(3);
    // The UI is built, and reached from the runner only through a dynamic import.
    const ui = join(repoRoot, "dist", "chunks", "tui.mjs");
    expect(readFileSync(ui, "utf8")).toMatch(/function runTerminalUI/);
    expect([...seen].filter((f) => /function (runTerminalUI|approvalBody)\b/.test(readFileSync(f, "utf8")))).toEqual(
      [],
    );
  });
});
