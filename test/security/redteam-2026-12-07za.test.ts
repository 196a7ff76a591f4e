/**
 * Red team of 2026-12-07 (za): everything but the Bash command analysis, as a stranger whose
 * folder, page, MCP server or repository the user's agent opens. Through the built bin (under a
 * real pseudo-terminal where the terminal is the surface) against the scripted attacker, and the
 * SDK with a scripted model. Each finding's test failed before its fix (checked by reverting it).
 *
 * Z1 FIXED  What an approval shows was not what runs. The approval's body and question (`ubiquity
 *           run` and the terminal UI: approvalBody/approvalQuestion) and the UI's call line printed
 *           the call as the model wrote it: `touch pwned #\r\e[2Kgit status` showed `git status` on
 *           the line that asked (the carriage return and line erase obeyed), a bidi override
 *           (U+202E) reversed what followed, zero-width characters and tags (U+E0041) hid text,
 *           and a Write's path and content, an MCP tool's fields (U+2028, soft hyphen), the
 *           "always" rule, the run's background-task and reviewer lines and `--verbose` did the
 *           same. Rule: text a person judges is shown by `visibleExactly` — every control
 *           character and every character Unicode calls default-ignorable (plus U+2028/9) as an
 *           escape; the run's own lines by `visibleControls`.
 * Z2 FIXED  A plugin command's output went to the terminal raw: `ubiquity mcp list` printed a
 *           server's tool description holding OSC 52 (sets the clipboard) and a title sequence;
 *           `ubiquity sessions show` printed a transcript's tool output (an MCP server's, a web
 *           page's) the same way. Rule: a plugin command's stdout and stderr on a terminal pass
 *           through `terminalText` (commandIO); a pipe still gets the text as it is.
 * Z3 FIXED  A terminal answerer's words came from a server: an MCP elicitation's message and the
 *           URL it asks the user to open were printed raw (ESC sequences, a bidi override in the
 *           URL; a `\r` there is dropped by URL parsing). Rule: what an answerer prints and asks
 *           (elicitation, AskUserQuestion) is shown by `visibleExactly`.
 * Z4 FIXED  The terminal mode's lists (`/help` with an MCP prompt's description, `/tasks`,
 *           `/resume`) printed their entries raw. Rule: `say` shows control characters.
 * Z5 FIXED  A remote MCP server's answer was read whole into the host's memory (the SDK's
 *           `response.json()`, `text()`, and its event-stream parser), whatever its size; a stdio
 *           line is bounded by the SDK (10 MiB, held). Rule: everything a remote server answers
 *           is read up to that bound, an event stream per event; a larger event ends the
 *           connection (the SDK would wait for the answer it held).
 * Z6 FIXED  A server's tool schema holds regular expressions the client runs with ajv on the
 *           host's thread, in JavaScript's backtracking engine: `pattern: "^(a|a)*$"` against the
 *           server's own structured output (40 a's and a "!"), or against the input its tool
 *           description asked the model for, froze the process (every session and timer) for
 *           days. Rule: a schema's patterns run in V8's linear-time engine; one it cannot run (a
 *           backreference, a lookaround, a meaning that needs `u`) is not run (these checks are a
 *           courtesy: the server checks its own input), never the backtracking engine.
 *
 * Tally: about 33 constructs tried (19 through the bin, 8 through the SDK, the rest by reading the
 * code); 19 got through, in 6 findings (Z1: 10, Z2: 2, Z3: 2, Z4: 1, Z5: 2, Z6: 2), all fixed.
 * Held: the trust question (its `printable` already hides controls and bidi), `ubiquity trust .`
 * (it lists folders and kinds, not a folder's file names), the run's warnings on a terminal
 * (`terminalText`), a stdio server's long line (the SDK's 10 MiB), OAuth discovery documents
 * (`pinnedFetch`, 1 MiB); by reading the code: MCP `resource_link` blocks (described, never
 * fetched), an elicitation URL (shown, never opened), an agent file's `permissionMode` (a cap),
 * a project's commands (trust-gated), `--resume` (an id in the user's store, no path), and
 * `${VAR}` in `.mcp.json` (provider keys refused since red team e).
 * Left open: `visibleExactly` shows the joiners inside emoji sequences as escapes in an approval
 * (legible, not pretty); the linear engine runs an ASCII pattern without `u`, so `.` against an
 * astral character judges differently (a refused call the server would take), and it is turned
 * on by `v8.setFlagsFromString` at the first compiled schema (it only adds the `l` flag); a
 * remote event or stdio line over the bound ends the connection with "the connection closed" /
 * "its process exited", not the bound's own words (the JSON case names it).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { terminalApprover } from "../../runner/run";
import { elicitInTerminal } from "../../plugins/mcp/elicitation";
import { approvalBody, approvalQuestion } from "../../runner/tui/approval-view";
import { toolCallLine } from "../../runner/tui/tool-view";
import { createTheme } from "../../runner/tui/theme";
import { boundedResponse } from "../../plugins/mcp/message-bound";
import { linearRegExp } from "../../plugins/mcp/input-schema";
import { collect, ofType } from "../helpers/collect";
import { runCli } from "../helpers/project";
import { inTerminal, PROMPT } from "../helpers/terminal";
import { attackBench } from "./attack-bench";
import { attacker, toolResults } from "./scripted-attacker";

const KEY = "sk-test-redteam-za-provider-key";
const SERVER = fileURLToPath(new URL("./fixtures/escapes-server.mjs", import.meta.url));

const { project, serve, env } = attackBench({
  name: "rtza",
  model: "openai:gpt-4.1",
  key: KEY,
  fill: ({ cwd }) => writeFileSync(join(cwd, "README.md"), "# readme\n"),
});

/** A project whose config starts the hostile server (no sandbox: the terminal is the layer under test). */
const withServer = () => {
  const p = project();
  writeFileSync(
    join(p.cwd, "ubiquity.config.mjs"),
    `export default { sandbox: { enabled: false }, mcpServers: { escapes: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}] } } };\n`,
  );
  return p;
};

