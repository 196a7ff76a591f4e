/**
 * scripts/fix-dts.mjs makes the emitted declarations resolve under `moduleResolution: nodenext`,
 * as a user's project type-checks them. A plugin's module augmentation (`declare module
 * "../../src/messages"`, how the budget plugin adds `result.budget`) must resolve too: left
 * extensionless, TypeScript drops it silently under skipLibCheck and the field is missing.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/project";

const dir = mkdtempSync(join(tmpdir(), "ubq-fix-dts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fix-dts", () => {
  it("makes a plugin's module augmentation resolve under nodenext", () => {
    const types = join(dir, "node_modules", "pkg", "types");
    mkdirSync(join(types, "src"), { recursive: true });
    mkdirSync(join(types, "plugins", "budget"), { recursive: true });
    writeFileSync(
      join(dir, "node_modules", "pkg", "package.json"),
      JSON.stringify({ name: "pkg", type: "module", exports: { ".": { types: "./types/index.d.ts" } } }),
    );
    writeFileSync(join(types, "src", "messages.d.ts"), "export interface ResultFields {\n    numTurns: number;\n}\n");
    writeFileSync(
      join(types, "plugins", "budget", "result-fields.d.ts"),
      'export {};\ndeclare module "../../src/messages" {\n    interface ResultFields {\n        budget?: { spentUsd: number };\n    }\n}\n',
    );
    writeFileSync(
      join(types, "index.d.ts"),
      'import "./plugins/budget/result-fields";\nexport type { ResultFields } from "./src/messages";\n',
    );
    execFileSync(process.execPath, [join(repoRoot, "scripts", "fix-dts.mjs"), types], { encoding: "utf8" });
    expect(readFileSync(join(types, "plugins", "budget", "result-fields.d.ts"), "utf8")).toContain(
      'declare module "../../src/messages.js"',
    );

    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const user = join(dir, "user.ts");
    writeFileSync(
      user,
      'import type { ResultFields } from "pkg";\nexport const spent = (r: ResultFields): number | undefined => r.budget?.spentUsd;\n',
    );
    const program = ts.createProgram([user], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });
});
