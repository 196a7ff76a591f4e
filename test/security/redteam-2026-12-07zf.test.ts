/**
 * HEADER-PLACEHOLDER
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pinnedFetch } from "../../plugins/mcp/server-fetch";
import { toolchainSettings } from "../../plugins/sandbox/toolchain-settings";
import { binPath } from "../helpers/project";
import { noteUrlSecrets } from "../../plugins/_kits/process/index";
import { redactText, secretsOf } from "../../src/index";
import { SKIP } from "../sandbox/helpers";
import { removeTempProjects, runCli, tempProject } from "../helpers/project";
import { startAgent } from "../acp/helpers";
import { attackBench } from "./attack-bench";

const KEY = "sk-test-redteam7zf";

const { project, attack, serve, env } = attackBench({
  name: "rt7zf",
  model: "openai:gpt-4.1",
  key: KEY,
  fill: () => {},
});

/** Write `text` at `rel` under `root`, its folders made. */
const plant = (root: string, rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

/**
 * Installations as each tool lays them out in the home (the installation's folder holds `bin`),
 * and the settings file where the tool documents its installation-wide settings.
 */
const SETTINGS = [
  // npm's global config, `npm config set -g` ($PREFIX/etc/npmrc), under each node version manager.
  { install: ".nvm/versions/node/v20.11.0", file: "etc/npmrc" },
  { install: ".volta/tools/image/node/20.11.0", file: "etc/npmrc" },
  { install: ".fnm/node-versions/v20.11.0/installation", file: "etc/npmrc" },
  { install: ".asdf/installs/nodejs/20.11.0", file: "etc/npmrc" },
  { install: ".local/share/mise/installs/node/20.11.0", file: "etc/npmrc" },
  // rubygems' system-wide gemrc (RbConfig sysconfdir).
  { install: ".rbenv/versions/3.3.0", file: "etc/gemrc" },
  // pip's site config ({sys.prefix}/pip.conf) in a pyenv Python and a pipenv virtualenv.
  { install: ".pyenv/versions/3.12.1", file: "pip.conf" },
  { install: ".local/share/virtualenvs/app-x1y2", file: "pip.conf" },
  // conda's per-environment condarc, and an environment's activation script (conda's documented
  // place for an environment's secret variables).
  { install: ".conda/envs/ml", file: ".condarc" },
  { install: ".conda/envs/ml", file: "etc/conda/activate.d/env_vars.sh" },
  // conda's per-user condarc in its own folder (channel URLs carry anaconda.org tokens: /t/<token>/).
  { install: ".conda", file: ".condarc" },
  // maven's global settings (server passwords) under sdkman.
  { install: ".sdkman/candidates/maven/3.9.6", file: "conf/settings.xml" },
] as const;

/** A home with each installation of SETTINGS, its secret, a program, and what must stay readable. */
const toolchainHome = (home: string) => {
  for (const [i, s] of SETTINGS.entries()) {
    plant(join(home, s.install), s.file, `//registry.npmjs.org/:_authToken=CANARY-ZF1-${i}\n`);
    if (s.install !== ".conda") plant(join(home, s.install), "bin/tool", "#!/bin/sh\necho tool-ran\n");
  }
  // A JDK's conf (its security policy), a virtualenv's pyvenv.cfg and a node's own files stay.
  const jdk = ".sdkman/candidates/java/21.0.2-tem";
  plant(join(home, jdk), "release", 'JAVA_VERSION="21.0.2"\n');
  plant(join(home, jdk), "lib/modules", "");
  plant(join(home, jdk), "bin/java", "");
  plant(join(home, jdk), "conf/security/java.security", "security.provider.1=SUN\n");
  plant(join(home, ".local/share/virtualenvs/app-x1y2"), "pyvenv.cfg", "home = /usr/bin\n");
  plant(join(home, ".nvm/versions/node/v20.11.0"), "lib/node_modules/npm/package.json", '{"name":"npm"}\n');
  plant(home, ".rustup/settings.toml", 'default_toolchain = "stable-x86_64-unknown-linux-gnu"\n');
};

/** Is npm on this machine's PATH (to see that it still runs with its global config hidden)? */
const NPM = spawnSync("npm", ["--version"], { encoding: "utf8" }).status === 0;

describe("ZF1: a toolchain's installation-wide settings in the home are hidden from sandboxed commands", () => {
  it("the walk names each installation's settings place, and keeps a JDK's conf, pyvenv.cfg and the packages", () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-rt7zf-tc-")));
    try {
      toolchainHome(home);
      const roots = [
        ".nvm",
        ".volta",
        ".fnm",
        ".asdf",
        ".local/share/mise",
        ".rbenv",
        ".pyenv",
        ".local/share/virtualenvs",
        ".conda",
        ".sdkman",
      ].map((r) => join(home, r));
      const hidden = toolchainSettings(roots);
      const covered = (p: string) => hidden.some((h) => p === h || p.startsWith(`${h}/`));
      for (const s of SETTINGS) expect(covered(join(home, s.install, s.file)), s.file).toBe(true);
      expect(covered(join(home, ".sdkman/candidates/java/21.0.2-tem/conf/security/java.security"))).toBe(false);
      expect(covered(join(home, ".local/share/virtualenvs/app-x1y2/pyvenv.cfg"))).toBe(false);
      expect(covered(join(home, ".nvm/versions/node/v20.11.0/lib/node_modules/npm/package.json"))).toBe(false);
      expect(covered(join(home, ".nvm/versions/node/v20.11.0/bin/tool"))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it.skipIf(SKIP)(
    "through the bin, sandbox on: `cat` of each prints nothing of it; the toolchains' programs and the JDK's conf still read",
    {
      timeout: 120_000,
    },
    async () => {
      const p = project();
      toolchainHome(p.home);
      const { out } = await attack(
        [
          ...SETTINGS.map((s) => `cat ~/${s.install}/${s.file}`),
          `sh ~/${SETTINGS[0].install}/bin/tool && cat ~/.sdkman/candidates/java/21.0.2-tem/conf/security/java.security ~/.local/share/virtualenvs/app-x1y2/pyvenv.cfg ~/.rustup/settings.toml`,
          // npm takes a global config it cannot read for none (the hidden one), and runs.
          `npm config get registry --globalconfig ~/${SETTINGS[0].install}/etc/npmrc --userconfig /dev/null --cache "$TMPDIR/npm-cache" 2>&1 || echo npm-failed`,
        ],
        ["--permission-mode", "bypassPermissions"],
        p,
      );
      for (const [i, s] of SETTINGS.entries()) {
        expect(out[i]!.content, `${s.install}/${s.file}`).not.toContain("CANARY-ZF1");
        expect(out[i]!.content).toMatch(/Permission denied|No such file/);
      }
      const control = out[SETTINGS.length]!;
      expect(control.content).toContain("tool-ran");
      expect(control.content).toContain("security.provider.1=SUN");
      expect(control.content).toContain("home = /usr/bin");
      expect(control.content).toContain('default_toolchain = "stable-x86_64-unknown-linux-gnu"');
      if (NPM) expect(out[SETTINGS.length + 1]!.content).toContain("https://registry.npmjs.org/");
    },
  );
});

/** Can this machine make a user, network and mount namespace (the rebinding's own DNS and "internet")? */
const UNSHARE = spawnSync("unshare", ["-Urnm", "true"]).status === 0;

/** The rebinding fixture's run in a namespace of its own: what the loopback service heard, and the tool results. */
const rebindRun = (mode: "rebind" | "steady") => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "ubq-rt7zf-rb-")));
  try {
    const fixture = join(import.meta.dirname, "fixtures", "rebind-run.mjs");
    const run = spawnSync("unshare", ["-Urnm", process.execPath, fixture, binPath, work, mode], {
      encoding: "utf8",
      timeout: 150_000,
    });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout.trim().split("\n").pop()!) as {
      hits: string[];
      results: { content: string; isError: boolean }[];
      stderr: string;
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

describe("ZF2: a remote MCP server's own name, rebound to the loopback after it answered from the internet", () => {
  it.skipIf(!UNSHARE)(
    "through the bin: the loopback service hears nothing, and the tool call fails naming the address",
    {
      timeout: 160_000,
    },
    () => {
      const { hits, results, stderr } = rebindRun("rebind");
      expect(hits, "the user's MCP requests (its token header with them) reached a service on this machine").toEqual(
        [],
      );
      expect(results, stderr).toHaveLength(2);
      for (const r of results) {
        expect(r.isError).toBe(true);
        expect(r.content).not.toContain("INTERNAL-SERVICE-ANSWER");
        expect(r.content).toMatch(
          /refused to connect to mcp\.rebind\.example: mcp\.rebind\.example resolves to 127\.0\.0\.1/,
        );
      }
    },
  );

  it.skipIf(!UNSHARE)(
    "control: the same server whose name keeps its address is reached through the held connection",
    {
      timeout: 160_000,
    },
    () => {
      const { hits, results, stderr } = rebindRun("steady");
      expect(hits).toEqual([]);
      expect(results, stderr).toEqual([
        { content: "from-the-server", isError: false },
        { content: "from-the-server", isError: false },
      ]);
    },
  );

  it("control: the held connection hands an event stream on as it arrives (an SSE stream never ends)", async () => {
    const sse = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: message\ndata: first\n\n"); // and nothing more: the stream stays open
    });
    await new Promise<void>((resolve) => sse.listen(0, "127.0.0.1", resolve));
    const abort = new AbortController();
    try {
      const port = (sse.address() as AddressInfo).port;
      // The loopback stands for a public address here (a refusal that allows it), reached by a name.
      const response = await pinnedFetch(
        new URL(`http://mcp.example.com:${port}/mcp`),
        { signal: abort.signal },
        async () => ["127.0.0.1"],
        () => undefined,
        { stream: true },
      );
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const { value } = await response.body!.getReader().read();
      expect(new TextDecoder().decode(value)).toBe("event: message\ndata: first\n\n");
    } finally {
      abort.abort();
      sse.closeAllConnections();
      sse.close();
    }
  });
});

