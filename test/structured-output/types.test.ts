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

/** The files both compiles read (the package's sources, the libs), parsed once, as an editor's language service does. */
const parsed = new Map<string, ts.SourceFile | undefined>();

/**
 * Compile `file` under the repo's tsconfig; `text` replaces its content in memory (beside the
 * fixture, so imports resolve the same). The diagnostics are the file's own (the package's files
 * are checked by `npm run typecheck`): checking every file the fixture imports took ~20 s a compile.
 */
function diagnostics(file: string, text?: string): string[] {
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const { getSourceFile, fileExists } = host;
  if (text !== undefined) host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, language, ...rest) => {
    if (name === file)
      return text === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, text, language);
    const key = `${name}\0${JSON.stringify(language)}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile(name, language, ...rest));
    return parsed.get(key);
  };
  const program = ts.createProgram([file], { ...options, noEmit: true }, host);
  const source = program.getSourceFile(file)!;
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ].map((d) => `${d.file ? `${d.file.fileName}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("result.structuredOutput's type", () => {
  it("is the zod schema's output type; unknown for a JSON Schema or none", { timeout: 300_000 }, () => {
    expect(diagnostics(FIXTURE)).toEqual([]);
  });

  it("fails the compile when a wrong line is no longer marked as an expected error", { timeout: 300_000 }, () => {
    const stripped = readFileSync(FIXTURE, "utf8").replace(/^\s*\/\/ @ts-expect-error.*$/gm, "");
    const errors = diagnostics(join(import.meta.dirname, "fixtures", "typed-result-stripped.ts"), stripped);
    expect(
      errors.some((e) => e.includes("'number' is not assignable to type 'string'")),
      errors.join("\n"),
    ).toBe(true);
    expect(errors.some((e) => e.includes("mayor"))).toBe(true);
    expect(errors.some((e) => e.includes("unknown"))).toBe(true);
  });
});
