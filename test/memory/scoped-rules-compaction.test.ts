/**
 * A path-scoped rule (`.claude/rules/*.md` with `paths:`) comes with the first tool result of a
 * file it covers, once. When microcompaction clears that result, the rule has left the
 * conversation: the next file it covers brings it again (compat survey v's open item).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { CLEARED_MARKER } from "../../plugins/compaction-micro/index";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

const RULE = "# Go tests\nName every table test case.";
const BIG = `${"x".repeat(99)}\n`.repeat(200); // ~5k tokens a file

function project(): string {
  const dir = temp("ubq-scoped-rules-");
  mkdirSync(join(dir, ".claude", "rules"), { recursive: true });
  writeFileSync(join(dir, ".claude", "rules", "go-tests.md"), `---\npaths: ["**/*_test.go"]\n---\n${RULE}\n`);
  for (const name of ["a_test.go", "b.txt", "c.txt", "d_test.go"]) writeFileSync(join(dir, name), `${name}\n${BIG}\n`);
  return dir;
}

const read = (file: string) => ({ toolCalls: [{ toolName: "Read", input: { file_path: file } }] });
const count = (text: string, what: string) => text.split(what).length - 1;

async function run(maxContextTokens: number) {
  const dir = project();
  const model = scriptedModel([
    { ...read("a_test.go"), usage: { inputTokens: 1_000, outputTokens: 5 } },
    { ...read("b.txt"), usage: { inputTokens: 7_000, outputTokens: 5 } },
    { ...read("c.txt"), usage: { inputTokens: 19_000, outputTokens: 5 } },
    { ...read("d_test.go"), usage: { inputTokens: 25_000, outputTokens: 5 } },
    { text: "done", usage: { inputTokens: 25_000, outputTokens: 5 } },
  ]);
  const messages = await collect(
    summon("read them", {
      model,
      cwd: dir,
      memorySources: ["project"],
      compat: ["claude"],
      maxContextTokens,
      microcompactKeepRecent: 1,
      autoCompact: false,
      persistSession: false,
      marketPricing: false,
      sandbox: false,
    }),
  );
  expect(resultOf(messages).isError, resultOf(messages).result).toBe(false);
  return model.requests.map((r) => JSON.stringify(r.prompt));
}

describe("a path-scoped rule and microcompaction", () => {
  it("comes again with the next file it covers once the result that carried it was cleared", async () => {
    const requests = await run(30_000);
    const last = requests.at(-1)!;
    // The first Read's result (with the rule) was cleared...
    expect(last).toContain(CLEARED_MARKER);
    // ...and d_test.go's result brought the rule back: the model has it once.
    expect(count(last, "Name every table test case.")).toBe(1);
    expect(last).toContain("applies to d_test.go");
  });

  it("comes once when nothing was cleared (the control)", async () => {
    const requests = await run(1_000_000);
    const last = requests.at(-1)!;
    expect(last).not.toContain(CLEARED_MARKER);
    expect(count(last, "Name every table test case.")).toBe(1);
    expect(last).toContain("applies to a_test.go");
    expect(last).not.toContain("applies to d_test.go");
  });
});
