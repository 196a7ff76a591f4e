import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlAppender, parseJsonl } from "../../plugins/sessions/jsonl";
import { tempDirs } from "./helpers";

const temp = tempDirs();

describe("JSONL", () => {
  it("parse skips a torn or corrupt line and keeps the rest; only the middle one counts as corrupt", () => {
    expect(parseJsonl('{"a":1}\n{"b":\n\n{"c":3}\n{"d"')).toEqual({
      values: [{ a: 1 }, { c: 3 }],
      lines: [1, 4],
      skipped: 2,
      corrupt: [2],
    });
  });

  it("appends one line per value, creating folders", () => {
    const path = join(temp(), "deep", "x.jsonl");
    const file = new JsonlAppender(path);
    expect(file.open()).toBeUndefined();
    file.append({ n: 1 });
    file.append({ n: 2, text: "line\nbreak" });
    file.close();
    expect(readFileSync(path, "utf8")).toBe('{"n":1}\n{"n":2,"text":"line\\nbreak"}\n');
  });

  it("cuts a torn tail before the first append and returns the last complete record", () => {
    const path = join(temp(), "x.jsonl");
    writeFileSync(path, '{"n":1}\n{"n":2}\n{"n":3,"tor');
    const file = new JsonlAppender(path);
    expect(file.open()).toEqual({ n: 2 });
    file.append({ n: 4 });
    file.close();
    expect(readFileSync(path, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":4}\n');
  });

  it("a file that is one torn line is emptied; a long last line is found across chunks", () => {
    const dir = temp();
    const torn = join(dir, "torn.jsonl");
    writeFileSync(torn, '{"only":"tor');
    const a = new JsonlAppender(torn);
    expect(a.open()).toBeUndefined();
    a.append({ ok: true });
    a.close();
    expect(readFileSync(torn, "utf8")).toBe('{"ok":true}\n');

    const long = join(dir, "long.jsonl");
    const big = { text: "y".repeat(200_000) };
    writeFileSync(long, `{"first":1}\n${JSON.stringify(big)}\n${"z".repeat(100_000)}`);
    const b = new JsonlAppender(long);
    expect(b.open()).toEqual(big);
    b.close();
    expect(readFileSync(long, "utf8")).toBe(`{"first":1}\n${JSON.stringify(big)}\n`);
  });
});
