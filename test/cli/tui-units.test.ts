/**
 * The terminal UI's pieces without a terminal: the key decoder (bracketed paste split over reads,
 * escape sequences), the editor, streamed markdown, the line diff, the approval's body and the
 * tool line, and the inline screen's redraw accounting.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { approvalBody, approvalQuestion } from "../../runner/tui/approval-view";
import { diffLines, hunks } from "../../runner/tui/diff";
import { Editor } from "../../runner/tui/editor";
import { KeyDecoder, type Key } from "../../runner/tui/keys";
import { liveView, type LiveState } from "../../runner/tui/live-view";
import { MarkdownStream, renderInline } from "../../runner/tui/markdown";
import { InlineScreen, visibleWidth } from "../../runner/tui/screen";
import { createTheme } from "../../runner/tui/theme";
import { keyArgument, toolOutputLines } from "../../runner/tui/tool-view";

const plain = createTheme(false);

describe("KeyDecoder", () => {
  it("a bracketed paste is one key with its newlines, also when it arrives in pieces and its markers are split", () => {
    const d = new KeyDecoder();
    const keys: Key[] = [];
    for (const chunk of ["ab\x1b[20", "0~line one\r\nline", " two\nthree\x1b[2", "01~\r"]) keys.push(...d.feed(chunk));
    expect(keys).toEqual([
      { name: "text", text: "ab" },
      { name: "paste", text: "line one\nline two\nthree" },
      { name: "enter" },
    ]);
  });

  it("several lines in one read without bracketed paste are a paste, not several prompts", () => {
    expect(new KeyDecoder().feed("one\rtwo\rthree")).toEqual([{ name: "paste", text: "one\ntwo\nthree" }]);
    // The line end closing such a read is the Enter that sends it.
    expect(new KeyDecoder().feed("one\ntwo\n")).toEqual([{ name: "paste", text: "one\ntwo" }, { name: "enter" }]);
    // A line typed and sent in one read is text and Enter.
    expect(new KeyDecoder().feed("hello\r")).toEqual([{ name: "text", text: "hello" }, { name: "enter" }]);
    expect(new KeyDecoder().feed("hello\n")).toEqual([{ name: "text", text: "hello" }, { name: "enter" }]);
  });

  it("names control keys and escape sequences; Alt-Enter and Shift-Enter add a line", () => {
    const keys = new KeyDecoder().feed("\x1b[A\x1b[D\x03\x04\x1b\r\x1b[13;2u\x7f\x1b[3~\x1b[1;5C");
    expect(keys.map((k) => k.name)).toEqual([
      "up",
      "left",
      "ctrl-c",
      "ctrl-d",
      "newline",
      "newline",
      "backspace",
      "delete",
      "wordRight",
    ]);
    expect(new KeyDecoder().feed("\x1b")).toEqual([{ name: "escape" }]);
  });
});

describe("Editor", () => {
  it("edits a multi-line buffer and recalls sent prompts with Up/Down", () => {
    const e = new Editor();
    e.apply({ name: "text", text: "hello" });
    e.apply({ name: "newline" });
    e.apply({ name: "text", text: "world" });
    expect(e.position()).toEqual({ line: 1, column: 5 });
    e.apply({ name: "up" });
    expect(e.position()).toEqual({ line: 0, column: 5 });
    e.apply({ name: "ctrl-w" });
    expect(e.text).toBe("\nworld");
    expect(e.take()).toBe("\nworld");
    expect(e.text).toBe("");
    e.apply({ name: "text", text: "draft" });
    e.apply({ name: "up" });
    expect(e.text).toBe("\nworld");
    e.apply({ name: "down" });
    expect(e.text).toBe("draft");
  });
});

describe("markdown", () => {
  it("renders complete lines as they stream and keeps the unfinished one back", () => {
    const md = new MarkdownStream(plain);
    expect(md.push("# Ti")).toEqual([]);
    expect(md.partial).toBe("# Ti");
    expect(md.push("tle\n\nSome **bold** and `code`.\n- a\n1. b\n```js\nlet x = '**';\n```\n> quoted\nend")).toEqual([
      "Title",
      "",
      "Some bold and `code`.",
      "• a",
      "1. b",
      "│ let x = '**';",
      "┃ quoted",
    ]);
    expect(md.end()).toEqual(["end"]);
  });

  it("with colours, code spans lose their backticks and are styled; links show their address", () => {
    const coloured = createTheme(true);
    const out = renderInline("run `npm test` see [docs](https://x.dev)", coloured);
    expect(out).not.toContain("`");
    expect(out.replace(/\x1b\[[0-9;]*m/g, "")).toBe("run npm test see docs (https://x.dev)");
  });
});

describe("diff", () => {
  it("removed lines come before added ones, numbered, with context around each change", () => {
    const lines = diffLines("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\ng\nh\n");
    expect(hunks(lines, 1).map((l) => (l ? `${l.kind}${l.line} ${l.text}` : "…"))).toEqual([
      " 2 b",
      "-3 c",
      "+3 C",
      " 4 d",
      "…",
      " 7 g",
      "+8 h",
    ]);
  });
});

describe("approval body", () => {
  const dir = mkdtempSync(join(tmpdir(), "ubq-tui-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n");

  it("Write of an existing file: the diff against it; of a new file: its lines added", () => {
    const existing = approvalBody("Write", { file_path: join(dir, "a.txt"), content: "one\n2\nthree\n" }, dir, plain);
    expect(existing[0]).toBe("Write a.txt (+1 −1)");
    expect(existing).toContain("   2 - two");
    expect(existing).toContain("   2 + 2");
    const fresh = approvalBody("Write", { file_path: "new.txt", content: "x\ny\n" }, dir, plain);
    expect(fresh).toEqual(["Write new.txt (new file, 2 lines)", "   1 + x", "   2 + y"]);
  });

  it("Edit: the file as it would be; Bash: the command; other tools: fields, no JSON", () => {
    const edit = approvalBody("Edit", { file_path: "a.txt", old_string: "two", new_string: "TWO" }, dir, plain);
    expect(edit).toEqual(["Edit a.txt (+1 −1)", "   1   one", "   2 - two", "   2 + TWO", "   3   three"]);
    expect(approvalBody("Bash", { command: "npm test\nnpm run lint" }, dir, plain)).toEqual([
      "Bash",
      "$ npm test",
      "  npm run lint",
    ]);
    expect(approvalBody("WebFetch", { url: "https://x.dev", prompt: "summarize" }, dir, plain)).toEqual([
      "WebFetch",
      "url: https://x.dev",
      "prompt: summarize",
    ]);
    expect(approvalQuestion("Bash", { command: "npm test" }, ["Bash(npm test)"])).toBe(
      "Allow Bash? [y]es / [n]o / [a]lways allow Bash(npm test) (exactly this command) this session",
    );
    expect(approvalQuestion("Write", { file_path: "/etc/x" }, [])).toBe("Allow Write? [y]es / [n]o");
  });
});

describe("tool line", () => {
  it("shows the key argument: the command, a path relative to the folder, the pattern", () => {
    expect(keyArgument("Bash", { command: "npm test", description: "tests" }, "/p")).toBe("npm test");
    expect(keyArgument("Read", { file_path: "/p/src/a.ts" }, "/p")).toBe("src/a.ts");
    expect(keyArgument("Grep", { pattern: "TODO", path: "/p/src" }, "/p")).toBe("TODO in src");
    expect(keyArgument("TodoWrite", { todos: [{}, {}] }, "/p")).toBe("2 todos");
  });

  it("shows the first lines of the output and counts the rest", () => {
    expect(toolOutputLines("1\n2\n3\n4\n5\n", false, plain, 80)).toEqual(["  ⎿ 1", "    2", "    3", "    … +2 lines"]);
    expect(toolOutputLines("", false, plain, 80)).toEqual(["  ⎿ (no output)"]);
  });
});

describe("InlineScreen", () => {
  it("erases exactly the rows its live region took (wrapped lines counted) before printing above it", () => {
    let out = "";
    const screen = new InlineScreen(
      (t) => (out += t),
      () => 10,
    );
    screen.update({ lines: ["x".repeat(25), "status"] }); // 3 rows + 1 row
    out = "";
    screen.print("done");
    // Back to the top of the 4 rows (the cursor was on the last), clear, print, draw again.
    expect(out.startsWith("\r\x1b[3A\x1b[J" + "done\r\n")).toBe(true);
    expect(visibleWidth("\x1b[1mab\x1b[0m漢")).toBe(4);
  });
});

describe("the live region", () => {
  const base: LiveState = {
    partial: "",
    queue: [],
    editor: { text: "", line: 0, column: 0 },
    status: { model: "openai:gpt-5", mode: "default", costUsd: 0.0123, tokens: 14210 },
    notice: "",
    frame: 0,
    now: 10_000,
  };

  it("idle: the prompt and the status line (model, mode, cost, tokens), the cursor after the marker", () => {
    expect(liveView(base, plain, 80)).toEqual({
      lines: ["› ", "openai:gpt-5 · default mode · $0.0123 · 14,210 tokens"],
      cursor: { line: 0, column: 2 },
    });
  });

  it("during a turn: the streamed line, the spinner with the running tool, seconds and tokens, the queue; one row each", () => {
    const view = liveView(
      {
        ...base,
        partial: "Half a li",
        turn: { started: 7_000, streamed: 400, phase: "writing", tool: "Bash(npm test)" },
        queue: ["next one", "two\nlines"],
        editor: { text: "typing", line: 0, column: 6 },
      },
      plain,
      80,
    );
    expect(view.lines).toEqual([
      "Half a li",
      "⠋ Bash(npm test) · 3s · ↓ 100 tokens · Ctrl-C interrupts",
      "↳ queued: next one",
      "↳ queued: two (+1 lines)",
      "› typing",
      "openai:gpt-5 · default mode · $0.0123 · 14,210 tokens",
    ]);
    expect(view.cursor).toEqual({ line: 4, column: 8 });
    const narrow = liveView(
      { ...base, turn: { started: 0, streamed: 0, phase: "working", tool: `Bash(${"x".repeat(200)})` } },
      plain,
      60,
    );
    expect(narrow.lines.every((l) => visibleWidth(l) < 60)).toBe(true);
  });

  it("an approval: its question, no cursor; a long prompt scrolls with counts above and below", () => {
    const approval = liveView(
      {
        ...base,
        turn: { started: 0, streamed: 0, phase: "working" },
        question: { kind: "approval", text: "Allow Bash? [y]es / [n]o" },
      },
      plain,
      80,
    );
    expect(approval.lines[0]).toMatch(/waiting for your answer/);
    expect(approval.lines[1]).toBe("Allow Bash? [y]es / [n]o");
    expect(approval.cursor).toBeUndefined();
    const text = Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n");
    const long = liveView({ ...base, editor: { text, line: 10, column: 1 } }, plain, 80);
    expect(long.lines.slice(0, 2)).toEqual(["  … 3 lines above", "  l3"]);
    expect(long.lines.at(-2)).toBe("  … 9 lines below");
  });
});

describe("InlineScreen after a resize", () => {
  it("erases the rows the region takes once re-wrapped to the new width", () => {
    let out = "";
    let cols = 40;
    const screen = new InlineScreen(
      (t) => (out += t),
      () => cols,
    );
    screen.update({ lines: ["x".repeat(30), "status"] }); // 2 rows at 40 columns
    cols = 20; // the 30-character line now takes 2 rows: 3 in all
    out = "";
    screen.resized();
    screen.update({ lines: ["x".repeat(30), "status"] });
    expect(out.startsWith("\r\x1b[2A\x1b[J")).toBe(true);
  });
});
