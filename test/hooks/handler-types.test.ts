/**
 * Claude Code's other hook handler types, on any model, with real parts: `http` hooks against a
 * real HTTP server on 127.0.0.1 (blocking answers, the URL allow-list, header variables that
 * never carry a provider key, errors that never block), `prompt` hooks judged by the run's model
 * (charged to the run), `agent` hooks judged by a subagent that reads files, and
 * `CLAUDE_ENV_FILE` (what a SessionStart hook exports reaches every later Bash command, sandbox
 * off and on), with the marker files and the tool output as the oracle.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { summon, type Message, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { interpolateHeader, urlAllowed } from "../../plugins/hooks/http";
import { readVerdict } from "../../plugins/hooks/model-hook";
import { SKIP as sandboxMissing } from "../sandbox/helpers";

const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-hook-types-"));

interface Seen {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** A hook endpoint on 127.0.0.1: answers by path, records every request. */
let server: Server;
let base = "";
const seen: Seen[] = [];
const answers: Record<string, { status: number; body: string; headers?: Record<string, string> }> = {
  "/block": {
    status: 200,
    body: JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "the endpoint says no",
      },
    }),
  },
  "/empty": { status: 200, body: "" },
  "/fail": { status: 500, body: JSON.stringify({ decision: "block", reason: "a 500 never blocks" }) },
  "/text": { status: 200, body: "plain words, not JSON" },
  "/redirect": { status: 302, body: "", headers: { location: "/block" } },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req
      .on("data", (d) => (body += d))
      .on("end", () => {
        seen.push({
          path: req.url ?? "",
          headers: req.headers,
          body: JSON.parse(body || "{}") as Record<string, unknown>,
        });
        const answer = answers[req.url ?? ""] ?? { status: 404, body: "" };
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body);
      });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  vi.unstubAllEnvs();
});

const allow = () => ({ behavior: "allow" as const });
const common: Options = {
  canUseTool: allow,
  persistSession: false,
  persistTodos: false,
  sandbox: false,
  marketPricing: false,
};
const toolResults = (messages: Message[]) =>
  messages.flatMap((m) => (m.type === "tool_result" ? [m.output.content] : []));

/** A run whose model calls Bash once with `command`, then says done. */
function bashOnce(cwd: string, command: string, options: Options) {
  const model = scriptedModel(({ request }) =>
    request.prompt.at(-1)?.role === "tool" ? "done" : { toolCalls: [{ toolName: "Bash", input: { command } }] },
  );
  return collect(summon("go", { ...common, model, cwd, ...options }));
}

describe("http hooks", () => {
  it("a 2xx JSON deny blocks the call; the endpoint got the hook input", async () => {
    const cwd = temp();
    seen.length = 0;
    const messages = await bashOnce(cwd, "touch made", {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: `${base}/block` }] }] },
    });
    expect(existsSync(join(cwd, "made"))).toBe(false);
    expect(toolResults(messages).join("\n")).toContain("the endpoint says no");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch made" },
      cwd,
    });
    expect(seen[0]!.headers["content-type"]).toBe("application/json");
  });

  it("a URL allowedHttpHookUrls does not admit is never called; the call goes on", async () => {
    const cwd = temp();
    seen.length = 0;
    await bashOnce(cwd, "touch made", {
      allowedHttpHookUrls: ["https://hooks.example.com/*"],
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: `${base}/block` }] }] },
    });
    expect(seen).toHaveLength(0);
    expect(existsSync(join(cwd, "made"))).toBe(true);
    // An empty list admits nothing; a pattern that covers the URL admits it.
    expect(urlAllowed(`${base}/block`, [])).toBe(false);
    expect(urlAllowed(`${base}/block`, [`${base}/*`])).toBe(true);
    expect(urlAllowed(`${base}/block`, undefined)).toBe(true);
    expect(urlAllowed(`${base}/block.evil.example/x`, [`${base}/block`])).toBe(false);
  });

  it("errors never block: a 500, a body that is not JSON, a redirect (not followed), an empty answer", async () => {
    for (const path of ["/fail", "/text", "/redirect", "/empty"]) {
      const cwd = temp();
      seen.length = 0;
      await bashOnce(cwd, "touch made", {
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: `${base}${path}` }] }] },
      });
      expect(existsSync(join(cwd, "made")), path).toBe(true);
      expect(seen.map((s) => s.path)).toEqual([path]); // the redirect's target was not asked
    }
  });

  it("headers get only the variables the hook lists, never a provider key", async () => {
    const cwd = temp();
    seen.length = 0;
    vi.stubEnv("UBQ_HOOK_TOKEN", "team-token-123");
    vi.stubEnv("UBQ_HOOK_OTHER", "other-value-456");
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-never-sent-789");
    await bashOnce(cwd, "true", {
      hooks: {
        PreToolUse: [
          {
            hooks: [
              {
                type: "http",
                url: `${base}/empty`,
                headers: {
                  authorization: "Bearer $UBQ_HOOK_TOKEN",
                  "x-other": "${UBQ_HOOK_OTHER}",
                  "x-key": "$ANTHROPIC_API_KEY",
                },
                allowedEnvVars: ["UBQ_HOOK_TOKEN", "ANTHROPIC_API_KEY"],
              },
            ],
          },
        ],
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.authorization).toBe("Bearer team-token-123");
    expect(seen[0]!.headers["x-other"]).toBe("");
    expect(seen[0]!.headers["x-key"]).toBe("");
    expect(interpolateHeader("a $X b", new Set(["X"]), { X: "1" })).toBe("a 1 b");
    expect(interpolateHeader("a $X b", new Set(["X"]), {})).toBe("a  b");
    expect(
      interpolateHeader("${ANTHROPIC_API_KEY}", new Set(["ANTHROPIC_API_KEY"]), { ANTHROPIC_API_KEY: "sk-1" }),
    ).toBe("");
  });

  it("httpHookAllowedEnvVars narrows what a hook may list", async () => {
    const cwd = temp();
    seen.length = 0;
    vi.stubEnv("UBQ_HOOK_TOKEN", "team-token-123");
    await bashOnce(cwd, "true", {
      httpHookAllowedEnvVars: ["SOMETHING_ELSE"],
      hooks: {
        PreToolUse: [
          {
            hooks: [
              {
                type: "http",
                url: `${base}/empty`,
                headers: { authorization: "Bearer $UBQ_HOOK_TOKEN" },
                allowedEnvVars: ["UBQ_HOOK_TOKEN"],
              },
            ],
          },
        ],
      },
    });
    expect(seen[0]!.headers.authorization).toBe("Bearer"); // the empty value, trimmed by HTTP
  });
});

