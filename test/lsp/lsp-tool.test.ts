/**
 * The LSP tool against a real language server (typescript-language-server over stdio, with the
 * project's TypeScript): each operation through a run with the scripted model, the server
 * configured by the `lspServers` option or by a Claude Code plugin's `.lsp.json`, Read deny rules
 * applied to what the answers name, the tool offered only where a server is configured, and no
 * server process left once the session has ended.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { summon, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { isProcessAlive } from "../../plugins/_kits/process/index";
import { commandsCommands } from "../../plugins/commands/cli";
import { tempHome } from "../helpers/temp-home";

const require = createRequire(import.meta.url);
const SERVER_CLI = join(require.resolve("typescript-language-server/package.json"), "..", "lib", "cli.mjs");
const TSSERVER = require.resolve("typescript/lib/tsserver.js");

/**
 * The server as a user configures it (node running the package's bin, here with this Node).
 * `useSyntaxServer: "never"`: by default the server answers from a syntax-only project while the
 * full one loads (references in unopened files missing), so answers would depend on timing.
 */
const typescriptServer = {
  command: process.execPath,
  args: [SERVER_CLI, "--stdio"],
  extensionToLanguage: { ".ts": "typescript", ".js": "javascript" },
  initializationOptions: { tsserver: { path: TSSERVER, useSyntaxServer: "never" } },
  // The suite's V8 compile cache (vitest.config.ts), which a server's scrubbed environment leaves
  // out: added through the entry's own `env`, so tsserver does not compile TypeScript's 9 MB again
  // at each start. It keeps compiled code, never an answer.
  ...(process.env.NODE_COMPILE_CACHE ? { env: { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } } : {}),
};

