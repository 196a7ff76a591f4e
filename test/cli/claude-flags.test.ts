/**
 * Issue 38: `ubiquity -p` takes `claude -p`'s flags with their meaning, through the built bin
 * against a loopback OpenAI-compatible server (`--base-url` + `--model`):
 * - `--allowedTools` / `--allowed-tools` pre-approve and never take a tool away (a bare name too);
 *   `--tools` restricts the set and approves nothing; `--disallowedTools` removes;
 *   `--dangerously-skip-permissions` is bypassPermissions; `--json-schema` is structured output;
 *   kebab and camel spellings are one flag;
 * - `-p` text output is the final result only; `--verbose` prints the rest;
 * - local models: `--base-url`, and `openai-compatible:<model>` from OPENAI_COMPATIBLE_BASE_URL
 *   with OPENAI_COMPATIBLE_API_KEY.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer, type FakeScript, type RecordedRequest } from "ubiquity/testing";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const servers: FakeProviderServer[] = [];
// Closed at the end: the tests run concurrently, each with servers of its own.
afterAll(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

async function serve(script: FakeScript) {
  const server = await startProviderServer(script);
  servers.push(server);
  return server;
}

const CONFIG = JSON.stringify({ maxRetries: 0, persistSession: false, persistTodos: false, marketPricing: false });
const project = (files: Record<string, string> = {}) => tempProject({ ".ubiquityrc.json": CONFIG, ...files });

/** The tool names a chat request offered. */
const toolsOf = (request: RecordedRequest) =>
  ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name).sort();
/** The last tool result a request carried (the result of the call before it), as text. */
const lastToolResultOf = (request: RecordedRequest) =>
  String(
    (request.body as { messages: { role: string; content: unknown }[] }).messages
      .filter((m) => m.role === "tool")
      .at(-1)?.content ?? "",
  );

/** The fields of a stream-json line these tests read. */
interface Json {
  type?: string;
  output?: { isError?: boolean; content?: unknown };
}
const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);

/** `ubiquity -p` against `server`, the model named `local` on it. */
function p(server: FakeProviderServer, dir: string, args: string[], env: Record<string, string> = {}) {
  return runCli(["-p", "--base-url", server.baseURL, "--model", "local", ...args], dir, env);
}

/** A model that makes one tool call, then says "done". */
const oneCall =
  (name: string, input: unknown): FakeScript =>
  (_r, i) =>
    i === 0 ? { toolCalls: [{ name, input }] } : "done";

