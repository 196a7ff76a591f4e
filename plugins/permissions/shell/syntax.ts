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
 * The copying is read-tree.ts's: this file names no web-tree-sitter type, so the declarations the
 * package's types reach do not load web-tree-sitter's (which need @types/emscripten).
 */
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
