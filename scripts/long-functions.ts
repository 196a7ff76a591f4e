/**
 * Lists the functions, methods and arrow functions of the non-test code by length in code lines
 * (formatted by Biome at 120 columns; blank and comment lines not counted, as in the kernel cap),
 * longest first. Used by
 * test/kernel/function-length.test.ts; run by hand with `npx jiti scripts/long-functions.ts [min]`
 * (default 100: the functions over the house limit).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { codeLines } from "./code-lines";

/** The folders whose code ships (tests, benchmarks and scripts are not counted). */
export const CODE_FOLDERS = ["src", "plugins", "loader", "sdk", "runner", "harness", "presets"];

/** One function: where it starts, what it is called and how many code lines it has (nested functions included). */
export interface FunctionLength {
  /** The file, relative to the repository root, with `/` separators. */
  file: string;
  /** Its name, or the name of what holds it: `apply`, `Kernel.run`, `RUN_FLAGS.model`, `onKey`, `(arrow in summon)`. */
  name: string;
  /** The line it starts on (1-based). */
  line: number;
  /** Its code lines, from its first line to its last (blank and comment lines not counted). */
  lines: number;
}

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(root, path);
    return /\.(m?ts)$/.test(entry.name) && !/\.(test|d)\.m?ts$/.test(entry.name) ? [path] : [];
  });
}

/** The name a function is known by: its own, or that of the variable, property or class member holding it. */
function nameOf(node: ts.Node): string {
  const own = (node as ts.FunctionLikeDeclaration).name;
  const named = (n: ts.Node | undefined) =>
    n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : undefined;
  const parent = node.parent;
  let name = named(own);
  if (!name && parent) {
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
      name = named(parent.name);
    else if (ts.isCallExpression(parent)) name = `(callback of ${parent.expression.getText().slice(0, 40)})`;
  }
  if (ts.isConstructorDeclaration(node)) name = "constructor";
  name ??= "(anonymous)";
  // A member or property is named with what holds it: `Class.method`, `OBJECT.key`.
  const holder = ts.isPropertyAssignment(parent) ? parent.parent.parent : parent;
  if (
    (ts.isClassLike(node.parent) || ts.isPropertyAssignment(parent) || ts.isObjectLiteralExpression(parent)) &&
    holder
  ) {
    const owner =
      ts.isClassLike(holder) || ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)
        ? named(holder.name)
        : undefined;
    if (owner) name = `${owner}.${name}`;
  }
  return name;
}

/** Every function-like node of one file with its length. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = node.getStart(source);
      const line = source.getLineAndCharacterOfPosition(start).line + 1;
      out.push({ file, name: nameOf(node), line, lines: codeLines(text.slice(start, node.getEnd())).length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The functions of the shipped code longer than `min` lines, longest first. */
export function longFunctions(root: string, min: number): FunctionLength[] {
  return CODE_FOLDERS.flatMap((dir) => sourceFiles(root, dir))
    .flatMap((path) =>
      functionLengths(relative(root, join(root, path)).split("\\").join("/"), readFileSync(join(root, path), "utf8")),
    )
    .filter((f) => f.lines > min)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("long-functions.ts")) {
  const min = Number(process.argv[2] ?? 100);
  const root = join(import.meta.dirname, "..");
  for (const f of longFunctions(root, min))
    console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
}
