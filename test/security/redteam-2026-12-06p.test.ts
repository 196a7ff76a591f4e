/**
 * Red team of 2026-12-06 (p): constructs nobody listed, through the built bin against the
 * scripted attacker (real bwrap, marker files), the engine, and bash and python themselves as the
 * oracle. Each finding's test failed before its fix (checked by reverting the fix).
 *
 * HEADER-TALLY
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { attackBench, installMcpPackage, MCP_PACKAGE, MCP_SERVER } from "./attack-bench";
import { attacker, toolResults } from "./scripted-attacker";
import { runCli } from "../helpers/project";
import { environmentPaths } from "../../loader/index";
import { GrepTool } from "../../plugins/tool-grep/index";
import { compileRule } from "../../plugins/tool-grep/ignore-rules";
import { tempDir, toolContext } from "../tools/helpers";

/** What a planted Python module does when it is imported: a marker in the folder it runs in. */
const PLANT = `import os; open(os.path.join(os.getcwd(), "MARK"), "w").write("ran")`;
const python = spawnSync("python3", ["-c", "import sys; print(sys.version_info >= (3, 11))"], { encoding: "utf8" });
const python311 = python.stdout?.trim() === "True";

const { attack, project, serve, env } = attackBench<{
  mcp?: Record<string, unknown>;
  hook?: string;
  npm?: boolean;
  event?: string;
  lsp?: Record<string, unknown>;
}>({
  name: "redteamp",
  model: "openai:gpt-4.1",
  key: "sk-test-redteam-p",
  fill: ({ cwd }, { mcp, hook, npm, event = "PreToolUse", lsp }) => {
    if (lsp) {
      const server = { ...lsp, extensionToLanguage: { ".py": "python" } };
      writeFileSync(
        join(cwd, "ubiquity.config.mjs"),
        `export default ${JSON.stringify({ lspServers: { srv: server } })};\n`,
      );
      writeFileSync(join(cwd, "x.py"), "x = 1\n");
    }
    if (npm) installMcpPackage(cwd);
    if (mcp) writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { srv: mcp } }));
    if (hook) {
      mkdirSync(join(cwd, ".ubiquity"));
      writeFileSync(
        join(cwd, ".ubiquity", "settings.json"),
        JSON.stringify({ hooks: { [event]: [{ matcher: "*", hooks: [{ type: "command", command: hook }] }] } }),
      );
    }
  },
});

const bypass = ["--permission-mode", "bypassPermissions"];
/** A sandboxed command planting a package `json` at the project's top (nothing protects the name). */
const plantJson = `mkdir json && printf '%s\\n' '${PLANT}' > json/__init__.py && echo planted`;