/** Every file under `dir`, read (the transcripts a run left in its home). */
const filesUnder = (dir: string): string =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");

/** A server that answers every request 404, quoting its request line (as Express does). */
const echoingServer = async () => {
  const web = createServer((req, res) =>
    res.writeHead(404, { "content-type": "text/plain" }).end(`Cannot ${req.method} ${req.url}`),
  );
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  return { web, port: (web.address() as AddressInfo).port };
};

describe("ZF3: a credential in a configured endpoint's URL path", () => {
  const TOKEN = "sk-ak-9f8e7d6c5b4a3f2e1d0c";

  it("a remote MCP server's (Zapier's /mcp/<key>/sse) is masked in the init message, the warnings and the transcript", {
    timeout: 120_000,
  }, async () => {
    const { web, port } = await echoingServer();
    try {
      const p = project();
      writeFileSync(
        join(p.cwd, "ubiquity.config.mjs"),
        `export default { mcpServers: { z: { type: "http", url: "http://127.0.0.1:${port}/mcp/${TOKEN}/sse" } } };\n`,
      );
      await serve(() => "done");
      const run = await runCli(["run", "--model", "openai:gpt-4.1", "--output-format", "stream-json", "hi"], p.cwd, {
        ...env(p),
        DEBUG: "ubiquity*",
      });
      expect(run.code, run.stderr).toBe(0);
      // The failure is there, quoting the request line, with the key masked.
      expect(run.stdout).toMatch(/Cannot POST \/mcp\/\[redacted\]\/sse/);
      expect(run.stdout).not.toContain(TOKEN);
      expect(run.stderr).not.toContain(TOKEN);
      expect(filesUnder(p.home)).not.toContain(TOKEN);
    } finally {
      web.close();
    }
  });

  it("an HTTP hook's (Slack's /services/T…/B…/<secret>) is masked in the warning its failure prints", {
    timeout: 120_000,
  }, async () => {
    const { web, port } = await echoingServer();
    const SLACK = "fJ3kL9mN2pQ7rS4tV8wX1yZ5";
    try {
      const p = project();
      mkdirSync(join(p.cwd, ".ubiquity"));
      writeFileSync(
        join(p.cwd, ".ubiquity", "settings.json"),
        JSON.stringify({
          hooks: {
            PreToolUse: [
              {
                matcher: "*",
                hooks: [{ type: "http", url: `http://127.0.0.1:${port}/services/T0AAA/B0BBB/${SLACK}` }],
              },
            ],
          },
        }),
      );
      writeFileSync(join(p.cwd, "README.md"), "# readme\n");
      const { run, out } = await attack([{ name: "Read", input: { file_path: join(p.cwd, "README.md") } }], [], p, {
        DEBUG: "ubiquity*",
      });
      expect(out[0]!.content).toContain("# readme");
      expect(run.stderr).toMatch(
        /HTTP hook http:\/\/127\.0\.0\.1:\d+\/services\/T0AAA\/B0BBB\/\[redacted\] answered 404/,
      );
      expect(run.stderr).not.toContain(SLACK);
      expect(run.stdout).not.toContain(SLACK);
      expect(filesUnder(p.home)).not.toContain(SLACK);
    } finally {
      web.close();
    }
  });

  it("the rule: a path or host part shaped like a credential is a secret; plain words and short ids are not", () => {
    noteUrlSecrets("https://mcp.pipedream.net/2f3c9a7e-1b4d-4e8f-9a6b-0c1d2e3f4a5b/gmail?x=1");
    noteUrlSecrets("https://example.com/api/v1/servers/12345/modelcontextprotocol/mcp");
    const secrets = secretsOf({});
    const text = redactText(
      "GET /2f3c9a7e-1b4d-4e8f-9a6b-0c1d2e3f4a5b/gmail /api/v1/servers/12345/modelcontextprotocol/mcp",
      secrets,
    );
    expect(text).toBe("GET /[redacted]/gmail /api/v1/servers/12345/modelcontextprotocol/mcp");
  });
});

