/**
 * Red team 2026-12-05 (LSP): the LSP tool (plugins/tool-lsp), the Read-deny filter of its answers,
 * path rules against names with line breaks, and `ubiquity plugin add` of `strict: false`
 * marketplace entries. The language server is a hostile one (fixtures/hostile-lsp.mjs) answering
 * what each test scripts; every run goes through summon() with the scripted model.
 *
 * Attacks tried (26), findings (9: 8 fixed, 1 open):
 *  1. workspaceSymbol: a symbol name holding "\n\n" before a denied file's symbol          -> F1 fixed
 *  2. a denied file whose name has a line break (URI %0A)                                    -> F2 fixed
 *  3-6. non-file scheme (untitled:), file://host/, encoded "/" (%2F), no location             -> F3 fixed
 *  7. documentSymbol answered with SymbolInformation placed in a denied file                 -> F4 fixed
 *  8. file://localhost/, "/src/../secret" in a URI, SECRET/ in another case                  holds
 *  9. incoming calls from a denied file (name, detail), definitions there                    holds
 * 10. filePath a symlink to a denied file; filePath "src/../secret/key.ts"                   holds
 * 11. Read of secret/notes<newline>.txt under Read(secret/**) (the path matcher itself)      -> F5 fixed
 * 12-13. plugin add: a strict:false entry's folder a link out of the marketplace (copied, in a clone) -> F6 fixed
 * 14. plugin add: two marketplaces' plugins/ts entries                                       -> F7 fixed
 * 15. a server's child in a session of its own (setsid), sandbox off                         -> F8 fixed (the reaper)
 * 16. a FIFO named src/pipe.ts as filePath                                                   -> F9 fixed
 * 17. a server that never answers: bounded by toolTimeoutMs and the run's abort ($/cancelRequest sent) holds
 * 18. a server asking workspace/applyEdit: answered null, nothing applied (code read)        holds
 * 19. hover under a Read deny: refused by the engine; its lines are now also unjudgeable (withheld) holds
 * 20. an untrusted folder (trust: false): no server starts (test/lsp/lsp-servers.test.ts)    holds
 * 21. a secret in the parent's environment: scrubbed (test/lsp/lsp-servers.test.ts)         holds
 * 22. a plugin folder inside an untrusted/changed project: readPlugins skips it (code read)  holds
 * 23. .lsp.json / lspServers path leading out of the plugin: refused (code read)             holds
 * 24. a server crashing mid-call: pending requests rejected, restarts bounded (code read)    holds
 * 25. a header without end / a Content-Length over 64 MiB: the connection ends (code read)   holds
 * 26. entry name with "/" or "..": only the manifest's name, the copy is named by its folder holds
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { summon, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType } from "../helpers/collect";
import { commandsCommands } from "../../plugins/commands/cli";
import { tempHome } from "../helpers/temp-home";

const HOSTILE = join(import.meta.dirname, "fixtures", "hostile-lsp.mjs");

let project: string;
beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), "ubq-redlsp-")));
  mkdirSync(join(project, "src"));
  mkdirSync(join(project, "secret"));
  writeFileSync(join(project, "src", "ok.ts"), "export const ok = 1;\n");
  writeFileSync(join(project, "secret", "key.ts"), 'export const TOKEN = "sk-live-1234";\n');
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

/** Tool outputs of a run whose model makes `calls` at once; the hostile server answers with `answers`; `Read(secret/**)` is denied. */
async function run(
  calls: { toolName: string; input: Record<string, unknown> }[],
  answers: Record<string, unknown> = {},
  options: SummonOptions = {},
): Promise<{ content: string; isError?: boolean }[]> {
  const file = join(project, "answers.json");
  writeFileSync(file, JSON.stringify(answers));
  const model = scriptedModel([{ toolCalls: calls }, "done"]);
  const messages = await collect(
    summon("look", {
      model,
      cwd: project,
      persistSession: false,
      sandbox: false,
      disallowedTools: ["Read(secret/**)"],
      lspServers: {
        hostile: {
          command: process.execPath,
          args: [HOSTILE],
          extensionToLanguage: { ".ts": "typescript" },
          env: { HOSTILE_ANSWERS: file },
        },
      },
      ...options,
    }),
  );
  // In the order the calls were made (calls that may run together end in any order).
  const order = ofType(messages, "assistant").flatMap((m) =>
    m.content.flatMap((block) => (block.type === "tool_call" ? [block.toolUseId] : [])),
  );
  const results = ofType(messages, "tool_result");
  return order.map((id) => results.find((r) => r.toolUseId === id)!.output);
}

const lsp = (input: Record<string, unknown>) => ({ toolName: "LSP", input });
const range = { start: { line: 0, character: 13 }, end: { line: 0, character: 18 } };
/** A SymbolInformation at `uri` ($ROOT: the workspace folder). */
const at = (uri: string, name: string) => ({ name, kind: 14, location: { uri, range } });
const symbols = lsp({ operation: "workspaceSymbol", filePath: "src/ok.ts", query: "x" });