let project: string;
beforeAll(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), "ubq-lsp-")));
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "es2022" }, include: ["src"] }),
  );
  mkdirSync(join(project, "src"));
  mkdirSync(join(project, "secret"));
  // Line 1: the interface; line 5: the function; line 9: the call.
  writeFileSync(
    join(project, "src", "shapes.ts"),
    [
      "export interface Shape {",
      "  area(): number;",
      "}",
      "",
      "export function totalArea(shapes: Shape[]): number {",
      "  return shapes.reduce((sum, s) => sum + s.area(), 0);",
      "}",
      "",
      "export class Square implements Shape {",
      "  constructor(private readonly side: number) {}",
      "  area(): number {",
      "    return this.side * this.side;",
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(project, "src", "main.ts"),
    [
      'import { Square, totalArea } from "./shapes";',
      'import { TOKEN } from "../secret/key";',
      "",
      "export function report(): string {",
      "  return `${totalArea([new Square(2)])} ${TOKEN.length}`;",
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(join(project, "secret", "key.ts"), 'export const TOKEN = "sk-live-1234";\n');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** A run whose model makes the given LSP calls (or follows `script`), then ends; the outputs in call order. */
async function lsp(
  calls: Record<string, unknown>[] | Parameters<typeof scriptedModel>[0],
  options: SummonOptions = {},
): Promise<{ outputs: { content: string; isError?: boolean }[]; messages: Message[] }> {
  const lspCalls = Array.isArray(calls) && calls.every((c) => typeof c === "object" && c !== null && "operation" in c);
  const script = lspCalls
    ? [{ toolCalls: (calls as Record<string, unknown>[]).map((input) => ({ toolName: "LSP", input })) }, "done"]
    : (calls as Parameters<typeof scriptedModel>[0]);
  const model = scriptedModel(script);
  const messages = await collect(
    summon("look", {
      model,
      cwd: project,
      persistSession: false,
      sandbox: false,
      lspServers: { typescript: typescriptServer },
      ...options,
    }),
  );
  return { outputs: outputsInCallOrder(messages), messages };
}

/** The tool results in the order the model made the calls (calls that may run together end in any order). */
function outputsInCallOrder(messages: Message[]): { content: string; isError?: boolean }[] {
  const order = ofType(messages, "assistant").flatMap((m) =>
    m.content.flatMap((block) => (block.type === "tool_call" ? [block.toolUseId] : [])),
  );
  const results = ofType(messages, "tool_result");
  return order.flatMap((id) => results.filter((r) => r.toolUseId === id).map((r) => r.output));
}

/**
 * The read-only calls of cases with the same options, made in one run (one server started, not
 * one a case): `add` takes a case's calls and returns what its test awaits, that case's outputs.
 */
function batch(options: SummonOptions = {}) {
  const cases: Record<string, unknown>[][] = [];
  let run: Promise<{ content: string; isError?: boolean }[]> | undefined;
  return {
    add(calls: Record<string, unknown>[]) {
      const at = cases.flat().length;
      cases.push(calls);
      return async () => {
        run ??= lsp(cases.flat(), options).then((r) => r.outputs);
        const outputs = await run;
        expect(outputs).toHaveLength(cases.flat().length);
        return outputs.slice(at, at + calls.length);
      };
    },
  };
}

describe("the LSP tool with typescript-language-server", () => {
  // The operations case and the hover without a deny rule: read-only calls with no rule, one run.
  const plain = batch();
  const everyOperation = plain.add([
    { operation: "goToDefinition", filePath: "src/shapes.ts", line: 6, character: 44 },
    { operation: "findReferences", filePath: "src/shapes.ts", line: 5, character: 17 },
    { operation: "hover", filePath: "src/shapes.ts", line: 5, character: 17 },
    { operation: "documentSymbol", filePath: "src/shapes.ts" },
    { operation: "workspaceSymbol", filePath: "src/shapes.ts", query: "Square" },
    { operation: "goToImplementation", filePath: "src/shapes.ts", line: 1, character: 18 },
    { operation: "prepareCallHierarchy", filePath: "src/shapes.ts", line: 5, character: 17 },
    { operation: "incomingCalls", filePath: "src/shapes.ts", line: 5, character: 17 },
    { operation: "outgoingCalls", filePath: "src/main.ts", line: 4, character: 17 },
  ]);
  const hoverWithoutRule = plain.add([
    { operation: "hover", filePath: "src/main.ts", line: 5, character: 43 },
    { operation: "findReferences", filePath: "src/main.ts", line: 2, character: 10 },
  ]);

  it("answers every operation at 1-based positions, with locations as path:line:character", async () => {
    const outputs = await everyOperation();
    const [definition, references, hover, symbols, workspace, implementation, prepared, incoming, outgoing] =
      outputs.map((o) => {
        expect(o.isError, o.content).toBeFalsy();
        return o.content;
      });
    expect(definition).toBe("1 definition:\nsrc/shapes.ts:2:3");
    expect(references).toBe("3 references in 2 files:\nsrc/shapes.ts:5:17\nsrc/main.ts:1:18\nsrc/main.ts:5:13");
    expect(hover).toContain("function totalArea(shapes: Shape[]): number");
    expect(symbols).toMatch(/Shape \(Interface\) line 1/);
    expect(symbols).toMatch(/ {2}area \(Method\) line 11/);
    expect(workspace).toContain("src/shapes.ts:9:1 Square (Class)");
    expect(implementation).toContain("src/shapes.ts:9:14");
    expect(prepared).toContain("src/shapes.ts:5:17 totalArea (Function)");
    expect(incoming).toContain("src/main.ts:4:17 report (Function)");
    expect(outgoing).toBe("Calls 2:\nsrc/shapes.ts:5:17 totalArea (Function)\nsrc/shapes.ts:9:14 Square (Class)");
  });

  it("a file changed on disk between calls is answered as it is now", async () => {
    const file = join(project, "src", "moving.ts");
    writeFileSync(file, "export const a = 1;\nexport const b = a;\n");
    const { outputs } = await lsp(
      [
        {
          toolCalls: [
            { toolName: "LSP", input: { operation: "documentSymbol", filePath: "src/moving.ts" } },
            { toolName: "Read", input: { file_path: file } },
          ],
        },
        {
          toolCalls: [
            {
              toolName: "Write",
              input: { file_path: file, content: "export const renamed = 1;\nexport const b = renamed;\n" },
            },
          ],
        },
        { toolCalls: [{ toolName: "LSP", input: { operation: "documentSymbol", filePath: "src/moving.ts" } }] },
        "done",
      ],
      { permissionMode: "acceptEdits" },
    );
    expect(outputs[0]!.content).toMatch(/^ *a \(Constant\) line 1/m);
    expect(outputs[2]!.isError, outputs[2]!.content).toBeFalsy();
    expect(outputs[3]!.content).toMatch(/^ *renamed \(Constant\) line 1/m);
    expect(outputs[3]!.content).not.toMatch(/^ *a \(Constant\)/m);
  });

  it("a Read deny rule withholds the locations in denied files and refuses hover", async () => {
    const { outputs } = await lsp(
      [
        { operation: "findReferences", filePath: "src/main.ts", line: 2, character: 10 },
        { operation: "goToDefinition", filePath: "src/shapes.ts", line: 6, character: 44 },
        { operation: "hover", filePath: "src/main.ts", line: 5, character: 43 },
        { operation: "documentSymbol", filePath: "secret/key.ts" },
      ],
      { disallowedTools: ["Read(secret/**)"] },
    );
    expect(outputs[0]!.content).not.toContain("secret/key.ts");
    expect(outputs[0]!.content).toContain("src/main.ts:2:10");
    expect(outputs[0]!.content).toContain("[1 result line withheld: a Read deny rule forbids the files they name.]");
    expect(outputs[1]!.content).toContain("src/shapes.ts:2:3");
    expect(outputs[2]!.isError).toBe(true);
    expect(outputs[2]!.content).toContain("hover is refused");
    expect(outputs[2]!.content).not.toContain("sk-live");
    expect(outputs[3]!.isError).toBe(true);
    expect(outputs[3]!.content).toContain("Read(secret/**)");
  });

  it("without a deny rule the same hover shows the constant's type", async () => {
    const outputs = await hoverWithoutRule();
    expect(outputs[1]!.content).toContain("secret/key.ts:1:14");
    expect(outputs[0]!.content).toContain('"sk-live-1234"');
  });

  it("refuses a file outside the folders, a file no server serves, and a position-less call, before starting anything", async () => {
    writeFileSync(join(project, "notes.md"), "# notes\n");
    const { outputs } = await lsp([
      { operation: "documentSymbol", filePath: "/etc/hostname.ts" },
      { operation: "documentSymbol", filePath: "notes.md" },
      { operation: "goToDefinition", filePath: "src/main.ts" },
      { operation: "workspaceSymbol", filePath: "src/main.ts" },
    ]);
    expect(outputs.map((o) => o.isError)).toEqual([true, true, true, true]);
    expect(outputs[0]!.content).toContain("outside the folders");
    expect(outputs[1]!.content).toContain("No language server serves notes.md; the configured ones serve .ts, .js");
    expect(outputs[2]!.content).toContain("needs line and character");
    expect(outputs[3]!.content).toContain("needs a query");
  });

  it("a server that is not installed is named with the fix", async () => {
    const { outputs } = await lsp([{ operation: "documentSymbol", filePath: "src/main.ts" }], {
      lspServers: { ghost: { command: "no-such-language-server-xyz", extensionToLanguage: { ".ts": "typescript" } } },
    });
    expect(outputs[0]!.isError).toBe(true);
    expect(outputs[0]!.content).toContain('"no-such-language-server-xyz" was not found; install it or fix "command"');
  });

  it("is offered only when a server is configured", async () => {
    const offered = async (options: SummonOptions) => {
      const model = scriptedModel(["done"]);
      const messages = await collect(
        summon("hi", { model, cwd: project, persistSession: false, sandbox: false, ...options }),
      );
      const init = messages.find((m) => m.type === "system" && m.subtype === "init") as { tools: string[] };
      return init.tools;
    };
    expect(await offered({})).not.toContain("LSP");
    expect(await offered({ lspServers: { typescript: typescriptServer } })).toContain("LSP");
  });

  it("starts the server from a Claude Code plugin's .lsp.json and leaves no process after the session", async () => {
    const plugin = join(project, "..", `ubq-lsp-plugin-${process.pid}`);
    mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
    writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "ts-lsp" }));
    writeFileSync(join(plugin, ".lsp.json"), JSON.stringify({ typescript: typescriptServer }));
    try {
      const { outputs, messages } = await lsp(
        [{ operation: "goToDefinition", filePath: "src/shapes.ts", line: 6, character: 44 }],
        { lspServers: undefined, claudePlugins: [plugin] },
      );
      expect(outputs[0]!.content).toContain("src/shapes.ts:2:3");
      expect(resultOf(messages).subtype).toBe("success");
      const pids = serverPids();
      expect(pids.filter(isProcessAlive)).toEqual([]);
    } finally {
      rmSync(plugin, { recursive: true, force: true });
    }
  });
});

