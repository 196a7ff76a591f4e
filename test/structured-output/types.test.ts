/**
 * The type of `result.structuredOutput`, checked by the TypeScript compiler: the fixture compiles
 * with no error (its `expectTypeOf` lines and `@ts-expect-error` lines hold), and the same fixture
 * without its `@ts-expect-error` lines does not (so the check can fail).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(import.meta.dirname, "fixtures", "typed-result.ts");
const STRIPPED = join(import.meta.dirname, "fixtures", "typed-result-stripped.ts");

let program: ts.Program | undefined;
/**
 * One program under the repo's tsconfig for the fixture and, in memory beside it (so imports
 * resolve the same), the fixture without its `@ts-expect-error` lines: both are modules, so each
 * file's diagnostics are what a compile of it alone reports, and the package's types are resolved
 * once for both, not once a compile (two compiles took ~8 CPU-s).
 */
function compiled(): ts.Program {
  if (program) return program;
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const { getSourceFile, fileExists } = host;
  const stripped = readFileSync(FIXTURE, "utf8").replace(/^\s*\/\/ @ts-expect-error.*$/gm, "");
  host.fileExists = (name) => name === STRIPPED || fileExists(name);
  host.getSourceFile = (name, language, ...rest) =>
    name === STRIPPED ? ts.createSourceFile(name, stripped, language) : getSourceFile(name, language, ...rest);
  program = ts.createProgram([FIXTURE, STRIPPED], { ...options, noEmit: true }, host);
  return program;
}

/**
 * `file`'s diagnostics and the program's own. Only the file's: the package's files are checked by
 * `npm run typecheck`, and checking every file the fixture imports took ~20 s a compile.
 */
function diagnostics(file: string): string[] {
  const p = compiled();
  const source = p.getSourceFile(file)!;
  return [
    ...p.getOptionsDiagnostics(),
    ...p.getGlobalDiagnostics(),
    ...p.getSyntacticDiagnostics(source),
    ...p.getSemanticDiagnostics(source),
  ].map((d) => `${d.file ? `${d.file.fileName}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("result.structuredOutput's type", () => {
  it("is the zod schema's output type; unknown for a JSON Schema or none", { timeout: 300_000 }, () => {
    expect(diagnostics(FIXTURE)).toEqual([]);
  });

  it("fails the compile when a wrong line is no longer marked as an expected error", { timeout: 300_000 }, () => {
    const errors = diagnostics(STRIPPED);
    expect(
      errors.some((e) => e.includes("'number' is not assignable to type 'string'")),
      errors.join("\n"),
    ).toBe(true);
    expect(errors.some((e) => e.includes("mayor"))).toBe(true);
    expect(errors.some((e) => e.includes("unknown"))).toBe(true);
  });
});