/**
 * The ACP tests' scripted model, playing the attacker: on "pipe" it makes a FIFO with Bash, then
 * asks to Write over it (the editor is asked first, and its question carries the file's old text).
 */
const FIFO_CONFIG = `
import { scriptedModel } from "ubiquity/testing";
export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const tools = request.prompt.filter((m) => m.role === "tool").length;
    if (tools === 0) return { toolCalls: [{ toolName: "Bash", input: { command: "mkfifo pipe" } }] };
    if (tools === 1) return { toolCalls: [{ toolName: "Write", input: { file_path: "pipe", content: "x" } }] };
    return { text: "finished" };
  }),
};
`;

describe("ZF4: ACP's diff of a Write read a FIFO the agent made, by name, blocking", () => {
  afterAll(removeTempProjects);

  it("through the bin (`ubiquity acp`, an editor that serves no files): the Write fails naming the pipe, and the prompt ends", {
    timeout: 120_000,
  }, async () => {
    const dir = tempProject({ "ubiquity.config.mjs": FIFO_CONFIG }, { linkUbiquity: true });
    const proc = startAgent({ dir, sessions: join(dir, "sessions") });
    try {
      await proc.initialized;
      const { sessionId } = await proc.agent.request("session/new", { cwd: dir, mcpServers: [] });
      proc.answer = (request) => (request.toolCall.title?.startsWith("Write") ? "reject_once" : "allow_once");
      const answer = await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "pipe" }],
      });
      // Before the fix the permission vote's read of `pipe` (for the question's diff) never returned:
      // the Write was announced, then nothing: no question, no result, no end.
      expect(answer.stopReason).toBe("end_turn");
      const write = proc.updates
        .map((u) => u.update)
        .filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
      expect(JSON.stringify(write)).toContain("pipe is not a regular file");
    } finally {
      await proc.close();
    }
  });
});

