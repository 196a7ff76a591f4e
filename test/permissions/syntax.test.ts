/**
 * The analysis reads a plain copy of each syntax tree (plugins/permissions/shell/syntax.ts)
 * instead of web-tree-sitter's nodes. The copy must answer every question the analysis asks
 * exactly as the nodes do, on every node: checked here on thousands of parsed commands —
 * generated ones, the same cut short (unclosed quotes, missing tokens, ERROR nodes), the
 * adversarial cases, and non-ASCII text (offsets are UTF-16 code units, not UTF-8 bytes).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Node } from "web-tree-sitter";
import { loadShellParser, parseShell } from "../../plugins/permissions/shell/parser";
import { readTree } from "../../plugins/permissions/shell/read-tree";
import { FIELD_LOOKUPS, type SyntaxNode } from "../../plugins/permissions/shell/syntax";
import { joinContinuations } from "../../plugins/permissions/shell/continuations";
import { CASES } from "./adversarial-cases";
import { generateMany, Random } from "./differential/generator";

beforeAll(() => loadShellParser());

// The fields analyze.ts passes to childrenForFieldName (the copy labels children as the cursor does, like it).
const FIELD_LISTS = ["redirect", "argument", "name"];
// The type lists analyze.ts passes to descendantsOfType.
const DESCENDANT_QUERIES = [["word"], ["test_operator"], ["variable_name", "simple_expansion", "expansion", "word"]];

const brief = (n: Node | SyntaxNode | null) => (n ? `${n.type}@${n.startIndex}-${n.endIndex}` : null);

/** Every difference between a tree's nodes and their copies, as readable lines. */
function differences(root: Node, rootCopy: SyntaxNode): string[] {
  const out: string[] = [];
  const stack: [Node, SyntaxNode, string][] = [[root, rootCopy, "root"]];
  while (stack.length > 0) {
    const [real, copy, path] = stack.pop()!;
    const same = (what: string, a: unknown, b: unknown) => {
      if (JSON.stringify(a) !== JSON.stringify(b))
        out.push(`${path} ${what}: node ${JSON.stringify(a)}, copy ${JSON.stringify(b)}`);
    };
    same("type", real.type, copy.type);
    same("isNamed", real.isNamed, copy.isNamed);
    same("isMissing", real.isMissing, copy.isMissing);
    same("range", [real.startIndex, real.endIndex], [copy.startIndex, copy.endIndex]);
    same("childCount", real.childCount, copy.childCount);
    same("firstChild", brief(real.firstChild), brief(copy.firstChild));
    same("firstNamedChild", brief(real.firstNamedChild), brief(copy.firstNamedChild));
    same("namedChildren", real.namedChildren.map(brief), copy.namedChildren.map(brief));
    for (let i = 0; i < real.childCount; i++)
      same(`fieldNameForChild(${i})`, real.fieldNameForChild(i), copy.fieldNameForChild(i));
    for (const f of FIELD_LISTS)
      same(
        `childrenForFieldName(${f})`,
        real.childrenForFieldName(f).map(brief),
        copy.childrenForFieldName(f).map(brief),
      );
    for (const f of FIELD_LOOKUPS[real.type] ?? [])
      same(`childForFieldName(${f})`, brief(real.childForFieldName(f)), brief(copy.childForFieldName(f)));
    // (bounded: on the long adversarial chains this would be quadratic)
    if (real.endIndex - real.startIndex < 400) {
      same("text", real.text, copy.text);
      for (const types of DESCENDANT_QUERIES)
        same(
          `descendantsOfType(${types})`,
          real.descendantsOfType(types).map(brief),
          copy.descendantsOfType(types).map(brief),
        );
    }
    const children = real.children;
    for (let i = Math.min(children.length, copy.children.length) - 1; i >= 0; i--)
      stack.push([children[i]!, copy.children[i]!, `${path.split("/").slice(-3).join("/")}/${i}:${children[i]!.type}`]);
  }
  return out;
}

function check(source: string): string[] {
  const tree = parseShell(source);
  try {
    return differences(tree.rootNode, readTree(tree, source).root)
      .slice(0, 5)
      .map((d) => `${JSON.stringify(source)}: ${d}`);
  } finally {
    tree.delete();
  }
}

describe("the syntax tree copy answers as web-tree-sitter's nodes do", () => {
  it("on 1,500 generated commands, each also cut short and with its line continuations joined", {
    timeout: 300_000,
  }, () => {
    const rng = new Random(4242);
    const failures: string[] = [];
    let trees = 0;
    for (const s of generateMany(1500, 16016)) {
      const cut = s.slice(0, 1 + rng.int(s.length));
      for (const source of [s, cut, joinContinuations(s).text]) {
        failures.push(...check(source));
        trees++;
      }
    }
    expect(trees).toBe(4500);
    expect(failures.slice(0, 20)).toEqual([]);
  });

  it("looks up only the fields the analysis asks for (others would need web-tree-sitter's field maps)", () => {
    const tree = parseShell("[[ a == b ]]");
    try {
      const test = readTree(tree, "[[ a == b ]]").root.namedChildren[0]!;
      expect(test.type).toBe("test_command");
      expect(() => test.childForFieldName("left")).toThrow(/FIELD_LOOKUPS/);
    } finally {
      tree.delete();
    }
  });

  it("on the adversarial commands", { timeout: 300_000 }, () => {
    const failures = CASES.filter((c) => (c.tool ?? "Bash") === "Bash").flatMap((c) => check(c.input));
    expect(failures).toEqual([]);
  });

  it("on non-ASCII text: offsets are UTF-16 code units", () => {
    const sources = [
      "echo 'héllo wörld' > ünï.txt && cat ünï.txt",
      'git commit -m "fix: 🎉 emoji $(date) 日本語" && echo ✓',
      "printf '%s\\n' 😀😀 | grep -c 😀; ls ~/ドキュメント",
      "a=ü; echo \"${a}é\" <<< 'ß' # 注释 🚀",
      "cat <<EOF\nnaïve $(whoami) 𝔘\nEOF\necho fin",
    ];
    for (const s of sources) expect(check(s)).toEqual([]);
    const tree = parseShell(sources[1]!);
    try {
      const copy = readTree(tree, sources[1]!).root;
      expect(copy.endIndex).toBe(sources[1]!.length);
      expect(copy.descendantsOfType("word").map((w) => w.text)).toContain("✓");
    } finally {
      tree.delete();
    }
  });
});
