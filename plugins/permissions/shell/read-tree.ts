/**
 * Copy a web-tree-sitter tree into `SyntaxNode`s (syntax.ts says why), in one cursor walk. Apart
 * from syntax.ts so that only the parser's users load web-tree-sitter's declarations.
 */
import type { Tree } from "web-tree-sitter";
import { FIELD_LOOKUPS, SyntaxNode } from "./syntax";

/**
 * Copy `tree` (parsed from `source`), and tell whether it has a syntax error. Iterative, like the walks over it: `a && b && …` nests one
 * level per operator, and a deep tree must not overflow the stack.
 */
export function readTree(tree: Tree, source: string): { root: SyntaxNode; hasError: boolean } {
  const { types, fields } = tree.language;
  const top = tree.rootNode;
  const hasError = top.hasError;
  // Whether a type is named depends on the type alone: asked once per type, not once per node.
  const named: boolean[] = [];
  const cursor = top.walk();
  // For a node in FIELD_LOOKUPS: web-tree-sitter's answer, by node id, until its children are read.
  const lookups = new Map<SyntaxNode, Map<number, string[]>>();
  const current = (parent: SyntaxNode | undefined): SyntaxNode => {
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    const id = cursor.nodeTypeId;
    const type = types[id] || "ERROR"; // as Node.type
    // Only a zero-width node can be one the parser made up to recover from an error.
    const missing = start === end && cursor.nodeIsMissing;
    const node = new SyntaxNode(
      source,
      type,
      (named[id] ??= cursor.nodeIsNamed),
      missing,
      start,
      end,
      fields[cursor.currentFieldId] ?? null,
    );
    const wanted = parent && lookups.get(parent)?.get(cursor.nodeId);
    if (wanted) for (const field of wanted) (parent.byField ??= new Map()).set(field, node);
    const asked = FIELD_LOOKUPS[type];
    if (asked) {
      const real = cursor.currentNode;
      const ids = new Map<number, string[]>();
      for (const field of asked) {
        const id = real.childForFieldName(field)?.id;
        if (id !== undefined) ids.set(id, [...(ids.get(id) ?? []), field]);
      }
      lookups.set(node, ids);
    }
    return node;
  };
  try {
    const root = current(undefined);
    const parents: SyntaxNode[] = [];
    let node = root;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        parents.push(node);
      } else {
        while (!cursor.gotoNextSibling()) {
          if (!cursor.gotoParent()) {
            // web-tree-sitter answers with a visible child; anything else must not pass unnoticed.
            for (const [n, ids] of lookups)
              if ((n.byField?.size ?? 0) !== [...ids.values()].flat().length)
                throw new Error(`a ${n.type} field is not one of its children`);
            return { root, hasError };
          }
          parents.pop();
        }
      }
      const parent = parents.at(-1)!;
      node = current(parent);
      parent.children.push(node);
    }
  } finally {
    cursor.delete();
  }
}
