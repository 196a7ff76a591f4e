/**
 * Grep's pure-Node backend (used where no ripgrep binary runs) matches in a worker thread: the
 * model's pattern runs on JavaScript's backtracking engine, and `^(a|a)*$` over a line of 40 a's
 * and a "!" runs for hours. On the process's own thread it froze every session and timer, the
 * call's own abort included (red team x, left open): the call's abort now stops it, and so does
 * the search's time limit, with a message naming the cause.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GrepTool } from "../../plugins/tool-grep/index";
import { searchWithNode } from "../../plugins/tool-grep/node-backend";
import { suiteDir, toolContext } from "./helpers";

const BACKTRACKS = "^(a|a)*$";
const dir = suiteDir("ubiquity-grep-backtracking-", (root) => {
  writeFileSync(join(root, "input.txt"), `plain line\n${"a".repeat(40)}!\n`);
  writeFileSync(join(root, "other.txt"), "aaa\n");
});

describe("Grep (Node backend) with a pattern that backtracks", () => {
  it("is stopped by the call's abort: the process's thread stays free to deliver it", async () => {
    const controller = new AbortController();
    // Fired by this thread's timers: with the matching on this thread it never fired.
    setTimeout(() => controller.abort(), 100);
    const out = await new GrepTool({ backend: "node" }).call(
      { pattern: BACKTRACKS, output_mode: "content" },
      toolContext(dir(), { abortSignal: controller.signal }),
    );
    expect(out.isError).toBe(true);
    expect(out.content).toContain("The search was aborted.");
  });

  it("is given up at the search's time limit, naming the pattern as the likely cause", async () => {
    const query = {
      pattern: BACKTRACKS,
      target: dir(),
      targetIsFile: false,
      mode: "content" as const,
      ignoreCase: false,
      multiline: false,
      before: 0,
      after: 0,
    };
    await expect(searchWithNode(query, undefined, 200)).rejects.toThrow(
      /ran for more than 0.2 s and was given up: the regular expression backtracks/,
    );
  });

  it("still finds what a plain pattern matches (the worker answers every file)", async () => {
    const out = await new GrepTool({ backend: "node" }).call(
      { pattern: "^a+$", output_mode: "count" },
      toolContext(dir()),
    );
    expect(out.isError).toBeFalsy();
    expect(out.content).toContain("other.txt:1");
  });
});