/** The ACP tests' scripted model, playing the attacker: on "look" it reads a.txt. */
const READ_CONFIG = `
import { scriptedModel } from "ubiquity/testing";
export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const tools = request.prompt.filter((m) => m.role === "tool").length;
    if (tools === 0) return { toolCalls: [{ toolName: "Read", input: { file_path: "a.txt" } }] };
    return { text: "finished" };
  }),
};
`;

describe("ZF5: when the editor could not serve a file, ACP read it again by name", () => {
  afterAll(removeTempProjects);

  it("through the bin: a link swapped in after the judged read (by the agent's background shell) leads nowhere; Read shows the judged file", {
    timeout: 120_000,
  }, async () => {
    const dir = tempProject(
      { "ubiquity.config.mjs": READ_CONFIG, "a.txt": "plain project text\n" },
      { linkUbiquity: true },
    );
    const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-rt7zf-acphome-")));
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-ZF5\n");
    // The editor has a.txt not open (it answers an error, as the helper's editor does for a file it
    // does not hold); the swap is made at that moment, standing for the agent's background loop that
    // flips a.txt between a file and a link (red team zc, ZC1) winning the race.
    const files = new (class extends Map<string, string> {
      override get(path: string) {
        if (path === join(dir, "a.txt")) {
          unlinkSync(path);
          symlinkSync(join(home, ".ssh", "id_rsa"), path);
        }
        return undefined;
      }
    })();
    const proc = startAgent(
      { dir, sessions: join(dir, "sessions") },
      [],
      { HOME: home },
      { fs: { readTextFile: true } },
      files,
    );
    try {
      await proc.initialized;
      const { sessionId } = await proc.agent.request("session/new", { cwd: dir, mcpServers: [] });
      const answer = await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "look" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(proc.fsCalls).toEqual([{ method: "read", path: join(dir, "a.txt") }]);
      const results = JSON.stringify(
        proc.updates.map((u) => u.update).filter((u) => u.sessionUpdate === "tool_call_update"),
      );
      expect(results).not.toContain("PRIVATE-KEY-ZF5");
      expect(results).toContain("plain project text");
    } finally {
      await proc.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