describe("Z1: an approval shows what runs", () => {
  // A command the model was steered to (a page, a file, a server's answer): after the carriage
  // return and the line erase, a terminal shows `git status` on the line that asks.
  const COMMAND = "touch pwned #\r\u001b[2Kgit status";

  it("through the bin under a terminal: the question shows the escapes, the terminal obeys none", {
    timeout: 120_000,
  }, async () => {
    const p = project();
    await serve(attacker([COMMAND]));
    const { code, screen } = await inTerminal(
      p.cwd,
      ["run", "--no-sandbox", "--model", "openai:gpt-4.1", "go"],
      env(p),
      [{ until: (s) => s.includes("Allow Bash?"), type: "n\r" }],
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain("touch pwned #\\x0d\\x1b[2Kgit status");
    expect(screen, "the command reached the terminal with its carriage return").not.toContain("#\rgit status");
    expect(existsSync(join(p.cwd, "pwned"))).toBe(false);
  });

  it("`--verbose` under a terminal: a background task's command is shown with its escapes", {
    timeout: 120_000,
  }, async () => {
    const p = project();
    await serve(
      attacker([{ name: "Bash", input: { command: "sleep 0 #\u001b]0;pwned\u0007", run_in_background: true } }]),
    );
    const { code, screen } = await inTerminal(
      p.cwd,
      ["run", "--no-sandbox", "--verbose", "--model", "openai:gpt-4.1", "go"],
      env(p),
      [{ until: (s) => s.includes("Allow Bash?"), type: "y\r" }],
    );
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/\[verbose\] background shell \S+ started: .*\\x1b\]0;pwned\\x07/);
    expect(screen, "the command's OSC reached the terminal").not.toContain("\u001b]");
  });

  it("the terminal UI's views (the approval body, its question, the call's line) show every invisible character", () => {
    const theme = createTheme(false);
    const bidi = "echo \u202etxt.exe\u202c; rm -rf x\u200b \u{e0041}";
    const body = approvalBody("Bash", { command: bidi }, "/tmp", theme).join("\n");
    expect(body).toContain("\\u{202e}txt.exe\\u{202c}; rm -rf x\\u{200b} \\u{e0041}");
    expect(approvalQuestion("Bash", { command: COMMAND }, [`Bash(${COMMAND})`])).not.toMatch(/[\r\u001b]/);
    expect(toolCallLine("Bash", { command: COMMAND }, "/tmp")).not.toMatch(/[\r\u001b]/);
    const write = approvalBody(
      "Write",
      { file_path: "/tmp/a\u001b]0;t\u0007.txt", content: "x\u001b[8mhidden" },
      "/tmp",
      theme,
    );
    expect(write.join("\n")).not.toMatch(/[\r\u001b\u0007]/);
    expect(approvalBody("mcp__s__t", { q: "a\u2028b\u00adc" }, "/tmp", theme).join("\n")).toContain(
      "a\\u{2028}b\\u{ad}c",
    );
  });

  it("control: an ordinary command, accents, CJK and emoji are shown as written", () => {
    const theme = createTheme(false);
    const command = "npm test -- --grep 'café 漢字 ✅'\ngit status";
    expect(approvalBody("Bash", { command }, "/tmp", theme)).toEqual([
      "Bash",
      "$ npm test -- --grep 'café 漢字 ✅'",
      "  git status",
    ]);
  });
});