describe("P1: `python3 -m MOD` puts the folder it starts in first on the import path", () => {
  it("oracle: python -m json.tool imports ./json/__init__.py from its folder", () => {
    const p = project();
    mkdirSync(join(p.cwd, "json"));
    writeFileSync(join(p.cwd, "json", "__init__.py"), PLANT);
    spawnSync("python3", ["-m", "json.tool"], { cwd: p.cwd, input: "{}" });
    expect(existsSync(join(p.cwd, "MARK"))).toBe(true);
  });

  it.skipIf(!sandboxAvailability().ok || !python311)(
    "an MCP server `python3 -m json.tool`: a package a sandboxed command planted at the top does not run as the server at the next start",
    async () => {
      const p = project({ mcp: { command: "python3", args: ["-m", "json.tool", "--help"] } });
      const { out } = await attack([plantJson], bypass, p);
      expect(out[0]!.content).toMatch(/planted/);
      await attack([], bypass, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );

  it.skipIf(!sandboxAvailability().ok || !python311)(
    "a command hook `python3 -m json.tool`: the planted package does not run as the hook (whose answer could approve calls)",
    async () => {
      const p = project({ hook: "python3 -m json.tool >/dev/null" });
      const { out } = await attack([plantJson, "echo second"], bypass, p);
      expect(out[0]!.content).toMatch(/planted/);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );

  it.skipIf(!python311)(
    'a server that is the project\'s module runs from the folder when its own env says so (`PYTHONSAFEPATH: ""`)',
    async () => {
      const p = project({ mcp: { command: "python3", args: ["-m", "tools_srv"], env: { PYTHONSAFEPATH: "" } } });
      writeFileSync(join(p.cwd, "tools_srv.py"), PLANT);
      await attack([], bypass, p);
      expect(readFileSync(join(p.cwd, "MARK"), "utf8")).toBe("ran");
    },
  );
});

/** A Node module that leaves the marker when it is preloaded. */
const BOOT = `require("fs").writeFileSync(require("path").join(process.cwd(), "MARK"), "ran")`;

describe("P2: an MCP server's own `env` names a path in the project its program loads code from", () => {
  it("every path-shaped word, a search path's bare word, and a bare word naming something there count; the folder itself does not", () => {
    const p = project();
    mkdirSync(join(p.cwd, "tools"));
    const paths = environmentPaths(
      {
        NODE_OPTIONS: "--require ./.cache/boot.cjs --import=./esm/x.mjs",
        NODE_PATH: "vendor:/elsewhere",
        PYTHONPATH: ".",
        npm_config_cache: ".npm",
        PLUGINS: "tools",
        NODE_ENV: "production",
        URL: "http://x/y",
      },
      p.cwd,
    );
    expect(paths.sort()).toEqual(
      [".cache/boot.cjs", ".npm", "esm/x.mjs", "tools", "vendor"].map((x) => join(p.cwd, x)),
    );
  });

  it("oracle: NODE_OPTIONS=--require ./x preloads x.js; PYTHONPATH=lib shadows the standard library", () => {
    const p = project();
    mkdirSync(join(p.cwd, ".cache"));
    writeFileSync(join(p.cwd, ".cache", "boot.cjs"), BOOT);
    spawnSync("node", ["-e", "0"], {
      cwd: p.cwd,
      env: { ...process.env, NODE_OPTIONS: "--require ./.cache/boot.cjs" },
    });
    expect(existsSync(join(p.cwd, "MARK"))).toBe(true);
    const q = project();
    mkdirSync(join(q.cwd, "lib", "json"), { recursive: true });
    writeFileSync(join(q.cwd, "lib", "json", "__init__.py"), PLANT);
    spawnSync("python3", ["-m", "json.tool", "--help"], {
      cwd: q.cwd,
      env: { ...process.env, PYTHONPATH: "lib", PYTHONSAFEPATH: "1" },
    });
    expect(existsSync(join(q.cwd, "MARK"))).toBe(true);
  });

  it.skipIf(!sandboxAvailability().ok)(
    "`NODE_OPTIONS: --require ./.cache/boot.cjs` (a file not there when the folder was trusted): a sandboxed command's file does not run at the next start",
    async () => {
      const p = project({
        mcp: { command: "node", args: ["-e", "0"], env: { NODE_OPTIONS: "--require ./.cache/boot.cjs" } },
      });
      const plant = `mkdir -p .cache && printf '%s\\n' '${BOOT}' > .cache/boot.cjs; echo tried`;
      await attack([plant], bypass, p);
      await attack([], bypass, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );

  it.skipIf(!sandboxAvailability().ok || !python311)(
    "`PYTHONPATH: lib` for `python3 -m json.tool`: a package a sandboxed command planted in lib/ does not run at the next start",
    async () => {
      const p = project({
        mcp: { command: "python3", args: ["-m", "json.tool", "--help"], env: { PYTHONPATH: "lib" } },
      });
      const plant = `mkdir -p lib/json && printf '%s\\n' '${PLANT}' > lib/json/__init__.py; echo tried`;
      await attack([plant], bypass, p);
      await attack([], bypass, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );
});

describe("P3: Grep without ripgrep matched a repository's .gitignore lines (and its glob) with backtracking regexes", () => {
  // `*a*a*a*a*a*a*a*ab` against one name of 60 `a`s took 8 s here (40: 0.3 s); of 250, longer than
  // any run: the event loop is held, no abort reaches it.
  const COSTLY = "*a*a*a*a*a*a*a*ab";
  const node = new GrepTool({ backend: "node" });

  it("a .gitignore line whose matching cost has no bound is refused, naming the file", async () => {
    const dir = tempDir("ubq-redteamp-grep-");
    writeFileSync(join(dir, ".gitignore"), `node_modules/\n${COSTLY}\n`);
    writeFileSync(join(dir, "a".repeat(250)), "needle\n");
    const out = await node.call({ pattern: "needle" }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(String(out.content)).toMatch(/too costly to match.*\.gitignore/s);
  });

  it("the model's glob likewise; ordinary ignore lines and globs still match", async () => {
    const dir = tempDir("ubq-redteamp-grep-");
    writeFileSync(join(dir, ".gitignore"), "*.log\nbuild/\n**/tmp/**\n");
    writeFileSync(join(dir, "a".repeat(250)), "needle\n");
    writeFileSync(join(dir, "x.log"), "needle\n");
    writeFileSync(join(dir, "x.ts"), "needle\n");
    const costly = await node.call({ pattern: "needle", glob: COSTLY }, toolContext(dir));
    expect(costly.isError).toBe(true);
    expect(String(costly.content)).toMatch(/too costly to match/);
    const plain = await node.call({ pattern: "needle", glob: "*.ts" }, toolContext(dir));
    expect(plain.isError).toBeFalsy();
    expect(String(plain.content)).toMatch(/x\.ts/);
    expect(compileRule("*.log")?.test("src/x.log")).toBe(true);
  });
});

/** An HTTP proxy on 127.0.0.1 that answers every request itself and records its target. */
async function recordingProxy(): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? "");
    res.setHeader("content-type", "text/plain");
    res.end("instance-secret-from-metadata");
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { server, port: (server.address() as { port: number }).port, seen };
}

describe("P4: WebFetch through the environment's proxy (NODE_USE_ENV_PROXY) judged no address at all", () => {
  it("oracle: with NODE_USE_ENV_PROXY=1 node's http sends a name to HTTP_PROXY and never calls the request's lookup", async () => {
    const proxy = await recordingProxy();
    try {
      const script = `const r = require("node:http").request(new URL("http://metadata.internal.test/x"), { lookup: () => console.log("LOOKUP") });
        r.on("response", (m) => m.on("data", (d) => console.log(String(d)))); r.on("error", (e) => console.log("ERR", e.message)); r.end();`;
      const out = await new Promise<string>((done) => {
        const child = spawn(process.execPath, ["-e", script], {
          env: { ...process.env, NODE_USE_ENV_PROXY: "1", HTTP_PROXY: `http://127.0.0.1:${proxy.port}` },
        });
        let text = "";
        child.stdout.on("data", (d: Buffer) => (text += String(d)));
        child.on("close", () => done(text));
      });
      expect(out).toMatch(/instance-secret-from-metadata/);
      expect(out).not.toMatch(/LOOKUP/);
      expect(proxy.seen).toEqual(["http://metadata.internal.test/x"]);
    } finally {
      proxy.server.close();
    }
  });

  it("a WebFetch of a name the proxy resolves (metadata, intranet) is not sent through it without allowPrivateAddresses", async () => {
    const proxy = await recordingProxy();
    try {
      const p = project();
      await serve(
        attacker([
          { name: "WebFetch", input: { url: "http://metadata.internal.test/computeMetadata/v1/", prompt: "read it" } },
        ]),
      );
      const run = await runCli(
        ["run", "--model", "openai:gpt-4.1", "--output-format", "stream-json", "--allowedTools", "WebFetch", "go"],
        p.cwd,
        {
          ...env(p),
          NODE_USE_ENV_PROXY: "1",
          HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
          http_proxy: `http://127.0.0.1:${proxy.port}`,
          NO_PROXY: "127.0.0.1,localhost",
          no_proxy: "127.0.0.1,localhost",
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const out = toolResults(run.stdout);
      expect(out).toHaveLength(1);
      expect(proxy.seen).toEqual([]);
      expect(out[0]!.content).not.toMatch(/instance-secret/);
      expect(out[0]!.isError).toBe(true);
    } finally {
      proxy.server.close();
    }
  });
});

describe("P5: a command hook that runs a package by name (`npx -y PKG`) ran what a sandboxed command planted in it", () => {
  const PAYLOAD = `require("fs").writeFileSync("MARK", "ran")`;
  it.skipIf(!sandboxAvailability().ok).each(["PreToolUse", "PostToolUse"])(
    "%s: the package is read-only to sandboxed commands from the start, as an MCP server's is (O4, O7)",
    async (event) => {
      // PostToolUse: the hook first runs after the planting call, so noting the package when the
      // hook spawns is too late; it is noted when the hooks are read.
      const p = project({ npm: true, hook: "npx --offline -y @acme/mcp-weather", event });
      const append = `f=index.js; printf '%s\\n' '${PAYLOAD}' >> ${MCP_PACKAGE}/$f; echo tried`;
      const { out } = await attack([append, "echo second"], bypass, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
      expect(out[0]!.content).toMatch(/Read-only file system/);
      expect(readFileSync(join(p.cwd, MCP_PACKAGE, "index.js"), "utf8")).toBe(MCP_SERVER);
    },
  );
});

describe("P6: a language server starts in the project, lazily, with the MCP servers' network, after commands ran", () => {
  const lspCall = { name: "LSP", input: { operation: "documentSymbol", filePath: "x.py" } };
  it.skipIf(!sandboxAvailability().ok || !python311)(
    "`python3 -m json.tool` as the server: the package a sandboxed command planted in this run is not imported",
    async () => {
      const p = project({ lsp: { command: "python3", args: ["-m", "json.tool", "--help"] } });
      const { out } = await attack([plantJson, lspCall], bypass, p);
      expect(out[0]!.content).toMatch(/planted/);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );

  it.skipIf(!sandboxAvailability().ok)(
    "`npx -y PKG` as the server: the package is read-only to the sandboxed command before the server starts",
    async () => {
      const PAYLOAD = `require("fs").writeFileSync("MARK", "ran")`;
      const p = project({ npm: true, lsp: { command: "npx", args: ["--offline", "-y", "@acme/mcp-weather"] } });
      const append = `f=index.js; printf '%s\\n' '${PAYLOAD}' >> ${MCP_PACKAGE}/$f; echo tried`;
      const { out } = await attack([append, lspCall], bypass, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
      expect(out[0]!.content).toMatch(/Read-only file system/);
    },
  );
});
