import { describe, expect, it } from "vitest";
import { GrepTool } from "../../plugins/tool-grep/index";
import { writeCorpus } from "./grep-corpus";
import { suiteDir, toolContext } from "./helpers";

type Input = Parameters<GrepTool["call"]>[0];

const QUERIES: Input[] = [
  { pattern: "TODO" },
  { pattern: "TODO", output_mode: "content" },
  { pattern: "TODO", output_mode: "count" },
  { pattern: "todo", "-i": true, output_mode: "content" },
  { pattern: "foo", output_mode: "content", "-C": 1 },
  { pattern: "foo", output_mode: "content", "-A": 2, "-B": 1 },
  { pattern: "function\\s+\\w+", output_mode: "content" },
  { pattern: "\\bTODO\\b", output_mode: "content", "-n": false },
  { pattern: "TODO", glob: "*.ts" },
  { pattern: "TODO", glob: "!*.test.ts", output_mode: "content" },
  { pattern: "TODO", glob: "src/**/*.ts" },
  { pattern: "TODO", glob: "*.{js,md}" },
  { pattern: "TODO", glob: "*.log" },
  { pattern: "TODO", type: "ts" },
  { pattern: "TODO", type: "md" },
  { pattern: "TODO", type: "make" },
  { pattern: "foo\\nbar", multiline: true, output_mode: "content" },
  { pattern: "foo\\nbar", multiline: true, output_mode: "count" },
  { pattern: "start.*?end", multiline: true, output_mode: "content" },
  { pattern: "TODO", path: "src" },
  { pattern: "TODO", path: "src", output_mode: "content" },
  { pattern: "foo", path: "src/app.ts", output_mode: "content", "-B": 2 },
  { pattern: "TODO", path: "build/out.ts", output_mode: "content" },
  { pattern: "TODO", path: "src/app.ts", glob: "*.md" },
  { pattern: "^end$", output_mode: "content" },
  { pattern: "end$", output_mode: "content" },
  { pattern: "caf.|Über", output_mode: "content" },
  { pattern: "(?<=foo )again", output_mode: "content" },
  { pattern: "nothing matches this" },
  { pattern: "^", output_mode: "count" },
  { pattern: "TODO wide", output_mode: "content" },
];

const corpus = suiteDir("ubiquity-grep-backends-", writeCorpus);

describe("Grep backends", () => {
  const rg = new GrepTool({ backend: "rg" });
  const node = new GrepTool({ backend: "node" });
  it.each(QUERIES.map((q) => [JSON.stringify(q), q] as const))("ripgrep and Node agree: %s", async (_name, query) => {
    const ctx = toolContext(corpus());
    const [a, b] = [await rg.call(query, ctx), await node.call(query, ctx)];
    expect(a.metadata?.backend).toBe("rg");
    expect(b.metadata?.backend).toBe("node");
    expect(b.content).toBe(a.content);
    expect(b.isError).toBe(a.isError);
  });
});