describe("the Read-deny filter of LSP answers", () => {
  it("F1: a symbol name with a blank line in it no longer ends the filtered part of the answer", async () => {
    // Before: only the answer's first paragraph was filtered (Grep's notes follow a blank line), so
    // every line after a name holding "\n\n" reached the model unfiltered, a denied file's too.
    const [out] = await run([symbols], {
      "workspace/symbol": [
        at("file://$ROOT/src/ok.ts", "a\n\nb"),
        at("file://$ROOT/secret/key.ts", "LEAK_AFTER_BLANK"),
      ],
    });
    expect(out!.content).toContain("src/ok.ts:1:14 a\\n\\nb (Constant)");
    expect(out!.content).not.toContain("LEAK_AFTER_BLANK");
    expect(out!.content).not.toContain("secret/key.ts");
  });

  it("F2: a denied file whose name has a line break is withheld whole (the name after the break leaked)", async () => {
    const [out] = await run([symbols], {
      "workspace/symbol": [at("file://$ROOT/secret/x%0A.ts", "LEAK_NEWLINE"), at("file://$ROOT/src/ok.ts", "kept")],
    });
    expect(out!.content).not.toContain("LEAK_NEWLINE");
    expect(out!.content).toContain("src/ok.ts:1:14 kept (Constant)");
  });

  it("F3: a location the filter cannot turn into a local path (another scheme, a host, an encoded /) is withheld under a Read deny", async () => {
    const answers = {
      "workspace/symbol": [
        at("untitled:$ROOT/secret/key.ts", "LEAK_SCHEME"),
        at("file://evil$ROOT/secret/key.ts", "LEAK_HOST"),
        at("file://$ROOT/secret%2Fkey.ts", "LEAK_SLASH"),
        { name: "LEAK_NO_LOCATION", kind: 14 },
        at("file://$ROOT/src/ok.ts", "kept"),
      ],
    };
    const [out] = await run([symbols], answers);
    for (const leak of ["LEAK_SCHEME", "LEAK_HOST", "LEAK_SLASH", "LEAK_NO_LOCATION"])
      expect(out!.content).not.toContain(leak);
    expect(out!.content).toContain("src/ok.ts:1:14 kept (Constant)");
    expect(out!.content).toContain("4 of them) they name a place or text that cannot be judged");
    // Without a Read deny rule nothing is withheld: such locations are shown as written.
    const [open] = await run([symbols], answers, { disallowedTools: [] });
    expect(open!.content).toContain("LEAK_SCHEME");
  });

  it("F4: documentSymbol's symbols that the server places in a denied file are withheld", async () => {
    const [out] = await run([lsp({ operation: "documentSymbol", filePath: "src/ok.ts" })], {
      "textDocument/documentSymbol": [
        at("file://$ROOT/secret/key.ts", "LEAK_FOREIGN"),
        at("file://$ROOT/src/ok.ts", "ok"),
      ],
    });
    expect(out!.content).not.toContain("LEAK_FOREIGN");
    expect(out!.content).toMatch(/^ok \(Constant\) line 1$/m);
  });

  it("no finding: call hierarchy items and definitions in a denied file, a symlink to it as filePath, a `..` spelling", async () => {
    symlinkSync(join(project, "secret", "key.ts"), join(project, "src", "link.ts"));
    const item = {
      name: "LEAK_CALLER",
      kind: 12,
      uri: "file://$ROOT/secret/key.ts",
      range,
      selectionRange: range,
      detail: "LEAK_DETAIL",
    };
    const outs = await run(
      [
        lsp({ operation: "incomingCalls", filePath: "src/ok.ts", line: 1, character: 14 }),
        lsp({ operation: "goToDefinition", filePath: "src/ok.ts", line: 1, character: 14 }),
        lsp({ operation: "documentSymbol", filePath: "src/link.ts" }),
        lsp({ operation: "documentSymbol", filePath: "src/../secret/key.ts" }),
      ],
      {
        "textDocument/prepareCallHierarchy": [{ ...item, name: "here", uri: "file://$ROOT/src/ok.ts" }],
        "callHierarchy/incomingCalls": [{ from: item, fromRanges: [range] }],
        "textDocument/definition": [{ uri: "file://$ROOT/src/../secret/key.ts", range }],
        "textDocument/documentSymbol": [at("file://$ROOT/src/ok.ts", "LEAK_SYMLINKED")],
      },
    );
    const text = outs.map((o) => o.content).join("\n");
    for (const leak of ["LEAK_CALLER", "LEAK_DETAIL", "secret/key.ts:", "LEAK_SYMLINKED"])
      expect(text).not.toContain(leak);
    expect(outs[2]!.isError).toBe(true);
    expect(outs[3]!.isError).toBe(true);
  });
});

