/**
 * Diagnostics after edits (Claude Code's code-intelligence plugins): an edit of a file a language
 * server serves tells the server, and the errors and warnings it publishes for the file come back
 * with the next tool result — only those not reported before — unless `lspDiagnostics` is off, a
 * Read deny rule is in force, or the folder is not trusted. The server is the probe
 * (probe-server.mjs): it publishes a diagnostic for each `ERROR: …` / `WARN: …` line at once.
 * The tests wait for a publication with a long timeout, so they hold on a loaded machine; the
 * timeout only bounds the wait for a server that never publishes.
 */
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { summon, type SummonOptions } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { collect, ofType } from "../helpers/collect";

const PROBE = join(import.meta.dirname, "probe-server.mjs");
const require = createRequire(import.meta.url);

let project: string;
beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), "ubq-lsp-diag-")));
  writeFileSync(join(project, "a.probe"), "fine\n");
  writeFileSync(join(project, "notes.txt"), "notes\n");
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const edit = (oldText: string, newText: string): ScriptedTurn => ({
  toolCalls: [{ toolName: "Edit", input: { file_path: "a.probe", old_string: oldText, new_string: newText } }],
});
const read = (file: string): ScriptedTurn => ({ toolCalls: [{ toolName: "Read", input: { file_path: file } }] });

/** The tool results' contents of a run of `turns` with the probe serving `.probe` files. */
async function results(turns: ScriptedTurn[], options: SummonOptions = {}, env: Record<string, string> = {}) {
  const messages = await collect(
    summon("work", {
      model: scriptedModel([read("a.probe"), ...turns, "done"]), // edits need the file read first
      cwd: project,
      persistSession: false,
      sandbox: false,
      permissionMode: "acceptEdits",
      lspDiagnostics: { timeoutMs: 120_000 },
      lspServers: {
        probe: { command: process.execPath, args: [PROBE], extensionToLanguage: { ".probe": "probe" }, env },
      },
      ...options,
    }),
  );
  const result = ofType(messages, "result")[0]!;
  expect(result.subtype, result.result).toBe("success");
  return ofType(messages, "tool_result")
    .slice(1)
    .map((m) => m.output.content);
}

describe("diagnostics after an edit", () => {
  it("come with the next tool result, each once, and again when made anew", async () => {
    const out = await results([
      edit("fine", "ERROR: x is not defined"),
      read("notes.txt"),
      edit("ERROR: x is not defined", "ERROR: x is not defined\nWARN: y is unused"),
      read("notes.txt"),
      edit("ERROR: x is not defined\n", ""),
      read("notes.txt"),
      edit("WARN: y is unused", "ERROR: x is not defined"),
      read("notes.txt"),
    ]);
    expect(readFileSync(join(project, "a.probe"), "utf8")).toBe("ERROR: x is not defined\n");
    // The edit's own result carries none: the server is told after it.
    expect(out[0]).not.toContain("new-diagnostics");
    expect(out[1]).toContain(
      "<new-diagnostics>\nprobe reports for a.probe:\n  1:1 error [P1] x is not defined (probe)\n",
    );
    // The error is still there after the second edit: only the warning is new.
    expect(out[3]).toContain("  2:1 warning [P1] y is unused (probe)");
    expect(out[3]).not.toContain("x is not defined");
    // Fixed (only the warning left): nothing new to report.
    expect(out[5]).not.toContain("new-diagnostics");
    // Made again after it was fixed: new again.
    expect(out[7]).toContain("1:1 error [P1] x is not defined");
    expect(out[7]).not.toContain("y is unused");
  });

  it("come with the next result whatever its tool, an edit of another file too", async () => {
    const out = await results([
      edit("fine", "ERROR: broken"),
      { toolCalls: [{ toolName: "Write", input: { file_path: "b.probe", content: "WARN: shaky\n" } }] },
      read("notes.txt"),
    ]);
    expect(out[1]).toContain("probe reports for a.probe:\n  1:1 error [P1] broken");
    expect(out[1]).not.toContain("shaky");
    expect(out[2]).toContain("probe reports for b.probe:\n  1:1 warning [P1] shaky");
  });

  it("are not shown with lspDiagnostics: false", async () => {
    const out = await results([edit("fine", "ERROR: broken"), read("notes.txt")], { lspDiagnostics: false });
    expect(out[1]).not.toContain("new-diagnostics");
  });

  it("are withheld while a Read deny rule is in force (they can carry a denied file's text)", async () => {
    const out = await results([edit("fine", "ERROR: broken"), read("notes.txt")], {
      disallowedTools: ["Read(./secret.env)"],
    });
    expect(out[0]).toMatch(/^Edited /);
    expect(out[1]).not.toContain("new-diagnostics");
  });

  it("are not asked of a server in a folder that is not trusted", async () => {
    const out = await results([edit("fine", "ERROR: broken"), read("notes.txt")], { trust: false });
    expect(out[1]).not.toContain("new-diagnostics");
  });

  it("from a server that publishes nothing, are given up at the timeout and the run goes on", async () => {
    const out = await results(
      [edit("fine", "ERROR: broken"), read("notes.txt")],
      { lspDiagnostics: { timeoutMs: 1 } },
      { PROBE_SILENT: "1" },
    );
    expect(out[1]).toContain("notes");
    expect(out[1]).not.toContain("new-diagnostics");
  });
});

describe("diagnostics after an edit, from typescript-language-server", () => {
  it("a type error the agent wrote comes back with a later result, as the server words it", async () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true }, include: ["src"] }),
    );
    mkdirSync(join(project, "src"));
    // The server starts on the edit and may take a while to load the project: the agent keeps
    // looking at notes.txt until a result carries the report (or 200 looks: the test fails).
    let looks = 0;
    const model = scriptedModel(({ request }) => {
      const seen = JSON.stringify(request.prompt).includes("new-diagnostics");
      if (looks === 0) {
        looks++;
        return {
          toolCalls: [
            { toolName: "Write", input: { file_path: "src/a.ts", content: "export const n: number = 'text';\n" } },
          ],
        };
      }
      if (seen || looks > 200) return "done";
      looks++;
      return { toolCalls: [{ toolName: "Bash", input: { command: "sleep 0.2; cat notes.txt" } }] };
    });
    const messages = await collect(
      summon("work", {
        model,
        cwd: project,
        persistSession: false,
        sandbox: false,
        permissionMode: "bypassPermissions",
        maxTurns: 250,
        lspServers: {
          typescript: {
            command: process.execPath,
            args: [join(require.resolve("typescript-language-server/package.json"), "..", "lib", "cli.mjs"), "--stdio"],
            extensionToLanguage: { ".ts": "typescript" },
            initializationOptions: {
              tsserver: { path: require.resolve("typescript/lib/tsserver.js"), useSyntaxServer: "never" },
            },
          },
        },
      }),
    );
    const reports = ofType(messages, "tool_result").filter((m) => m.output.content.includes("<new-diagnostics>"));
    expect(reports).toHaveLength(1);
    expect(reports[0]!.output.content).toContain(
      "typescript reports for src/a.ts:\n  1:14 error [2322] Type 'string' is not assignable to type 'number'. (typescript)",
    );
  });
});