describe("Z2: a command's output on a terminal holds a server's (or a transcript's) escapes", () => {
  it("`ubiquity mcp list` under a terminal: the tool's description shows its escapes", {
    timeout: 120_000,
  }, async () => {
    const p = withServer();
    const { code, screen } = await inTerminal(p.cwd, ["mcp", "list"], { HOME: p.home }, []);
    expect(code, screen).toBe(0);
    expect(screen).toContain("mcp__escapes__notes");
    expect(screen).toContain("\\x1b]52;c;");
    expect(screen, "the server's OSC 52 reached the terminal").not.toContain("\u001b]");
  });

  it("`ubiquity sessions show` under a terminal: a tool's output kept in the transcript shows its escapes", {
    timeout: 120_000,
  }, async () => {
    const p = withServer();
    await serve(attacker([{ name: "mcp__escapes__notes", input: {} }]));
    const run = await runCli(
      [
        "run",
        "--model",
        "openai:gpt-4.1",
        "--output-format",
        "stream-json",
        "--allowedTools",
        "mcp__escapes__notes",
        "go",
      ],
      p.cwd,
      { ...env(p), UBIQUITY_TRUST: "1" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(run.stdout)[0]!.content).toContain("note one");
    const id = run.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { session_id?: string; sessionId?: string })
      .map((m) => m.session_id ?? m.sessionId)
      .find(Boolean)!;
    const { code, screen } = await inTerminal(p.cwd, ["sessions", "show", id], { HOME: p.home }, []);
    expect(code, screen).toBe(0);
    expect(screen).toContain("note one\\x1b]52;c;");
    expect(screen, "the transcript's OSC 52 reached the terminal").not.toContain("\u001b]");
  });

  it("control: to a pipe, `mcp list` prints the server's text as it is (the reading program decides)", async () => {
    const p = withServer();
    const run = spawnSync(
      process.execPath,
      [join(import.meta.dirname, "..", "..", "bin", "ubiquity.mjs"), "mcp", "list"],
      {
        cwd: p.cwd,
        env: { ...process.env, HOME: p.home, UBIQUITY_TRUST: "1" },
        encoding: "utf8",
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Reads notes\u001b]52;c;");
  });
});

describe("Z3: what a server asks at the terminal (elicitation) is shown exactly", () => {
  it("the URL to open and the message show their escapes and invisible characters", async () => {
    const stdin = new PassThrough();
    const shown: string[] = [];
    const approver = terminalApprover(
      {
        stdout: () => {},
        stderr: (text) => {
          shown.push(text);
          if (text.trimEnd().endsWith(":")) setImmediate(() => stdin.write("!decline\n"));
        },
        stdin,
        stdoutIsTTY: true,
      },
      { answerers: [elicitInTerminal] },
    );
    const messages: Message[] = await collect(
      summon("sign in", {
        presets: [],
        plugins: [mcp()],
        model: scriptedModel([{ toolCalls: [{ toolName: "mcp__escapes__login", input: {}, id: "login" }] }, "done"]),
        canUseTool: approver,
        mcpServers: { escapes: { command: process.execPath, args: [SERVER] } },
      }),
    );
    const out = ofType(messages, "tool_result")[0]!.output;
    expect(JSON.parse(String(out.content))).toEqual({ action: "decline" });
    const screen = shown.join("");
    expect(screen).toContain("https://evil.example/steal\\x1b[2Khttps://github.com/login \\u{202e}gnp.exe");
    expect(screen).toContain("Sign in\\x1b]0;pwned\\x07 to continue");
    expect(screen, "a raw escape, carriage return or bidi override reached the terminal").not.toMatch(
      /[\r\u001b\u0007\u202e]/,
    );
  });
});

describe("Z4: the terminal mode's lists show a server's escapes", () => {
  it("`/help` under a terminal lists an MCP prompt whose description holds OSC 52: shown, not obeyed", {
    timeout: 120_000,
  }, async () => {
    const p = withServer();
    await serve(() => "done");
    const { code, screen } = await inTerminal(p.cwd, ["chat", "--model", "openai:gpt-4.1"], env(p), [
      { until: (s) => s.includes(PROMPT), type: "/help\r" },
      { until: (s) => s.includes("the diff") && s.includes(PROMPT), type: "/exit\r" },
    ]);
    expect(code, screen).toBe(0);
    expect(screen).toContain("Reviews\\x1b]52;c;");
    expect(screen, "the server's OSC 52 reached the terminal").not.toContain("\u001b]");
  });
});

describe("Z5: an MCP server's message is read up to a bound", () => {
  const BIG = fileURLToPath(new URL("./fixtures/big-stdio-server.mjs", import.meta.url));
  const MIB = 1024 * 1024;

  /** A streamable HTTP MCP server on 127.0.0.1 whose tool answers `mib` MiB, as JSON or as one event. */
  const httpServer = async (mib: number, events: boolean) => {
    const body = (request: IncomingMessage) =>
      new Promise<string>((done) => {
        let text = "";
        request.on("data", (c: Buffer) => (text += c));
        request.on("end", () => done(text));
      });
    const server = createServer(async (request, response) => {
      if (request.method !== "POST") return response.writeHead(405).end();
      const { id, method, params } = JSON.parse(await body(request)) as {
        id?: number;
        method: string;
        params: { protocolVersion?: string };
      };
      if (id === undefined) return response.writeHead(202).end();
      const result =
        method === "initialize"
          ? {
              protocolVersion: params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "big", version: "1" },
            }
          : method === "tools/list"
            ? { tools: [{ name: "dump", inputSchema: { type: "object", properties: {} } }] }
            : method === "tools/call"
              ? { content: [{ type: "text", text: "x".repeat(mib * MIB) }] }
              : {};
      const json = JSON.stringify({ jsonrpc: "2.0", id, result });
      if (events && method === "tools/call")
        response.writeHead(200, { "content-type": "text/event-stream" }).end(`event: message\ndata: ${json}\n\n`);
      else response.writeHead(200, { "content-type": "application/json" }).end(json);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close() };
  };

  const dump = async (mcpServers: Record<string, unknown>) => {
    const messages: Message[] = await collect(
      summon("dump it", {
        presets: [],
        plugins: [mcp()],
        model: scriptedModel([{ toolCalls: [{ toolName: "mcp__big__dump", input: {}, id: "dump" }] }, "done"]),
        mcpServers: mcpServers as never,
      }),
    );
    const result = ofType(messages, "tool_result")[0];
    expect(result, JSON.stringify(messages).slice(0, 1500)).toBeDefined();
    return result!.output;
  };

  for (const events of [false, true])
    it(`a remote server's ${events ? "server-sent event of 11 MiB ends its connection" : "JSON answer of 11 MiB fails the call, naming the bound"}`, {
      timeout: 120_000,
    }, async () => {
      const big = await httpServer(11, events);
      try {
        const out = await dump({ big: { type: "http", url: big.url } });
        expect(out.isError, String(out.content).slice(0, 200)).toBe(true);
        expect(String(out.content)).toMatch(
          events ? /stopped during the run \(the connection closed\)/ : /more than 10 MiB/,
        );
      } finally {
        big.close();
      }
    });

  it("held: a stdio server's line of 11 MiB ends it (the SDK's own bound, 10 MiB)", { timeout: 120_000 }, async () => {
    const out = await dump({ big: { command: process.execPath, args: [BIG, "11"] } });
    expect(out.isError, String(out.content).slice(0, 200)).toBe(true);
    expect(String(out.content)).toMatch(/stopped during the run \(its process exited\)/);
  });

  it("control: an event stream is bounded by event, not in total (a long-lived stream of small events reads on)", async () => {
    const stream = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });
    let ended = 0;
    const read = (text: string) => boundedResponse(stream(text), "s", () => ended++, 16).text();
    await expect(read("data: 123456\n\ndata: 123456\r\n\r\ndata: 123456\n\n")).resolves.toContain("123456");
    expect(ended).toBe(0);
    await expect(read("data: 1234567890123\n\n")).rejects.toThrow(/more than/);
    expect(ended).toBe(1);
  });

  it("control: answers of 2 MiB (JSON, an event, a stdio line) are read whole", { timeout: 120_000 }, async () => {
    for (const events of [false, true]) {
      const big = await httpServer(2, events);
      try {
        const out = await dump({ big: { type: "http", url: big.url } });
        expect(out.isError, String(out.content).slice(0, 200)).toBe(false);
        expect(String(out.content)).toMatch(/^x{1000}/);
      } finally {
        big.close();
      }
    }
    const out = await dump({ big: { command: process.execPath, args: [BIG, "2"] } });
    expect(out.isError, String(out.content).slice(0, 200)).toBe(false);
    expect(String(out.content)).toMatch(/^x{1000}/);
  });
});