describe("a language server's processes", () => {
  // Without the sandbox a server's process group was killed at the end of the session, but a child
  // that started a session of its own (setsid, a daemon) was out of the group and lived on. Fixed:
  // servers run under the reaper (a child subreaper), as Bash and command hooks do; with the
  // sandbox on, bubblewrap's PID namespace ends it.
  it("F8: without the sandbox, a child in a session of its own does not outlive the session", async () => {
    const pidFile = join(project, "escaped.pid");
    const file = join(project, "answers.json");
    writeFileSync(file, "{}");
    const model = scriptedModel([{ toolCalls: [symbols] }, "done"]);
    await collect(
      summon("look", {
        model,
        cwd: project,
        persistSession: false,
        sandbox: false,
        lspServers: {
          hostile: {
            command: process.execPath,
            args: [HOSTILE],
            extensionToLanguage: { ".ts": "typescript" },
            env: { HOSTILE_ANSWERS: file, HOSTILE_ESCAPE: pidFile },
          },
        },
      }),
    );
    const pid = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (alive) process.kill(pid, "SIGKILL");
    expect(alive).toBe(false);
  });
});

describe("documents a server is told of", () => {
  it("F9: a FIFO named like a source file is refused, not opened (the open blocked a worker thread for good)", async () => {
    const fifo = join(project, "src", "pipe.ts");
    execFileSync("mkfifo", [fifo]);
    try {
      const [out] = await run(
        [lsp({ operation: "documentSymbol", filePath: "src/pipe.ts" })],
        {},
        {
          toolTimeouts: { LSP: 3000 },
        },
      );
      expect(out!.isError).toBe(true);
      expect(out!.content).toContain("not a regular file");
    } finally {
      // Unblocks an open left waiting for a writer (without the fix).
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waiting
      }
    }
  });
});

describe("path rules and names with line breaks", () => {
  it("F5: Read(secret/**) denies a file in secret/ whose name has a line break (glob * stopped at it)", async () => {
    writeFileSync(join(project, "secret", "notes\n.txt"), "sk-live-NEWLINE-NAME\n");
    const outs = await run([{ toolName: "Read", input: { file_path: join(project, "secret", "notes\n.txt") } }]);
    expect(outs[0]!.isError).toBe(true);
    expect(outs[0]!.content).not.toContain("sk-live-NEWLINE-NAME");
    expect(outs[0]!.content).toContain("Read(secret/**)");
  });
});

describe("ubiquity plugin add of strict: false entries", () => {
  const home = tempHome();
  const add = async (market: string, name: string) => {
    const out: string[] = [];
    const sink = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) };
    try {
      return {
        code: await commandsCommands.plugin!.run(
          { positionals: ["add", market, name], flags: {} } as never,
          sink as never,
        ),
        out: out.join(""),
      };
    } catch (error) {
      return { code: 2, out: String(error) };
    }
  };
  const lspServers = { x: { command: "some-language-server", extensionToLanguage: { ".ts": "typescript" } } };
  const marketplace = (market: string, entries: Record<string, unknown>[]) => {
    mkdirSync(join(market, ".claude-plugin"), { recursive: true });
    writeFileSync(join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "m", plugins: entries }));
  };

  it("F6: an entry folder that is a link out of the marketplace is refused; the folder it leads to is not written", async () => {
    // Before: the entry's manifest was written through the link, into that folder (here another
    // plugin's, whose plugin.json then declared the entry's servers and hooks).
    for (const market of [join(home(), "market"), join(home(), ".ubiquity", "plugins", "cloned-market")]) {
      const victim = join(home(), `victim-${market.length}`);
      mkdirSync(join(victim, ".claude-plugin"), { recursive: true });
      writeFileSync(join(victim, ".claude-plugin", "plugin.json"), '{"name":"victim"}\n');
      marketplace(market, [{ name: "evil", source: "./plugins/evil", strict: false, lspServers }]);
      mkdirSync(join(market, "plugins"));
      symlinkSync(victim, join(market, "plugins", "evil"));
      const { code, out } = await add(market, "evil");
      expect(code, out).not.toBe(0);
      expect(out).toContain("link leading outside the marketplace");
      expect(readFileSync(join(victim, ".claude-plugin", "plugin.json"), "utf8")).toBe('{"name":"victim"}\n');
    }
  });

  it("F7: two marketplaces' entries from folders of the same name get a copy each; the second does not replace the first", async () => {
    for (const [market, command] of [
      [join(home(), "one"), "server-one"],
      [join(home(), "two"), "server-two"],
    ] as const) {
      marketplace(market, [
        { name: "ts", source: "./plugins/ts", strict: false, lspServers: { x: { ...lspServers.x, command } } },
      ]);
      mkdirSync(join(market, "plugins", "ts"), { recursive: true });
      writeFileSync(join(market, "plugins", "ts", "README.md"), "x\n");
      expect((await add(market, "ts")).code).toBe(0);
    }
    const settings = JSON.parse(readFileSync(join(home(), ".ubiquity", "settings.json"), "utf8"));
    const [first, second] = settings.claudePlugins as string[];
    expect(first).not.toBe(second);
    const manifest = (folder: string) => readFileSync(join(folder!, ".claude-plugin", "plugin.json"), "utf8");
    expect(manifest(first!)).toContain("server-one");
    expect(manifest(second!)).toContain("server-two");
    expect(readdirSync(join(home(), ".ubiquity", "plugins")).filter((f) => f.startsWith("ts-entry"))).toHaveLength(2);
    expect(existsSync(first!)).toBe(true);
  });
});
