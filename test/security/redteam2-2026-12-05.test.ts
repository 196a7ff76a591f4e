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
 *  F4 FIXED  A symbolic link under a Read-denied folder (`Read(./data/**)`, data/link -> a file or
 *            folder outside) was readable in the sandbox: the glob that finds what to hide drops
 *            every link when it does not follow them. Links are now found by a walk of their own
 *            and what they lead to is hidden (bubblewrap cannot mount over a link), where the
 *            sandbox shows it at all. (A `.env` that is itself a link already failed closed:
 *            bwrap refuses the spawn, so no command runs in such a workspace; not changed here.)
 *  O1 FIXED  A Unix socket a host process listens on in the workspace (or any path the sandbox can
 *            see) was reachable from inside: a path socket is no network namespace's, and connect()
 *            needs no write access. Now a seccomp filter (plugins/sandbox/seccomp.ts) refuses
 *            socket(AF_UNIX) to sandboxed commands. Still open with network.allowedDomains: socat,
 *            inside, reaches the proxy through a Unix socket, so there they stay allowed (said in
 *            the run's warning).
 *  O2 OPEN   A trusted config that reads a file at run time by a computed path and runs or obeys it
 *            (`eval(readFileSync(new URL(computed, import.meta.url)))`, or hooks from a JSON file
 *            read that way): the file is no import, so it is not pinned; changed after trust it
 *            runs in the next run, outside the sandbox, without a question. Closing it means
 *            refusing a config whose file reads the scan cannot follow (fs is reached many ways).
 *
 * Constructs tried (41): sandbox — a .env linking outside (fails closed), a link to a file and one
 * to a folder under a Read-denied folder (F4), TCP to a host server on 127.0.0.1 (bash /dev/tcp, curl),
 * a host Unix socket in the workspace (O1), a Read rule's file 11 folders deep inside and
 * outside the workspace (F1), /dev/shm and /var/tmp writes, /sys and /proc/1 views; file tools
 * with a Read(./.env) deny — /proc/self/cwd, /proc/<pid>/cwd, /proc/thread-self/cwd,
 * /proc/self/task/<tid>/cwd, /proc/<ppid>/cwd, /proc/self/root/…, `./`, `//`, `x/..`, a trailing
 * `/`, a NUL byte, an upper-cased path, for Read and Grep each, plus Grep and Glob over
 * /proc/self/cwd and /proc/self (held); secrets — SessionStart and UserPromptSubmit context
 * with a key (F2), the same read from /proc without the sandbox (masked in the transcript,
 * not in the model's request: F2); trust — a config's module loaded through createRequire (F3),
 * through eval of a file read by a computed path, and hooks from a JSON file read that way (O2).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { outputs } from "../sandbox/helpers";
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

  it("F4 found and fixed: links under a Read-denied folder (to a file and to a folder outside) are unreadable in the sandbox", async () => {
    const ws = place.ws();
    const far = realpathSync(mkdtempSync("/var/tmp/ubq-rt2-link-"));
    try {
      writeFileSync(join(far, "real.env"), "LINKED-ENV-SECRET\n");
      mkdirSync(join(far, "dir"));
      writeFileSync(join(far, "dir", "s.txt"), "LINKED-DIR-SECRET\n");
      writeFileSync(join(far, "f.txt"), "LINKED-FILE-SECRET\n");
      mkdirSync(join(ws, "data"));
      symlinkSync(join(far, "dir"), join(ws, "data", "linkdir"));
      symlinkSync(join(far, "f.txt"), join(ws, "data", "linkfile.txt"));
      const hook = "cat data/linkdir/s.txt data/linkfile.txt > hook.txt 2>&1; echo ran > ran.txt; exit 0";
      const out = outputs(
        await runBash(["echo after"], {
          cwd: ws,
          sandbox: true,
          permissionMode: "bypassPermissions",
          disallowedTools: ["Read(./data/**)"],
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] },
        }),
      );
      expect(out.c0!.content).toContain("after"); // control: the command ran
      expect(readFileSync(join(ws, "ran.txt"), "utf8")).toBe("ran\n");
      const hookOut = readFileSync(join(ws, "hook.txt"), "utf8");
      expect(hookOut).not.toContain("LINKED-DIR-SECRET");
      expect(hookOut).not.toContain("LINKED-FILE-SECRET");
    } finally {
      rmSync(far, { recursive: true, force: true });
    }
  });

  it("O1 found and fixed: a Unix socket a host process listens on in the workspace is unreachable from a sandboxed command (seccomp: no AF_UNIX socket)", async () => {
    const ws = place.ws();
    const hits: string[] = [];
    const server = createServer((s) => {
      hits.push("connected");
      s.end("HELLO-FROM-HOST\n");
    });
    await new Promise<void>((r) => server.listen(join(ws, "dev.sock"), r));
    let out: ReturnType<typeof outputs>;
    try {
      out = outputs(
        await runBash(
          [`python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('dev.sock');print(s.recv(99))"`],
          { cwd: ws, sandbox: true, permissionMode: "bypassPermissions" },
        ),
      );
    } finally {
      server.close();
    }
    expect(hits).toEqual([]);
    // The command ran and was refused the socket itself (the seccomp filter), not the path.
    expect(out.c0!.content).toContain("PermissionError: [Errno 1] Operation not permitted");
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

/**
 * A project whose ubiquity.config.mjs is `config` and whose lib/`name` holds `first`, trusted;
 * then lib/`name` is changed to what `writeMarker` makes of a marker file's path, and a run
 * follows through the bin. Whether the changed file ran (the marker exists), and the run's stderr.
 */
async function changedAfterTrust(config: string, name: string, first: string, writeMarker: (marker: string) => string) {
  requireDist();
  const dir = realpathSync(mkdtempSync(join("/tmp", "ubq-rt2-trust-")));
  const home = realpathSync(mkdtempSync(join("/tmp", "ubq-rt2-home-")));
  const provider = await startProviderServer(() => "done");
  try {
    mkdirSync(join(dir, ".git"));
    mkdirSync(join(dir, "lib"));
    writeFileSync(join(dir, "ubiquity.config.mjs"), config);
    writeFileSync(join(dir, "lib", name), first);
    const env = { HOME: home, UBIQUITY_TRUST: "", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: provider.baseURL };
    expect((await runCli(["trust", "."], dir, env)).code).toBe(0);
    const marker = join(dir, "extra-ran");
    writeFileSync(join(dir, "lib", name), writeMarker(marker));
    const result = await runCli(["run", "--model", "openai:gpt-5", "go"], dir, env);
    return { ran: existsSync(marker), stderr: result.stderr };
  } finally {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

describe("red team 2026-12-05 (2): trust pinned to contents", () => {
  it("F3 found and fixed: a module a trusted config loads through createRequire, changed after trust, does not run", async () => {
    const config = [
      'import { createRequire } from "node:module";',
      "const load = createRequire(import.meta.url);",
      'load(new URL(["lib", "extra.cjs"].join("/"), import.meta.url).pathname);',
      "export default {};",
      "",
    ].join("\n");
    const { ran, stderr } = await changedAfterTrust(
      config,
      "extra.cjs",
      "module.exports = 1;\n",
      (marker) => `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`,
    );
    expect(ran, stderr).toBe(false);
    expect(stderr).toContain("ubiquity.config.mjs");
    expect(scanModuleSource(config).computed).not.toEqual([]);
  });
});

describe("red team 2026-12-05 (2): file tools", () => {
  it("held: a Read(./.env) deny rule holds for Read and Grep through /proc/self/cwd, /proc/<pid>/cwd, /proc/self/root and spelling tricks", async () => {
    const ws = place.ws();
    writeFileSync(join(ws, ".env"), "SECRET=RT2-FILE-TOOLS-SECRET\n");
    const paths = [
      "/proc/self/cwd/.env",
      `/proc/${process.pid}/cwd/.env`,
      "/proc/thread-self/cwd/.env",
      `/proc/self/task/${process.pid}/cwd/.env`,
      `/proc/self/root${ws}/.env`,
      `${ws}/./.env`,
      `${ws}//.env`,
      `${ws}/x/../.env`,
      `${ws}/.env/`,
      `${ws.toUpperCase()}/.ENV`,
    ];
    const calls: { toolName: string; input: Record<string, unknown>; id: string }[] = paths.flatMap((p, i) => [
      { toolName: "Read", input: { file_path: p }, id: `r${i}` },
      { toolName: "Grep", input: { pattern: "SECRET", path: p, output_mode: "content" }, id: `g${i}` },
    ]);
    calls.push({
      toolName: "Grep",
      input: { pattern: "RT2", path: "/proc/self/cwd", output_mode: "content" },
      id: "gd",
    });
    calls.push({ toolName: "Glob", input: { pattern: "**/.env", path: "/proc/self/cwd" }, id: "gl" });
    calls.push({ toolName: "Read", input: { file_path: join(ws, "ok.txt") }, id: "ok" });
    writeFileSync(join(ws, "ok.txt"), "fine\n");
    const cwd = process.cwd();
    process.chdir(ws); // /proc/self/cwd is this process's
    try {
      const model = scriptedModel([{ toolCalls: calls }, "done"]);
      const out = outputs(
        await collect(
          summon("go", {
            model,
            cwd: ws,
            sandbox: false,
            permissionMode: "bypassPermissions",
            persistSession: false,
            persistTodos: false,
            disallowedTools: ["Read(./.env)"],
          }),
        ),
      );
      expect(out.ok!.content).toContain("fine"); // control
      expect(Object.keys(out)).toHaveLength(calls.length);
      for (const [id, o] of Object.entries(out)) expect(o.content, id).not.toContain("RT2-FILE-TOOLS-SECRET");
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("red team 2026-12-05 (2): trust, open", () => {
  it.fails("O2 open: a file a trusted config reads by a computed path and evaluates, changed after trust, runs", async () => {
    const config = [
      'import { readFileSync } from "node:fs";',
      '(0, eval)(readFileSync(new URL(["lib", "extra.js"].join("/"), import.meta.url), "utf8"));',
      "export default {};",
      "",
    ].join("\n");
    const { ran } = await changedAfterTrust(
      config,
      "extra.js",
      "1;\n",
      (marker) => `process.getBuiltinModule("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`,
    );
    expect(ran).toBe(false);
  });
});
