/**
 * Everything beyond plain tools, against a real server of our own (test/mcp/fixtures/
 * feature-server.mjs, the MCP SDK 1.x) over stdio: Playwright-shaped input schemas, resources
 * (tools, mentions, the session API, subscriptions), prompts as slash commands, elicitation,
 * roots, progress, logging and list_changed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createKernel, summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp, { getMcpApi, type McpElicitation } from "ubiquity/plugins/mcp";
import commands from "ubiquity/plugins/commands";
import hooksPlugin, { type HookInput } from "ubiquity/plugins/hooks";
import cacheBreaks from "ubiquity/plugins/cache-breaks";
import { collect, ofType, resultOf } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest, MARKER } from "./helpers";
import { inbox } from "../live/helpers";

expectNoServerLeftAfterEachTest();

const SERVER = fileURLToPath(new URL("./fixtures/feature-server.mjs", import.meta.url));
const features = () => ({ command: process.execPath, args: [SERVER, "features", MARKER], roots: true });
const call = (toolName: string, input: Record<string, unknown>, id: string) => ({ toolName, input, id });
const results = (messages: Message[]) =>
  Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));
/** The text of every user message the model received in request `i`. */
const userText = (model: ReturnType<typeof scriptedModel>, i: number) =>
  JSON.stringify(model.requests[i]!.prompt.filter((m) => m.role === "user"));
const spy = (events: { type: string }[]) => ({
  name: "spy",
  apply: (kernel: { hooks: { event: { tap(n: string, f: (e: { type: string }) => void): void } } }) =>
    kernel.hooks.event.tap("spy", (e) => void events.push(e)),
});

describe("input schemas as the server's validator judges them (Playwright MCP's zod schemas)", () => {
  it("a call leaving out defaulted fields, or adding a key zod strips, reaches the server; a wrong type is still refused before it", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          call("mcp__features__screenshot", {}, "empty"),
          call("mcp__features__console_messages", {}, "level"),
          call("mcp__features__screenshot", { fullPage: true, extra: 1 }, "extra"),
          call("mcp__features__screenshot", { fullPage: "yes" }, "bad"),
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("shoot", { presets: [], plugins: [mcp()], model, mcpServers: { features: features() } }),
    );
    const out = results(messages);
    expect(out.empty).toMatchObject({ isError: false, content: 'screenshot ran with {"type":"png","scale":"css"}' });
    expect(out.level).toMatchObject({ isError: false, content: 'console_messages ran with {"level":"info"}' });
    expect(out.extra).toMatchObject({
      isError: false,
      content: 'screenshot ran with {"type":"png","scale":"css","fullPage":true}',
    });
    expect(out.bad).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Invalid arguments for mcp__features__screenshot/),
    });
    // The model is offered the server's schema as listed, required defaults and all.
    const offered = model.requests[0]!.tools!.find((t) => t.name === "mcp__features__screenshot") as {
      inputSchema: { required?: string[]; $schema?: string };
    };
    expect(offered.inputSchema.required).toEqual(["type", "scale"]);
  });
});

