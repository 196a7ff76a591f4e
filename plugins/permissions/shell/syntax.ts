/**
 * A plain-JavaScript copy of a bash syntax tree, read in one pass of a tree-sitter cursor.
 *
 * Why a copy: every property of a web-tree-sitter `Node` (`type`, `children`, `text`,
 * `endIndex`, `childForFieldName`, …) is a call into the wasm parser that marshals the node and
 * allocates new `Node` objects, and the analysis reads each node many times. That marshalling
 * was most of the cost of a Bash permission decision. A `TreeCursor` walk reads each node once
 * (a few small wasm calls, no `Node` objects) and everything after it reads plain objects.
 *
 * `SyntaxNode` offers the part of the `Node` API the analysis uses, with the same meaning;
 * test/permissions/syntax.test.ts compares the two on every node of thousands of parsed commands.
 */
import type { Tree } from "web-tree-sitter";

/**
 * The children the analysis looks up by field name, per node type. web-tree-sitter's
 * `childForFieldName` follows the grammar's field maps, which the cursor does not expose, and
 * it does not always answer with the child the cursor labels with that field (inside ERROR
 * nodes, or a field on a hidden rule: `test_command`'s `left`), so these few are asked of
 * web-tree-sitter itself while copying. Asking the copy for any other is a programming error.
 */
export const FIELD_LOOKUPS: Readonly<Record<string, readonly string[]>> = {
  variable_assignment: ["name", "value"],
  subscript: ["index"],
  file_redirect: ["destination"],
  for_statement: ["variable"],
};

export class SyntaxNode {
  /** Every child, named and anonymous, extras (comments) included, as `Node.children`. */
  readonly children: SyntaxNode[] = [];
  private named: SyntaxNode[] | undefined;
  /** The children `childForFieldName` answers with (see FIELD_LOOKUPS), set by readTree. */
  byField: Map<string, SyntaxNode> | undefined;

  constructor(
    private readonly source: string,
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    /** Offsets into the parsed string, in UTF-16 code units (web-tree-sitter parses a JS string as UTF-16). */
    readonly startIndex: number,
    readonly endIndex: number,
    /** The field this node fills in its parent (`name`, `argument`, `redirect`, …), if any. */
    readonly field: string | null,
  ) {}

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  /** The source character right after this node ("" at the end of the text). */
  get nextChar(): string {
    return this.source[this.endIndex] ?? "";
  }

  get namedChildren(): SyntaxNode[] {
    return (this.named ??= this.children.filter((c) => c.isNamed));
  }

  get childCount(): number {
    return this.children.length;
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  get firstChild(): SyntaxNode | null {
    return this.children[0] ?? null;
  }

  get firstNamedChild(): SyntaxNode | null {
    return this.namedChildren[0] ?? null;
  }

  fieldNameForChild(index: number): string | null {
    return this.children[index]?.field ?? null;
  }

  /** As `Node.childForFieldName`, for the node types and fields in FIELD_LOOKUPS. */
  childForFieldName(field: string): SyntaxNode | null {
    if (!FIELD_LOOKUPS[this.type]?.includes(field))
      throw new Error(`the syntax tree copy does not look up ${this.type}.${field} (add it to FIELD_LOOKUPS)`);
    return this.byField?.get(field) ?? null;
  }

  /** Every child that fills `field`, as `Node.childrenForFieldName` (which labels children as the cursor does). */

  childrenForFieldName(field: string): SyntaxNode[] {
    return this.children.filter((c) => c.field === field);
  }

  /**
   * This node and its descendants of the given types, in source order, as `Node.descendantsOfType`
   * (which, searching from offset 0, also passes over nodes that end at offset 0).
   */
  descendantsOfType(types: string | readonly string[]): SyntaxNode[] {
    const wanted = typeof types === "string" ? [types] : types;
    const found: SyntaxNode[] = [];
    const stack: SyntaxNode[] = [this];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.endIndex === 0) continue;
      if (wanted.includes(node.type)) found.push(node);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
    return found;
  }
}

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