const JUDGE = "You evaluate a condition for a coding agent's hook";
type Prompt = { role: string; content: unknown }[];
const systemText = (prompt: Prompt) =>
  prompt
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
const userText = (prompt: Prompt) => JSON.stringify(prompt.filter((m) => m.role === "user"));

describe("prompt hooks", () => {
  it("ok:false from the run's model blocks a Bash call; the judge saw the input; its tokens are the run's", async () => {
    const cwd = temp();
    const judged: string[] = [];
    const model = scriptedModel(({ request }) => {
      const prompt = request.prompt as Prompt;
      if (systemText(prompt).includes(JUDGE)) {
        judged.push(userText(prompt));
        return '{"ok": false, "reason": "deleting files is not part of this task"}';
      }
      return prompt.at(-1)?.role === "tool"
        ? "done"
        : { toolCalls: [{ toolName: "Bash", input: { command: "touch made" } }] };
    });
    const messages = await collect(
      summon("go", {
        ...common,
        model,
        cwd,
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "prompt", prompt: "Block anything that writes files. Call: $ARGUMENTS" }],
            },
          ],
        },
      }),
    );
    expect(existsSync(join(cwd, "made"))).toBe(false);
    expect(toolResults(messages).join("\n")).toContain("deleting files is not part of this task");
    expect(judged).toHaveLength(1);
    expect(judged[0]).toContain("Block anything that writes files. Call: ");
    expect(judged[0]).toContain("touch made");
    const result = messages.at(-1)!;
    expect(result.type).toBe("result");
    // Three model calls: the turn with the Bash call, the judge, the final turn.
    expect(result.type === "result" && result.usage.requests).toBe(3);
  });

  it("ok:true lets the call go on; an answer that is not JSON is a non-blocking error", async () => {
    for (const answer of ['{"ok": true}', "I think it is fine"]) {
      const cwd = temp();
      const model = scriptedModel(({ request }) => {
        const prompt = request.prompt as Prompt;
        if (systemText(prompt).includes(JUDGE)) return answer;
        return prompt.at(-1)?.role === "tool"
          ? "done"
          : { toolCalls: [{ toolName: "Bash", input: { command: "touch made" } }] };
      });
      await collect(
        summon("go", {
          ...common,
          model,
          cwd,
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt: "Judge $ARGUMENTS" }] }] },
        }),
      );
      expect(existsSync(join(cwd, "made")), answer).toBe(true);
    }
  });

  it("a Stop prompt hook's ok:false makes the model go on with the reason", async () => {
    const cwd = temp();
    const turns: string[] = [];
    let judged = 0;
    const model = scriptedModel(({ request }) => {
      const prompt = request.prompt as Prompt;
      if (systemText(prompt).includes(JUDGE))
        return judged++ === 0 ? '{"ok": false, "reason": "the tests were not run"}' : '{"ok": true}';
      turns.push(userText(prompt));
      return turns.length === 1 ? "finished" : "ran the tests; finished";
    });
    const messages = await collect(
      summon("go", {
        ...common,
        model,
        cwd,
        hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work complete? $ARGUMENTS" }] }] },
      }),
    );
    expect(turns).toHaveLength(2);
    expect(turns[1]).toContain("the tests were not run");
    const result = messages.at(-1)!;
    expect(result.type === "result" && result.result).toBe("ran the tests; finished");
  });

  it("reads the judge's answer as Claude Code does", () => {
    expect(readVerdict('{"ok": false, "reason": "no"}')).toEqual({ decision: "block", reason: "no" });
    expect(readVerdict('Sure: {"ok": true}')).toEqual({});
    expect(readVerdict('{"decision": "block", "reason": "legacy"}')).toEqual({ decision: "block", reason: "legacy" });
    expect(typeof readVerdict("nothing")).toBe("string");
    expect(typeof readVerdict('{"maybe": 1}')).toBe("string");
  });
});

