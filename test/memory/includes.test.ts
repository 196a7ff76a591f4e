import { describe, expect, it } from "vitest";
import { blankInlineCode, findIncludes } from "../../plugins/memory/index";

describe("@path references", () => {
  it("are found anywhere in a sentence, ending at whitespace", () => {
    expect(findIncludes("Style rules live in @docs/style.md and the release steps in @docs/release.md")).toEqual([
      "docs/style.md",
      "docs/release.md",
    ]);
    expect(findIncludes("@a.md at the start\n  @b.md indented")).toEqual(["a.md", "b.md"]);
  });

  it("trim trailing sentence punctuation and closing brackets", () => {
    expect(
      findIncludes("See @docs/style.md, then (@docs/release.md). Also [@x.md]; and @y.md! and @z.md?\nEnd: @w.md."),
    ).toEqual(["docs/style.md", "docs/release.md", "x.md", "y.md", "z.md", "w.md"]);
    expect(findIncludes('quoted "@q.md" and {@c.md}')).toEqual(["q.md", "c.md"]);
  });

  it("take `\\ ` as an escaped space", () => {
    expect(findIncludes("Notes in @my\\ notes.md, please")).toEqual(["my notes.md"]);
  });

  it("skip an @ after a letter or digit (emails)", () => {
    expect(findIncludes("Mail me@example.com or team2@corp.io, not @real.md")).toEqual(["real.md"]);
  });

  it("skip fenced blocks (``` and ~~~, closed only by a long enough fence of the same kind)", () => {
    const text = [
      "before @one.md",
      "```md",
      "@fenced.md",
      "~~~",
      "@still-fenced.md",
      "```",
      "between @two.md",
      "~~~~",
      "@tilde.md",
      "```",
      "~~~",
      "@still-tilde.md",
      "~~~~",
      "after @three.md",
    ].join("\n");
    expect(findIncludes(text)).toEqual(["one.md", "two.md", "three.md"]);
    expect(findIncludes("```\n@never-closed.md")).toEqual([]);
  });

  it("skip inline code spans, matching backtick runs by length", () => {
    expect(findIncludes("Write `@path` to include, e.g. @real.md")).toEqual(["real.md"]);
    expect(findIncludes("``code with ` and @inside.md`` then @out.md")).toEqual(["out.md"]);
    expect(findIncludes("an unmatched ` backtick before @kept.md")).toEqual(["kept.md"]);
    expect(blankInlineCode("a `b` c")).toBe("a     c");
  });

  it("ignore a bare @ and punctuation-only references", () => {
    expect(findIncludes("@ alone, @. and @),")).toEqual([]);
  });
});