describe("resources", () => {
  it("ListMcpResources and ReadMcpResource list and read them; text as is, binary described; an unknown uri is the server's error", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          call("ListMcpResources", {}, "list"),
          call("ReadMcpResource", { server: "features", uri: "memo://note" }, "note"),
          call("ReadMcpResource", { server: "features", uri: "memo://logo" }, "logo"),
          call("ReadMcpResource", { server: "features", uri: "memo://item/42" }, "item"),
          call("ReadMcpResource", { server: "features", uri: "memo://nope" }, "nope"),
          call("ReadMcpResource", { server: "ghost", uri: "x://y" }, "ghost"),
        ],
      },
      "done",
    ]);
    const out = results(
      await collect(summon("read", { presets: [], plugins: [mcp()], model, mcpServers: { features: features() } })),
    );
    expect(out.list!.content).toBe(
      [
        "features:memo://note — note (text/plain): A note that changes",
        "features:memo://logo — logo (image/png)",
        "features:memo://item/{id} — item (template)",
      ].join("\n"),
    );
    expect(out.note).toMatchObject({ isError: false, content: "[resource memo://note (text/plain)]\nfirst version" });
    expect(out.logo).toMatchObject({
      isError: false,
      content: "[resource memo://logo (image/png), 16 B of binary data: not shown here]",
    });
    expect(out.item).toMatchObject({ isError: false, content: "[resource memo://item/42]\nitem 42" });
    expect(out.nope).toMatchObject({
      isError: true,
      content: 'MCP server "features" could not read memo://nope: MCP error -32002: no resource memo://nope',
    });
    expect(out.ghost).toMatchObject({ isError: true, content: 'no MCP server is named "ghost" (servers: features)' });
  });

  it("an @server:uri mention is read through the funnel into the prompt's context; one that cannot be read blocks the prompt, naming it", async () => {
    const model = scriptedModel(["ok"]);
    const messages = await collect(
      summon("summarize @features:memo://note, please", {
        presets: [],
        plugins: [mcp()],
        model,
        mcpServers: { features: features() },
      }),
    );
    expect(ofType(messages, "tool_use")).toEqual([
      expect.objectContaining({ toolName: "ReadMcpResource", toolInput: { server: "features", uri: "memo://note" } }),
    ]);
    expect(userText(model, 0)).toContain(
      "Contents of the MCP resource features:memo://note (mentioned in the prompt):\\n[resource memo://note (text/plain)]\\nfirst version",
    );

    const blocked = scriptedModel(["never"]);
    const refused = await collect(
      summon("see @features:memo://missing", {
        presets: [],
        plugins: [mcp()],
        model: blocked,
        mcpServers: { features: features() },
      }),
    );
    expect(resultOf(refused)).toMatchObject({
      isError: true,
      result: expect.stringContaining(
        '@features:memo://missing was not read: MCP server "features" could not read memo://missing',
      ),
    });
    expect(blocked.requests).toHaveLength(0);
  });

  it("readMcpResource() and listMcpResources() on a live session; a held resource the server changes reaches the run with the next result", async () => {
    const input = inbox();
    const model = scriptedModel([
      {
        toolCalls: [
          call("ReadMcpResource", { server: "features", uri: "memo://note" }, "r1"),
          call("mcp__features__touch", {}, "t1"),
        ],
      },
      "read it",
      "second answer",
    ]);
    const q = summon(input, { presets: [], plugins: [mcp()], model, mcpServers: { features: features() } });
    input.push("read the note");
    const seen: Message[] = [];
    let apiRead: unknown;
    let apiList: unknown;
    for await (const m of q) {
      seen.push(m);
      if (m.type === "result" && ofType(seen, "result").length === 1) {
        apiRead = await q.readMcpResource("features", "memo://note");
        apiList = await q.listMcpResources("features");
        await expect(q.readMcpResource("ghost", "x://y")).rejects.toThrow('no MCP server is named "ghost"');
        input.push("and now?");
      }
      if (m.type === "result" && ofType(seen, "result").length === 2) input.end();
    }
    expect(apiRead).toEqual([{ uri: "memo://note", mimeType: "text/plain", text: "second version" }]);
    expect(apiList).toMatchObject({
      resources: [{ uri: "memo://note" }, { uri: "memo://logo" }],
      templates: [{ uriTemplate: "memo://item/{id}" }],
    });
    // The call during which the server said the note changed carries its new contents, once.
    const touched = ofType(seen, "tool_result").find((r) => r.toolUseId === "t1")!;
    expect(touched.output.content).toBe(
      "touched\n\nThe MCP resource features:memo://note changed since it was read. Its contents now:\n[resource memo://note (text/plain)]\nsecond version",
    );
    expect(userText(model, 2)).not.toContain("changed since it was read");
  });
});

