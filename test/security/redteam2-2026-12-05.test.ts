/**
 * Red team of 2026-12-05, second team: the surfaces other than the shell-command engine (the
 * sandbox, trust pins, secrets, the file tools). Real bubblewrap, real servers, marker files; each
 * finding's test failed before its fix, an open one is `it.fails` naming it, and "held:" tests pin
 * constructs that did not break anything.
 *
 * Findings:
 *  F1 FIXED  A `Read(...)` deny rule's glob was walked 8 folders deep only: a denied file deeper
 *            down stayed readable to everything the sandbox runs (a hook, an MCP server, a Bash
 *            call the engine lets through). Now a rule inside the permitted folders is walked
 *            whole, like the secret patterns, and a bounded walk (a rule from `/`) hides the
 *            folders at its bound instead of leaving what is below them unread.
 *  F2 FIXED  What a hook says went to the model unmasked: a SessionStart or UserPromptSubmit hook's
 *            context (and a block's or stop's reason) carrying a key — one the user's `env` passes
 *            to it, or the parent's /proc/<pid>/environ without the sandbox — reached the provider,
 *            while a tool's result with the same key is masked. Now masked the same way.
 *  F3 FIXED  A trusted config that loads a module through `createRequire(import.meta.url)` (the
 *            ESM way to get `require`) with a computed name: the scan knew `require` and `import`
 *            only, so the module it loads was never pinned; changed after trust (a `git pull`, or
 *            a sandboxed Bash call: the workspace is writable), it ran in the next run, outside the
 *            sandbox. Now `createRequire` counts as a load the scan cannot follow (fail closed).
 *  O1 OPEN   A Unix socket a host process listens on in the workspace (or any path the sandbox can
 *            see) is reachable from inside: a path socket is no network namespace's, and connect()
 *            needs no write access. Closing it needs a seccomp filter on socket(AF_UNIX) for the
 *            command (socat, inside, still needs one for the proxy).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { requireDist, runCli } from "../helpers/project";
import { startProviderServer } from "../../src/testing/index";
import { scanModuleSource } from "../../loader/module-scan";
import { existsSync } from "node:fs";
import { runBash, sandboxPlace, SKIP } from "../sandbox/helpers";

const place = sandboxPlace();
const DEEP = "a/b/c/d/e/f/g/h/i/j/k";

describe.skipIf(SKIP)("red team 2026-12-05 (2): the sandbox", () => {
  it("F1 found and fixed: a Read deny rule's file deeper than 8 folders is unreadable to a sandboxed hook, like a shallow one", async () => {
    const ws = place.ws();
    mkdirSync(join(ws, "p", DEEP), { recursive: true });
    writeFileSync(join(ws, "p", DEEP, "secrets.json"), "DEEP-RULE-SECRET\n");
    writeFileSync(join(ws, "p", "secrets.json"), "SHALLOW-RULE-SECRET\n");
    // Outside the permitted folders (and not under /tmp, which is private in the sandbox), a rule
    // from `/`: the walk is bounded there.
    const far = realpathSync(mkdtempSync("/var/tmp/ubq-rt2-far-"));
    try {
      mkdirSync(join(far, DEEP), { recursive: true });
      writeFileSync(join(far, DEEP, "token.txt"), "FAR-DEEP-SECRET\n");
      writeFileSync(join(far, "a", "token.txt"), "FAR-SHALLOW-SECRET\n");
      // A hook the user configured runs workspace code in the sandbox; the engine never judges it.
      const hook = [
        `cat p/${DEEP}/secrets.json > deep.txt 2>&1`,
        "cat p/secrets.json > shallow.txt 2>&1",
        `cat ${far}/${DEEP}/token.txt > far-deep.txt 2>&1`,
        `cat ${far}/a/token.txt > far-shallow.txt 2>&1`,
        "echo ran > ran.txt; exit 0",
      ].join("; ");
      await runBash(["echo hi"], {
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
        disallowedTools: ["Read(secrets.json)", `Read(${far}/**/token.txt)`],
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] },
      });
      const got = (f: string) => readFileSync(join(ws, f), "utf8");
      expect(got("ran.txt")).toBe("ran\n");
      expect(got("shallow.txt")).not.toContain("SHALLOW-RULE-SECRET"); // control: the walk found it
      expect(got("far-shallow.txt")).not.toContain("FAR-SHALLOW-SECRET");
      expect(got("deep.txt")).not.toContain("DEEP-RULE-SECRET");
      expect(got("far-deep.txt")).not.toContain("FAR-DEEP-SECRET");
    } finally {
      rmSync(far, { recursive: true, force: true });
    }
  });

  it.fails("O1 open: a Unix socket a host process listens on in the workspace is reachable from a sandboxed command", async () => {
    const ws = place.ws();
    const hits: string[] = [];
    const server = createServer((s) => {
      hits.push("connected");
      s.end("HELLO-FROM-HOST\n");
    });
    await new Promise<void>((r) => server.listen(join(ws, "dev.sock"), r));
    try {
      await runBash(
        [`python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('dev.sock');print(s.recv(99))"`],
        { cwd: ws, sandbox: true, permissionMode: "bypassPermissions" },
      );
    } finally {
      server.close();
    }
    expect(hits).toEqual([]);
  });
});

