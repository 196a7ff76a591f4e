/**
 * Type-checks documentation code blocks against this repository's sources (strict, as
 * tsconfig.json), the way readme.test.ts and site.test.ts both need: each block is written to a
 * file under test/docs (so node_modules resolve as for a user) and checked in one program.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import ts from "typescript";
import { repoRoot } from "../helpers/project";
import type { CodeBlock } from "./blocks";

/** Write each block to a file of a fresh folder under test/docs; `dispose` removes it. */
export function writeBlocks(blocks: CodeBlock[]): { fileOf: Map<CodeBlock, string>; dispose(): void } {
  const dir = mkdtempSync(join(repoRoot, "test", "docs", ".blocks-"));
  const fileOf = new Map(blocks.map((b, i) => [b, join(dir, `${basename(b.file, ".md")}-${b.line}-${i}.ts`)]));
  for (const [b, file] of fileOf) writeFileSync(file, `${b.code}\nexport {};\n`);
  return { fileOf, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The type errors of the blocks, each as `file.md:line: message` (empty when all check). */
export function typeCheckBlocks(fileOf: Map<CodeBlock, string>): string[] {
  const configPath = join(repoRoot, "tsconfig.json");
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, repoRoot);
  const options: ts.CompilerOptions = {
    ...config.options,
    paths: {
      ...config.options.paths,
      "ubiquity-plugin-house-rules": ["./examples/ubiquity-plugin-house-rules/index.d.ts"],
    },
  };
  const program = ts.createProgram([...fileOf.values()], options);
  const problems: string[] = [];
  for (const [b, file] of fileOf) {
    const source = program.getSourceFile(file)!;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      problems.push(
        `${relative(repoRoot, b.file)}:${b.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    }
  }
  return problems;
}

/** The markdown files of the docs site (docs/**, without the generated reference and VitePress's folders). */
export function siteMarkdown(dir = join(repoRoot, "docs")): string[] {
  return (
    ts.sys.readDirectory(dir, [".md"], ["**/node_modules", "**/.vitepress", "reference"], undefined) as string[]
  ).sort();
}