describe("prompts as slash commands", () => {
  it("are listed by supportedCommands() and expand with their arguments; a missing required argument blocks the prompt", async () => {
    const model = scriptedModel(["reviewed"]);
    const q = summon("/mcp__features__review src/a.ts security and speed", {
      presets: [],
      plugins: [mcp(), commands()],
      model,
      mcpServers: { features: features() },
    });
    let listed: unknown;
    const messages: Message[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "system" && m.subtype === "init") listed = await q.supportedCommands();
    }
    expect(listed).toEqual([
      { name: "mcp__features__greet", description: "Say hello (MCP prompt of features)", argumentHint: "" },
      {
        name: "mcp__features__review",
        description: "Review a file (MCP prompt of features)",
        argumentHint: "<file> [focus]",
      },
    ]);
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "reviewed" });
    expect(userText(model, 0)).toContain("Review src/a.ts focusing on security and speed.");

    const never = scriptedModel(["never"]);
    const refused = await collect(
      summon("/mcp__features__review", {
        presets: [],
        plugins: [mcp(), commands()],
        model: never,
        mcpServers: { features: features() },
      }),
    );
    expect(resultOf(refused)).toMatchObject({
      isError: true,
      result: expect.stringContaining("/mcp__features__review needs file: /mcp__features__review <file> [focus]"),
    });
    expect(never.requests).toHaveLength(0);
  });
});

describe("prompts/list_changed", () => {
  it("a server's new prompt is a command once it says its prompts changed", async () => {
    const model = scriptedModel([{ toolCalls: [call("mcp__features__change_prompts", {}, "p")] }, "done"]);
    const q = summon("go", { presets: [], plugins: [mcp(), commands()], model, mcpServers: { features: features() } });
    let before: string[] = [];
    let after: string[] = [];
    for await (const m of q) {
      if (m.type === "system" && m.subtype === "init") before = (await q.supportedCommands()).map((c) => c.name);
      if (m.type === "tool_result") after = (await q.supportedCommands()).map((c) => c.name);
    }
    expect(before).toEqual(["mcp__features__greet", "mcp__features__review"]);
    expect(after).toEqual(["mcp__features__greet", "mcp__features__later", "mcp__features__review"]);
  });
});

/** What the server heard for one `ask` (form) and one `ask_url` call in a run with `options` (hooks plugin in the list). */
async function asked(options: Record<string, unknown>) {
  const model = scriptedModel([
    { toolCalls: [call("mcp__features__ask", {}, "form")] },
    { toolCalls: [call("mcp__features__ask_url", {}, "url")] },
    "done",
  ]);
  const out = results(
    await collect(
      summon("ask", {
        presets: [],
        plugins: [mcp(), hooksPlugin()],
        model,
        mcpServers: { features: features() },
        ...options,
      }),
    ),
  );
  return { form: JSON.parse(String(out.form!.content)), url: JSON.parse(String(out.url!.content)) };
}

describe("elicitation", () => {
  it("onElicitation answers a form and a URL request; without a handler the server hears decline", async () => {
    const seen: McpElicitation[] = [];
    const onElicitation = async (request: McpElicitation) => {
      seen.push(request);
      return request.mode === "form"
        ? { action: "accept" as const, content: { name: "Ada", age: 36 } }
        : { action: "accept" as const };
    };
    expect(await asked({ onElicitation })).toEqual({
      form: { action: "accept", content: { name: "Ada", age: 36 } },
      url: { action: "accept" },
    });
    expect(seen).toEqual([
      {
        server: "features",
        mode: "form",
        message: "Who are you?",
        requestedSchema: expect.objectContaining({ required: ["name"] }),
      },
      {
        server: "features",
        mode: "url",
        message: "Sign in to continue",
        url: "https://auth.example.test/login?session=1",
        elicitationId: "e-1",
      },
    ]);

    const unanswered = scriptedModel([{ toolCalls: [call("mcp__features__ask", {}, "form")] }, "done"]);
    const declined = results(
      await collect(
        summon("ask", { presets: [], plugins: [mcp()], model: unanswered, mcpServers: { features: features() } }),
      ),
    );
    expect(JSON.parse(String(declined.form!.content))).toEqual({ action: "decline" });
  });

  it("without onElicitation, canUseTool answers it (the terminal's and ACP's path): an allow with values accepts, a deny declines", async () => {
    const calls: string[] = [];
    const canUseTool = async (toolName: string, input: Record<string, unknown>) => {
      calls.push(toolName);
      if (toolName !== "McpElicitation") return { behavior: "allow" as const, updatedInput: input };
      return input.mode === "form"
        ? { behavior: "allow" as const, updatedInput: { ...input, action: "accept", content: { name: "Grace" } } }
        : { behavior: "deny" as const, message: "no" };
    };
    expect(await asked({ canUseTool })).toEqual({
      form: { action: "accept", content: { name: "Grace" } },
      url: { action: "decline" },
    });
    expect(calls.filter((c) => c === "McpElicitation")).toHaveLength(2);
  });
});