describe("red team 2026-12-05 (2): secrets", () => {
  it("F2 found and fixed: a key a hook prints as context (SessionStart, UserPromptSubmit) never reaches the model", async () => {
    const token = "tok-RT2-deploy-0123456789";
    const model = scriptedModel(["done"]);
    const hook = 'echo "deploy token is $DEPLOY_TOKEN; HOOK-RAN"';
    const messages = await collect(
      summon("go", {
        model,
        cwd: place.ws(),
        sandbox: false,
        persistSession: false,
        persistTodos: false,
        env: { DEPLOY_TOKEN: token },
        hooks: {
          SessionStart: [{ hooks: [{ type: "command", command: hook }] }],
          UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }],
        },
      }),
    );
    const sent = JSON.stringify(model.requests);
    expect(sent).toContain("HOOK-RAN"); // control: the context did reach the model
    expect(sent).not.toContain(token);
    expect(JSON.stringify(messages)).not.toContain(token);
  });
});

describe("red team 2026-12-05 (2): trust pinned to contents", () => {
  it("F3 found and fixed: a module a trusted config loads through createRequire, changed after trust, does not run", async () => {
    requireDist();
    const config = [
      'import { createRequire } from "node:module";',
      "const load = createRequire(import.meta.url);",
      'load(new URL(["lib", "extra.cjs"].join("/"), import.meta.url).pathname);',
      "export default {};",
      "",
    ].join("\n");
    const dir = realpathSync(mkdtempSync(join("/tmp", "ubq-rt2-trust-")));
    const home = realpathSync(mkdtempSync(join("/tmp", "ubq-rt2-home-")));
    const provider = await startProviderServer(() => "done");
    try {
      mkdirSync(join(dir, ".git"));
      mkdirSync(join(dir, "lib"));
      writeFileSync(join(dir, "ubiquity.config.mjs"), config);
      writeFileSync(join(dir, "lib/extra.cjs"), "module.exports = 1;\n");
      const env = { HOME: home, UBIQUITY_TRUST: "", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: provider.baseURL };
      expect((await runCli(["trust", "."], dir, env)).code).toBe(0);
      const marker = join(dir, "extra-ran");
      writeFileSync(
        join(dir, "lib/extra.cjs"),
        `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`,
      );
      const result = await runCli(["run", "--model", "openai:gpt-5", "go"], dir, env);
      expect(existsSync(marker), result.stderr).toBe(false);
      expect(result.stderr).toContain("ubiquity.config.mjs");
      expect(scanModuleSource(config).computed).not.toEqual([]);
    } finally {
      await provider.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });
});
