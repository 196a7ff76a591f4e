/**
 * The documentation's code runs verbatim: every complete ```ts block of README.md and the site (docs/**)
 * type-checks (strict, against this repository's sources) and runs to completion as a program —
 * real provider model strings reach a local server speaking each provider's wire format.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { repoRoot } from "../helpers/project";
import { tsNodeArgs } from "../helpers/ts-child";
import { completeTsBlocks, type CodeBlock } from "./blocks";
import { siteMarkdown, typeCheckBlocks, writeBlocks } from "./typecheck";

const docs = [join(repoRoot, "README.md"), ...siteMarkdown()];
const blocks = docs.flatMap(completeTsBlocks);
const where = (b: CodeBlock) => `${relative(repoRoot, b.file)}:${b.line}`;

// Inside the repository, so node_modules (zod, the providers) resolve as they do for a user.
const { fileOf, dispose } = writeBlocks(blocks);
afterAll(dispose);

describe("documentation code blocks", () => {
  it("there are complete blocks to check", () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it("every complete block type-checks under the repository's strict settings", () => {
    expect(typeCheckBlocks(fileOf)).toEqual([]);
  });

  describe("every complete block runs to completion", () => {
    let server: FakeProviderServer;
    let cwd: string;
    let home: string;
    beforeAll(async () => {
      server = await startProviderServer(() => "Hello from the local provider.");
      cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-docs-")));
      home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-docs-home-")));
      mkdirSync(join(cwd, "src"));
      writeFileSync(join(cwd, "src", "index.ts"), "export const answer = 42;\n");
    });
    afterAll(async () => {
      await server.close();
      rmSync(cwd, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    });

    // Asynchronous: the local provider server answers from this process.
    // A server block (```ts server) runs until stopped: the test that starts it drives it.
    it.each(blocks.filter((b) => !b.server).map((b) => [where(b), b] as const))("%s", async (_where, block) => {
      const run = await new Promise<{ status: number | null; stderr: string; error?: Error }>((resolve) => {
        const child = execFile(
          process.execPath,
          [...tsNodeArgs, join(repoRoot, "test", "docs", "run-block.ts"), fileOf.get(block)!],
          {
            cwd,
            encoding: "utf8",
            timeout: 240_000,
            env: {
              PATH: process.env.PATH,
              HOME: home,
              OPENAI_API_KEY: "sk-docs-test",
              OPENAI_BASE_URL: server.baseURL,
              ANTHROPIC_API_KEY: "sk-ant-docs-test",
              ANTHROPIC_BASE_URL: server.baseURL,
              OLLAMA_URL: server.baseURL,
              NO_COLOR: "1",
            },
          },
          (error, _stdout, stderr) =>
            resolve({ status: child.exitCode, stderr, error: error && child.exitCode === null ? error : undefined }),
        );
      });
      expect(run.error).toBeUndefined();
      expect(run.stderr).not.toMatch(/Error|error:/);
      expect(run.status, run.stderr).toBe(0);
    });
  });
});

// The newcomer's trial (2026-12-06): the first program printed `success: 2 turns, $0.0032500000000000003`
// where the docs promise `success: 3 turns, $0.0041` (a sum of prices is a float).
describe("the first program prints the closing line the docs show", () => {
  let server: FakeProviderServer;
  let cwd: string;
  beforeAll(async () => {
    // One tool call, then the answer: the usage of two turns adds up to a float with a long tail.
    server = await startProviderServer((_request, i) =>
      i % 2 === 0
        ? { toolCalls: [{ name: "Glob", input: { pattern: "*" } }], usage: { inputTokens: 1000, outputTokens: 20 } }
        : { text: "A demo.", usage: { inputTokens: 1200, outputTokens: 30 } },
    );
    cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-docs-first-")));
  });
  afterAll(async () => {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it.each(
    [join(repoRoot, "README.md"), join(repoRoot, "docs", "getting-started.md")].map((file) => {
      const block = completeTsBlocks(file).find((b) => b.code.includes("numTurns} turns"));
      return [relative(repoRoot, file), block] as const;
    }),
  )("%s", async (_file, block) => {
    expect(block).toBeDefined();
    const file = fileOf.get(blocks.find((b) => b.file === block!.file && b.line === block!.line)!)!;
    const stdout = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [...tsNodeArgs, join(repoRoot, "test", "docs", "run-block.ts"), file],
        {
          cwd,
          encoding: "utf8",
          timeout: 240_000,
          env: {
            PATH: process.env.PATH,
            HOME: cwd,
            OPENAI_API_KEY: "sk-docs-test",
            OPENAI_BASE_URL: server.baseURL,
            NO_COLOR: "1",
          },
        },
        (_error, out) => resolve(out),
      );
    });
    expect(stdout.trim().split("\n").at(-1)).toMatch(/^success: 2 turns, \$\d+\.\d{4}$/);
  });
});