describe("elicitation hooks (Claude Code's Elicitation and ElicitationResult)", () => {
  it("an Elicitation hook answers for the user (nobody is asked), and sees the server's question", async () => {
    const seen: HookInput[] = [];
    let handlerAsked = 0;
    const answers = await asked({
      onElicitation: () => {
        handlerAsked++;
        return { action: "decline" as const };
      },
      hooks: {
        Elicitation: [
          {
            matcher: "features",
            hooks: [
              (input: HookInput) => {
                seen.push(input);
                return input.extra.mode === "form"
                  ? { elicitation: { action: "accept" as const, content: { name: "Lin" } } }
                  : { elicitation: { action: "cancel" as const } };
              },
            ],
          },
        ],
      },
    });
    expect(answers).toEqual({ form: { action: "accept", content: { name: "Lin" } }, url: { action: "cancel" } });
    expect(handlerAsked).toBe(0);
    expect(seen.map((i) => [i.hookEventName, i.message, i.extra.mcpServerName, i.extra.mode])).toEqual([
      ["Elicitation", "Who are you?", "features", "form"],
      ["Elicitation", "Sign in to continue", "features", "url"],
    ]);
    expect(seen[0]!.extra.requestedSchema).toMatchObject({ required: ["name"] });
    expect(seen[1]!.extra).toMatchObject({ url: "https://auth.example.test/login?session=1", elicitationId: "e-1" });
  });

  it("matches by server name: a hook for another server leaves the question to the handler", async () => {
    const answers = await asked({
      onElicitation: () => ({ action: "accept" as const, content: { name: "Ada" } }),
      hooks: { Elicitation: [{ matcher: "other", hooks: [() => ({ elicitation: { action: "decline" as const } })] }] },
    });
    expect(answers.form).toEqual({ action: "accept", content: { name: "Ada" } });
  });

  it("an ElicitationResult hook sees the answer before the server and may replace it", async () => {
    const seen: Record<string, unknown>[] = [];
    const answers = await asked({
      onElicitation: (request: McpElicitation) =>
        request.mode === "form"
          ? { action: "accept" as const, content: { name: "Ada", age: 36 } }
          : { action: "accept" as const },
      hooks: {
        ElicitationResult: [
          {
            hooks: [
              (input: HookInput) => {
                seen.push(input.extra);
                return input.extra.mode === "url" ? { elicitation: { action: "decline" as const } } : undefined;
              },
            ],
          },
        ],
      },
    });
    expect(answers).toEqual({
      form: { action: "accept", content: { name: "Ada", age: 36 } },
      url: { action: "decline" },
    });
    expect(seen[0]).toMatchObject({ mcpServerName: "features", action: "accept", content: { name: "Ada", age: 36 } });
    expect(seen[1]).toMatchObject({ mcpServerName: "features", action: "accept", mode: "url", elicitationId: "e-1" });
  });

  it("command hooks, as a settings file writes them: the input in snake_case, hookSpecificOutput answers, exit 2 declines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ubq-elicit-hook-"));
    const log = join(dir, "input.jsonl");
    const answer = JSON.stringify({
      hookSpecificOutput: { hookEventName: "Elicitation", action: "accept", content: { name: "Hopper" } },
    });
    const answers = await asked({
      hooks: {
        Elicitation: [
          {
            matcher: "features",
            hooks: [
              {
                type: "command",
                command: `(cat; echo) >> ${log}; if grep -q '"mode":"url"' ${log}; then echo no >&2; exit 2; fi; echo '${answer}'`,
              },
            ],
          },
        ],
      },
    });
    expect(answers).toEqual({ form: { action: "accept", content: { name: "Hopper" } }, url: { action: "decline" } });
    const inputs = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inputs[0]).toMatchObject({
      hook_event_name: "Elicitation",
      mcp_server_name: "features",
      message: "Who are you?",
      mode: "form",
      requested_schema: expect.objectContaining({ required: ["name"] }),
    });
    expect(inputs[1]).toMatchObject({
      mode: "url",
      url: "https://auth.example.test/login?session=1",
      elicitation_id: "e-1",
    });
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("roots, progress, logging and list_changed", () => {
  it("a server given roots (roots: true) gets the run's folders, one without them is refused; progress and log lines become events", async () => {
    const events: { type: string }[] = [];
    const model = scriptedModel([
      { toolCalls: [call("mcp__features__roots", {}, "roots"), call("mcp__features__slow", {}, "slow")] },
      "done",
    ]);
    const cwd = process.cwd();
    const out = results(
      await collect(
        summon("go", {
          presets: [],
          plugins: [mcp(), spy(events) as never],
          model,
          cwd,
          mcpServers: { features: features() },
        }),
      ),
    );
    expect(JSON.parse(String(out.roots!.content))).toEqual({ roots: [{ uri: pathToFileURL(cwd).href, name: cwd }] });
    expect(out.slow).toMatchObject({ isError: false, content: "slow done" });
    expect(events.filter((e) => e.type === "mcp.progress")).toEqual([
      {
        type: "mcp.progress",
        server: "features",
        tool: "mcp__features__slow",
        toolUseId: "slow",
        progress: 1,
        total: 2,
        message: "step 1",
      },
      {
        type: "mcp.progress",
        server: "features",
        tool: "mcp__features__slow",
        toolUseId: "slow",
        progress: 2,
        total: 2,
        message: "step 2",
      },
    ]);
    expect(events.filter((e) => e.type === "mcp.log")).toEqual([
      { type: "mcp.log", server: "features", level: "error", logger: "slow", message: "slow started" },
    ]);

    // Without `roots: true` the capability is not offered, so the server's request fails.
    const closed = scriptedModel([{ toolCalls: [call("mcp__features__roots", {}, "roots")] }, "done"]);
    const refused = results(
      await collect(
        summon("go", {
          presets: [],
          plugins: [mcp()],
          model: closed,
          cwd,
          mcpServers: { features: { ...features(), roots: false } },
        }),
      ),
    );
    expect(refused.roots).toMatchObject({ isError: true });
  });

  it("tools/list_changed re-lists and re-registers the server's tools; the cache-break detector names the server", async () => {
    const warnings: string[] = [];
    const usage = (cacheRead: number) => ({
      inputTokens: 20_000,
      outputTokens: 10,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: 0,
    });
    const model = scriptedModel([
      { toolCalls: [call("mcp__features__change_tools", {}, "c")], usage: usage(15_000) },
      { toolCalls: [call("mcp__features__added", {}, "a")], usage: usage(1_000) },
      { text: "done", usage: usage(15_000) },
    ]);
    const kernelEvents: { type: string; message?: string }[] = [];
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp(), cacheBreaks(), spy(kernelEvents) as never],
        model,
        detectCacheBreaks: true,
        mcpServers: { features: features() },
      } as never),
    );
    for (const e of kernelEvents) if (e.type === "warning" && e.message) warnings.push(e.message);
    const names = (i: number) => (model.requests[i]!.tools ?? []).map((t) => t.name);
    expect(names(0)).not.toContain("mcp__features__added");
    expect(names(1)).toContain("mcp__features__added");
    expect(results(messages).a).toMatchObject({ isError: false, content: "added ran" });
    expect(kernelEvents).toContainEqual({ type: "mcp.list_changed", server: "features", kind: "tools" });
    // The break after the change names the server that changed its tools.
    expect(
      warnings.some((w) =>
        w.includes('prompt cache break: MCP server "features" changed its tools (tools/list_changed)'),
      ),
    ).toBe(true);
  });
});

describe("the API without a run", () => {
  it("readMcpResource on a kernel reads; an unknown server is refused", async () => {
    const kernel = createKernel({ presets: [], plugins: [mcp()], mcpServers: { features: features() } });
    await kernel.ready();
    try {
      const api = getMcpApi(kernel)!;
      expect(await api.readMcpResource("features", "memo://item/7")).toEqual([
        { uri: "memo://item/7", text: "item 7" },
      ]);
      await expect(api.readMcpResource("nope", "x://y")).rejects.toThrow(
        'no MCP server is named "nope" (servers: features)',
      );
    } finally {
      await kernel.dispose();
    }
  });
});