describe("agent hooks", () => {
  it("a subagent that may Read judges the call: it reads a file and blocks with its reason", async () => {
    const cwd = temp();
    writeFileSync(join(cwd, "POLICY.md"), "Never create files named made.\n");
    let agentTools: string[] = [];
    const model = scriptedModel(({ request }) => {
      const prompt = request.prompt as Prompt;
      if (systemText(prompt).includes(JUDGE)) {
        agentTools = (request.tools ?? []).map((t) => t.name).sort();
        if (prompt.at(-1)?.role !== "tool")
          return { toolCalls: [{ toolName: "Read", input: { file_path: join(cwd, "POLICY.md") } }] };
        const read = JSON.stringify(prompt.at(-1)!.content);
        return read.includes("Never create files named made")
          ? '{"ok": false, "reason": "POLICY.md forbids a file named made"}'
          : '{"ok": true}';
      }
      return prompt.at(-1)?.role === "tool"
        ? "done"
        : { toolCalls: [{ toolName: "Bash", input: { command: "touch made" } }] };
    });
    const messages = await collect(
      summon("go", {
        ...common,
        model,
        cwd,
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "agent", prompt: "Check the call against POLICY.md: $ARGUMENTS" }] },
          ],
        },
      }),
    );
    expect(existsSync(join(cwd, "made"))).toBe(false);
    expect(toolResults(messages).join("\n")).toContain("POLICY.md forbids a file named made");
    expect(agentTools).toEqual(["Glob", "Grep", "Read"]);
  });
});

describe("CLAUDE_ENV_FILE", () => {
  const hook = {
    type: "command" as const,
    command: `test -n "$CLAUDE_ENV_FILE" && { echo 'export UBQ_FROM_HOOK=hello-from-hook'; echo 'export PATH="/opt/ubq-bin:$PATH"'; echo "export UBQ_ENV_PATH=$CLAUDE_ENV_FILE"; } >> "$CLAUDE_ENV_FILE"`,
  };
  async function run(sandbox: boolean) {
    const cwd = temp();
    const messages = await bashOnce(
      cwd,
      'echo "v=$UBQ_FROM_HOOK"; echo "p=$PATH"; echo "f=$UBQ_ENV_PATH"; test -e "$UBQ_ENV_PATH" && echo kept || echo removed',
      { sandbox, hooks: { SessionStart: [{ matcher: "startup", hooks: [hook] }] } },
    );
    return toolResults(messages).join("\n");
  }

  it("what a SessionStart hook exports reaches later Bash commands (and PATH expands)", async () => {
    const out = await run(false);
    expect(out).toContain("v=hello-from-hook");
    expect(out).toMatch(/p=\/opt\/ubq-bin:\/.+/);
    expect(out).toMatch(/f=\/.*ubiquity-session-env-[^/]+\/sessionstart-hook-0-/);
    expect(out).toContain("removed"); // read once, then removed
  });

  it.skipIf(sandboxMissing)("the same with the sandbox on (the file lives in the run's private /tmp)", async () => {
    const out = await run(true);
    expect(out).toContain("v=hello-from-hook");
    expect(out).toMatch(/f=\/tmp\/sessionstart-hook-0-/);
    expect(out).toContain("removed");
  });

  it("without such a hook, nothing is added", async () => {
    const cwd = temp();
    const out = toolResults(await bashOnce(cwd, 'echo "v=$UBQ_FROM_HOOK"', {})).join("\n");
    expect(out).toMatch(/^v=$/m);
  });
});