describe.concurrent("claude -p's tool flags", () => {
  it("--allowedTools pre-approves and never takes a tool away, a bare name included (the README's own example)", async () => {
    const server = await serve(["hello"]);
    const out = await p(server, project(), ["--allowedTools", "Read,Grep,Bash(npm test:*)", "hi"]);
    expect(out.code, out.stderr).toBe(0);
    expect(toolsOf(server.requests[0]!)).toEqual(
      expect.arrayContaining(["Bash", "Edit", "Glob", "Grep", "Read", "Write"]),
    );
  });

  it("--allowed-tools (kebab) pre-approves a command: it runs headless, without a question", async () => {
    const server = await serve(oneCall("Bash", { command: "echo approved-call" }));
    const denied = await p(server, project(), ["--output-format", "stream-json", "run it"]);
    expect(lines(denied.stdout).find((m) => m.type === "tool_result")!.output?.isError).toBe(true);
    const server2 = await serve(oneCall("Bash", { command: "echo approved-call" }));
    const out = await p(server2, project(), [
      "--allowed-tools",
      "Bash(echo:*)",
      "--output-format",
      "stream-json",
      "run it",
    ]);
    expect(out.code, out.stderr).toBe(0);
    const result = lines(out.stdout).find((m) => m.type === "tool_result")!;
    expect(result.output).toMatchObject({ isError: false, content: expect.stringContaining("approved-call") });
    expect(toolsOf(server2.requests[0]!)).toContain("Write");
  });

  it('--tools restricts the set and approves nothing; "" offers no tool; default offers all', async () => {
    const server = await serve(oneCall("Bash", { command: "echo restricted" }));
    const out = await p(server, project(), ["--tools", "Bash,Read", "--output-format", "stream-json", "run it"]);
    expect(toolsOf(server.requests[0]!)).toEqual(["Bash", "Read"]);
    // Offered is not approved: headless, the call asks and is denied.
    expect(lines(out.stdout).find((m) => m.type === "tool_result")!.output?.isError).toBe(true);
    const none = await serve(["ok"]);
    await p(none, project(), ["--tools", "", "hi"]);
    expect(toolsOf(none.requests[0]!)).toEqual([]);
    const all = await serve(["ok"]);
    await p(all, project(), ["--tools", "default", "hi"]);
    expect(toolsOf(all.requests[0]!)).toEqual(expect.arrayContaining(["Bash", "Edit", "Read", "Write"]));
    const bad = await p(all, project(), ["--tools", "Bash(git:*)", "hi"]);
    expect(bad.code).toBe(2);
  });

  it("--disallowedTools and --disallowed-tools remove tools", async () => {
    // Both spellings in one run: each takes its own tools away.
    const server = await serve(["ok"]);
    await p(server, project(), ["--disallowedTools", "Bash", "--disallowed-tools", "Write,Edit", "hi"]);
    expect(toolsOf(server.requests[0]!)).not.toContain("Bash");
    expect(toolsOf(server.requests[0]!)).not.toContain("Write");
    expect(toolsOf(server.requests[0]!)).not.toContain("Edit");
    expect(toolsOf(server.requests[0]!)).toContain("Read");
  });

  it("--dangerously-skip-permissions is bypassPermissions: the call runs without a question", async () => {
    const server = await serve(oneCall("Bash", { command: "echo bypassed" }));
    const out = await p(server, project(), [
      "--dangerously-skip-permissions",
      "--output-format",
      "stream-json",
      "run it",
    ]);
    expect(out.code, out.stderr).toBe(0);
    const messages = lines(out.stdout);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", permissionMode: "bypassPermissions" });
    expect(messages.find((m) => m.type === "tool_result")!.output).toMatchObject({
      isError: false,
      content: expect.stringContaining("bypassed"),
    });
    const clash = await p(server, project(), ["--dangerously-skip-permissions", "--permission-mode", "plan", "hi"]);
    expect(clash.code).toBe(2);
  });

  it("--json-schema takes the schema inline: the validated value is the result's structuredOutput", async () => {
    const value = { city: "Lyon" };
    const server = await serve([{ toolCalls: [{ name: "StructuredOutput", input: value }] }]);
    const schema = JSON.stringify({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    });
    const out = await p(server, project(), ["--json-schema", schema, "--output-format", "json", "which city?"]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ subtype: "success", structuredOutput: value });
    const broken = await p(server, project(), ["--json-schema", "{not json", "hi"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("--json-schema");
  });

  it("camel and kebab spellings are one flag (--permissionMode, --maxTurns, --appendSystemPrompt)", async () => {
    const server = await serve(["ok"]);
    const out = await p(server, project(), [
      "--permissionMode",
      "plan",
      "--maxTurns",
      "3",
      "--appendSystemPrompt",
      "Answer in French.",
      "--output-format",
      "stream-json",
      "hi",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(lines(out.stdout)[0]).toMatchObject({ permissionMode: "plan" });
    const system = (server.requests[0]!.body as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === "system",
    )!.content;
    expect(system).toContain("Answer in French.");
  });
});

describe.concurrent("-p text output", () => {
  const script: FakeScript = (_r, i) =>
    i === 0
      ? { text: "Let me look first.", toolCalls: [{ name: "Glob", input: { pattern: "*" } }] }
      : "The final answer.";

  it("prints the final result only; --verbose prints the rest", async () => {
    const server = await serve(script);
    const out = await p(server, project(), ["list the files"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("The final answer.\n");
    expect(out.stderr).not.toContain("Glob");
    const verbose = await p(await serve(script), project(), ["--verbose", "list the files"]);
    expect(verbose.stdout).toContain("Let me look first.");
    expect(verbose.stdout).toContain("The final answer.");
    expect(verbose.stderr).toContain("→ Glob");
  });
});

describe.concurrent("local models from the command line", () => {
  it("--base-url with --model: the whole name is the server's model id (a colon kept); the key from OPENAI_COMPATIBLE_API_KEY", async () => {
    const server = await serve(["from the local server"]);
    const out = await runCli(["-p", "--base-url", server.baseURL, "--model", "qwen2.5-coder:7b", "hi"], project(), {
      OPENAI_COMPATIBLE_API_KEY: "sk-local-key",
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("from the local server\n");
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect((server.requests[0]!.body as { model: string }).model).toBe("qwen2.5-coder:7b");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-local-key");
  });

  it("openai-compatible:<model> reads OPENAI_COMPATIBLE_BASE_URL; without it, exit 2 naming the variable; --base-url alone is exit 2", async () => {
    const server = await serve(["via the variable"]);
    const out = await runCli(["-p", "--model", "openai-compatible:llama3.2:3b", "hi"], project(), {
      OPENAI_COMPATIBLE_BASE_URL: server.baseURL,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("via the variable\n");
    expect((server.requests[0]!.body as { model: string }).model).toBe("llama3.2:3b");
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    const missing = await runCli(["-p", "--model", "openai-compatible:llama3.2:3b", "hi"], project(), {
      OPENAI_COMPATIBLE_BASE_URL: "",
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("OPENAI_COMPATIBLE_BASE_URL");
    const alone = await runCli(["-p", "--base-url", server.baseURL, "hi"], project());
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--base-url needs --model");
    expect(server.requests).toHaveLength(1);
  });
});

describe.concurrent("honest exits and errors", () => {
  it('"No model configured" is exit 2, and names a config skipped as untrusted', async () => {
    const plain = await runCli(["-p", "hi"], project(), { UBIQUITY_MODEL: "" });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain("No model configured");
    const json = await runCli(["-p", "--output-format", "json", "hi"], project(), { UBIQUITY_MODEL: "" });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ subtype: "error_configuration", exitCode: 2 });
    const home = tempProject({});
    const untrusted = tempProject({ "ubiquity.config.mjs": 'export default { model: "test" };\n' });
    const skipped = await runCli(["-p", "hi"], untrusted, { UBIQUITY_TRUST: "", UBIQUITY_MODEL: "", HOME: home });
    expect(skipped.code).toBe(2);
    expect(skipped.stderr).toMatch(
      /No model configured.*ubiquity\.config\.mjs was skipped because the folder is not trusted/,
    );
  });

  it('"No stored session" is exit 2 (json: subtype error_configuration); a model failure stays exit 1', async () => {
    const out = await runCli(["-p", "--model", "test", "--resume", "no-such-session", "hi"], project());
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('No stored session with id "no-such-session"');
    const json = await runCli(
      ["-p", "--model", "test", "--resume", "no-such-session", "--output-format", "json", "hi"],
      project(),
    );
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "result", subtype: "error_configuration", isError: true });
    const server = await serve([{ status: 500, message: "boom" }]);
    const failed = await p(server, project(), ["hi"]);
    expect(failed.code).toBe(1);
  });

  it.skipIf(process.env.MISTRAL_API_KEY !== undefined)(
    "a provider key that is missing stops the run before its first request: exit 2",
    async () => {
      const out = await runCli(
        ["-p", "--model", "mistral:mistral-small-latest", "--output-format", "json", "hi"],
        project(),
      );
      expect(out.code).toBe(2);
      expect(JSON.parse(out.stdout)).toMatchObject({
        subtype: "error_configuration",
        result: expect.stringContaining("MISTRAL_API_KEY"),
      });
    },
  );

  it("Edit's and Write's own preconditions come before the permission question (nothing is denied or asked)", async () => {
    // One run, three calls: each is refused by its own precondition, none changes the file.
    const calls = [
      { name: "Edit", input: { file_path: "notes.txt", old_string: "old", new_string: "new" } },
      { name: "Edit", input: { file_path: "nope.txt", old_string: "a", new_string: "b" } },
      { name: "Write", input: { file_path: "notes.txt", content: "replaced\n" } },
    ];
    const server = await serve((_r, i) => (i < calls.length ? { toolCalls: [calls[i]!] } : "done"));
    const dir = project({ "notes.txt": "old text\n" });
    const out = await p(server, dir, ["--output-format", "json", "edit it"]);
    expect(out.code, out.stderr).toBe(0);
    // Request i + 1 carries call i's result last.
    const resultOf = (i: number) => lastToolResultOf(server.requests[i + 1]!);
    expect(resultOf(0)).toContain("has not been read in this run");
    expect(resultOf(1)).toContain("File does not exist: nope.txt");
    expect(resultOf(2)).toContain("has not been read in this run");
    expect(JSON.parse(out.stdout).permissionDenials).toEqual([]);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("old text\n");
  });
});