describe("the official marketplace's typescript-lsp plugin, added with `ubiquity plugin add`", () => {
  const home = tempHome();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("runs its server from the entry's lspServers, as written", async () => {
    const market = join(import.meta.dirname, "..", "fixtures", "compat", "claude-plugins-official", "lsp-marketplace");
    const out: string[] = [];
    const sink = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) };
    const code = await commandsCommands.plugin!.run(
      { positionals: ["add", market, "typescript-lsp"], flags: {} } as never,
      sink as never,
    );
    expect(code, out.join("")).toBe(0);
    // The entry's command, `typescript-language-server`, found on PATH as a user's global install would be (with this Node).
    vi.stubEnv(
      "PATH",
      [dirname(process.execPath), join(SERVER_CLI, "..", "..", "..", ".bin"), process.env.PATH].join(":"),
    );
    const model = scriptedModel([
      { toolCalls: [{ toolName: "LSP", input: { operation: "documentSymbol", filePath: "src/shapes.ts" } }] },
      "done",
    ]);
    const messages = await collect(
      summon("look", { model, cwd: project, persistSession: false, sandbox: false, settingSources: ["user"] }),
    );
    const output = outputsInCallOrder(messages)[0]!;
    expect(output.isError, output.content).toBeFalsy();
    expect(output.content).toMatch(/^Square \(Class\) line 9$/m);
    expect(home()).not.toBe("");
  });
});

/** Processes running the language server's CLI from this checkout. */
function serverPids(): number[] {
  const { execFileSync } = require("node:child_process") as typeof import("node:child_process");
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => line.includes(SERVER_CLI))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