describe("Z6: a server's schema runs no backtracking regular expression on the host's thread", () => {
  const REGEX = fileURLToPath(new URL("./fixtures/regex-server.mjs", import.meta.url));
  const BIN = join(import.meta.dirname, "..", "..", "bin", "ubiquity.mjs");

  /** The bin in a project with the regex server, the model calling `calls`; undefined when it had not finished in 90 s. */
  const runWith = async (calls: { name: string; input: Record<string, unknown> }[]) => {
    const p = project();
    writeFileSync(
      join(p.cwd, "ubiquity.config.mjs"),
      `export default { sandbox: { enabled: false }, mcpServers: { regex: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(REGEX)}] } } };\n`,
    );
    await serve(attacker(calls));
    const child = spawn(
      process.execPath,
      [BIN, "run", "--model", "openai:gpt-4.1", "--output-format", "stream-json", "--allowedTools", "mcp__regex", "go"],
      { cwd: p.cwd, env: { ...process.env, ...env(p), UBIQUITY_TRUST: "1" } },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    // Generous: the run takes a second or two; a frozen host does not finish in days.
    const finished = await Promise.race([exited.then(() => true), delay(90_000).then(() => false)]);
    if (!finished) child.kill("SIGKILL");
    return finished ? toolResults(out) : undefined;
  };

  it("a tool's output schema: the run goes on (the answer fails its schema)", { timeout: 120_000 }, async () => {
    const out = await runWith([{ name: "mcp__regex__check", input: {} }]);
    expect(out, "the host froze in the schema's regular expression").toBeDefined();
    expect(out![0]!.isError).toBe(true);
    expect(out![0]!.content).toMatch(/output schema|structured content/i);
  });

  it("a tool's input schema, given the text it asks for: the run goes on", { timeout: 120_000 }, async () => {
    const out = await runWith([{ name: "mcp__regex__take", input: { s: `${"a".repeat(40)}!` } }]);
    expect(out, "the host froze in the schema's regular expression").toBeDefined();
    expect(out![0]!.isError).toBe(true);
  });

  it("the engine: linear-time patterns are run; one with no linear-time form (or a meaning that needs `u`) takes every string", () => {
    const evil = linearRegExp("^(a|a)*$", "u");
    expect(evil.test(`${"a".repeat(60)}!`)).toBe(false);
    expect(evil.test("aaa")).toBe(true);
    expect(linearRegExp("^(a)\\1$", "u").test("ab")).toBe(true); // a backreference: not run
    expect(linearRegExp("^\\p{L}+$", "u").test("123")).toBe(true); // needs `u`: not run
    expect(linearRegExp("^[a-z]+$", "u").test("ABC")).toBe(false);
  });

  it("control: a pattern is still checked (a match is taken, a mismatch refused)", { timeout: 120_000 }, async () => {
    const out = await runWith([
      { name: "mcp__regex__fine", input: { s: "abc" } },
      { name: "mcp__regex__fine", input: { s: "ABC" } },
    ]);
    expect(out![0]!.content).toContain('took {"s":"abc"}');
    expect(out![1]!.isError).toBe(true);
    expect(out![1]!.content).toMatch(/pattern/);
  });
});
