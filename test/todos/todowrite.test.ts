import { describe, expect, it, vi } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { summon, createKernel, type Message } from "ubiquity";
import { createRun, driveRun } from "../../src/index";
import { scriptedModel, type Script } from "ubiquity/testing";
import todos, { getTodosApi, type Todo } from "ubiquity/plugins/todos";
import toolTodo, { TodoWriteTool } from "../../plugins/tool-todo/index";
import sessions from "ubiquity/plugins/sessions";
import { projectSlug } from "../../plugins/_kits/storage/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

const write = (input: unknown, id?: string) => ({ toolName: "TodoWrite", input, ...(id ? { id } : {}) });

function setup(extra: Record<string, unknown> = {}) {
  const todoDir = temp("ubq-todos-");
  const cwd = temp("ubq-project-");
  const run = async (prompt: string, script: Script, more: Record<string, unknown> = {}) => {
    const model = scriptedModel(script);
    const messages: Message[] = await collect(
      summon(prompt, { model, presets: [], plugins: [todos(), toolTodo()], todoDir, cwd, ...extra, ...more }),
    );
    return {
      messages,
      model,
      result: resultOf(messages),
      outputs: ofType(messages, "tool_result").map((r) => r.output),
    };
  };
  const listDir = (key = "project") => join(todoDir, projectSlug(cwd), key);
  const onDisk = (key = "project") =>
    existsSync(listDir(key))
      ? readdirSync(listDir(key))
          .filter((n) => n.endsWith(".json"))
          .map((n) => JSON.parse(readFileSync(join(listDir(key), n), "utf8")) as Todo)
          .sort((a, b) => a.position - b.position)
      : [];
  return { todoDir, cwd, run, listDir, onDisk };
}

/** The run's prompt as the model received it on the first call (context parts joined). */
function firstUserText(model: ReturnType<typeof scriptedModel>): string {
  const user = model.requests[0]!.prompt.findLast((m) => m.role === "user")!;
  return (user.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("\n---\n");
}

describe("TodoWrite", () => {
  it("add of a task whose content is already on the list is a no-op", async () => {
    const s = setup();
    const r = await s.run("plan", [
      { toolCalls: [write({ add: [{ content: "write the parser" }] })] },
      { toolCalls: [write({ add: [{ content: "write the parser" }, { content: "docs" }, { content: "docs" }] })] },
      "planned",
    ]);
    expect(r.outputs.map((o) => o.isError)).toEqual([false, false]);
    expect(r.outputs[1]!.metadata).toMatchObject({ total: 2, written: 1 });
    expect(s.onDisk().map((t) => t.content)).toEqual(["write the parser", "docs"]);
  });

  it("edits a list stored one file per task, and answers with the list and its progress", async () => {
    const s = setup();
    const r = await s.run("plan", [
      {
        toolCalls: [
          write({ add: [{ content: "write the parser" }, { content: "wire the CLI" }, { content: "docs" }] }),
        ],
      },
      {
        toolCalls: [
          write({
            update: [
              { task: "write the parser", status: "completed" },
              { task: "wire the CLI", status: "in_progress", activeForm: "Wiring the CLI" },
            ],
          }),
        ],
      },
      "planned",
    ]);
    expect(r.result.isError).toBe(false);
    expect(r.outputs[0]!.isError).toBe(false);
    const last = r.outputs[1]!;
    expect(last.content).toMatch(
      /^Todo list \(1\/3 completed, 1 in progress\):\n1\. \[x\] write the parser {2}\(id [0-9a-f]{8}\)\n2\. \[~\] wire the CLI {2}\(id [0-9a-f]{8}\) — Wiring the CLI\n3\. \[ \] docs {2}\(id [0-9a-f]{8}\)$/,
    );
    expect(last.metadata).toMatchObject({ completed: 1, total: 3, written: 2, removed: 0 });
    const files = readdirSync(s.listDir());
    expect(files).toHaveLength(3);
    for (const f of files) expect(f).toMatch(/^[0-9a-f]{8}\.json$/);
    expect(s.onDisk().map((t) => [t.content, t.status, t.position])).toEqual([
      ["write the parser", "completed", 0],
      ["wire the CLI", "in_progress", 1],
      ["docs", "pending", 2],
    ]);
  });

  it("a bad reference or a mixed call is an error result and writes nothing; a second in_progress by add takes over", async () => {
    const s = setup();
    const r = await s.run("plan", [
      { toolCalls: [write({ add: [{ content: "one", status: "in_progress" }] })] },
      { toolCalls: [write({ update: [{ task: "two", status: "completed" }] })] },
      { toolCalls: [write({ todos: [{ content: "x", status: "pending" }], remove: ["one"] })] },
      { toolCalls: [write({ add: [{ content: "two", status: "in_progress" }] })] },
      "ok",
    ]);
    const [, missing, mixed, second] = r.outputs;
    expect(missing).toMatchObject({ isError: true });
    expect(missing!.content).toMatch(/^TodoWrite: no task matches "two": name a task by its id or its exact content/);
    expect(mixed).toMatchObject({ isError: true });
    expect(mixed!.content).toMatch(/^Invalid arguments for TodoWrite: send either `todos`/);
    expect(second).toMatchObject({ isError: false });
    expect(second!.content).toMatch(
      /Note: "one" \(id \w+\) went back to pending: "two" \(id \w+\) is now this run's task in progress/,
    );
    expect(s.onDisk().map((t) => `${t.content}:${t.status}`)).toEqual(["one:pending", "two:in_progress"]);
  });

  it("writes only the tasks it changed (the others keep their files), and re-reads the store on every call", async () => {
    const s = setup();
    await s.run("plan", [
      { toolCalls: [write({ add: [{ content: "a" }, { content: "b" }, { content: "c" }] })] },
      "ok",
    ]);
    const inodes = () =>
      Object.fromEntries(readdirSync(s.listDir()).map((n) => [n, statSync(join(s.listDir(), n)).ino]));
    const before = inodes();
    // Another run adds a task file behind this run's back.
    writeFileSync(
      join(s.listDir(), "0000beef.json"),
      JSON.stringify({ content: "from elsewhere", status: "pending", position: 9 }),
    );
    const r = await s.run("more", [{ toolCalls: [write({ update: [{ task: "b", status: "completed" }] })] }, "ok"]);
    const after = inodes();
    const changed = Object.keys(before).filter((n) => before[n] !== after[n]);
    expect(changed).toHaveLength(1);
    expect(s.onDisk().find((t) => t.content === "b")!.status).toBe("completed");
    expect(r.outputs[0]!.content).toContain("from elsewhere  (id 0000beef)");
  });

  it("skips an unreadable task file and removes old temp files a crash left", async () => {
    const warn = vi.fn();
    const s = setup({ logger: { debug() {}, info() {}, warn, error() {} } });
    await s.run("plan", [{ toolCalls: [write({ add: [{ content: "kept" }] })] }, "ok"]);
    writeFileSync(join(s.listDir(), "deadbeef.json"), '{"content": "torn", "sta');
    const old = join(s.listDir(), ".cafe0001.json.4242.0badf00d.tmp");
    const young = join(s.listDir(), ".cafe0002.json.4243.0badf00d.tmp");
    writeFileSync(old, "{");
    writeFileSync(young, "{");
    utimesSync(old, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const r = await s.run("more", [{ toolCalls: [write({ add: [{ content: "new" }] })] }, "ok"]);
    expect(r.outputs[0]!.isError).toBe(false);
    expect(r.outputs[0]!.content).toMatch(/kept[\s\S]*new/);
    expect(r.outputs[0]!.content).not.toContain("torn");
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/skipped unreadable task file .*deadbeef\.json/));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true); // it may belong to a writer that is about to rename it
  });

  it("persistTodos: false keeps the list in memory and writes nothing", async () => {
    const s = setup({ persistTodos: false });
    const r = await s.run("plan", [
      { toolCalls: [write({ add: [{ content: "a" }] })] },
      { toolCalls: [write({ update: [{ task: "a", status: "completed" }] })] },
      "ok",
    ]);
    expect(r.outputs.map((o) => o.isError)).toEqual([false, false]);
    expect(r.outputs[1]!.content).toContain("[x] a");
    expect(readdirSync(s.todoDir)).toEqual([]);
  });

  it("TodoWrite needs ubiquity:todos: the plugin list says so at boot", async () => {
    const messages = await collect(summon("x", { model: scriptedModel(["x"]), presets: [], plugins: [toolTodo()] }));
    expect(resultOf(messages).result).toMatch(/ubiquity:tool-todo depends on ubiquity:todos/);
  });

  it("options.tools replaces the suite (no TodoWrite), and a TodoWriteTool instance there works", async () => {
    const s = setup();
    const without = await s.run("x", [{ toolCalls: [write({ add: [{ content: "a" }] })] }, "ok"], { tools: [] });
    expect(without.outputs[0]!.content).toMatch(/Unknown tool "TodoWrite"/);
    const withTool = await s.run("x", [{ toolCalls: [write({ add: [{ content: "a" }] })] }, "ok"], {
      tools: [new TodoWriteTool()],
    });
    expect(withTool.outputs[0]!.isError).toBe(false);
    expect(s.onDisk().map((t) => t.content)).toEqual(["a"]);
  });
});

describe("carry-over", () => {
  it("a stored list with unfinished work is described in the run's first prompt, and only there", async () => {
    const s = setup();
    await s.run("plan", [
      {
        toolCalls: [
          write({ add: [{ content: "write the parser", status: "completed" }, { content: "wire the CLI" }] }),
        ],
      },
      "ok",
    ]);
    const stopOnce = (await import("ubiquity")).definePlugin(() => ({
      name: "test:stop-once",
      apply(kernel) {
        let sent = false;
        kernel.hooks.turn.stop.tap("test:stop-once", () =>
          sent ? undefined : ((sent = true), { continueWith: "keep going" }),
        );
      },
    }));
    const r = await s.run("next", ["first", "second"], { plugins: [todos(), toolTodo(), stopOnce()] });
    const text = firstUserText(r.model);
    expect(text).toMatch(
      /A todo list from earlier work has unfinished tasks \(1\/2 completed\):\n1\. \[x\] write the parser .*\n2\. \[ \] wire the CLI/,
    );
    expect(text.endsWith("next")).toBe(true);
    const continuation = r.model.requests[1]!.prompt.at(-1)!;
    expect(continuation).toMatchObject({ role: "user", content: [{ type: "text", text: "keep going" }] });
  });

  it("an all-completed or empty list is not carried over", async () => {
    const s = setup();
    const empty = await s.run("hello", ["hi"]);
    expect(empty.model.requests[0]!.prompt.find((m) => m.role === "user")!.content).toEqual([
      { type: "text", text: "hello" },
    ]);
    await s.run("plan", [{ toolCalls: [write({ add: [{ content: "done already", status: "completed" }] })] }, "ok"]);
    const r = await s.run("hello", ["hi"]);
    expect(firstUserText(r.model)).toBe("hello");
  });
});

describe("scope keys", () => {
  it("project scope keys by cwd: another folder has its own list", async () => {
    const s = setup();
    await s.run("plan", [{ toolCalls: [write({ add: [{ content: "here" }] })] }, "ok"]);
    expect(readdirSync(join(s.todoDir, projectSlug(s.cwd)))).toEqual(["project"]);
    const elsewhere = await s.run("x", [{ toolCalls: [write({ add: [{ content: "the other list" }] })] }, "ok"], {
      cwd: temp("ubq-other-"),
    });
    expect(elsewhere.outputs[0]!.content).not.toMatch(/\bhere\b/);
    expect(readdirSync(s.todoDir)).toHaveLength(2);
  });

  it("session scope keys by session id: a new session starts empty, resuming it carries the list over", async () => {
    const sessionDir = temp();
    const s = setup({ todoScope: "session", sessionDir });
    const plugins = [sessions(), todos(), toolTodo()];
    const first = await s.run("plan", [{ toolCalls: [write({ add: [{ content: "session task" }] })] }, "ok"], {
      plugins,
    });
    const id = first.result.sessionId;
    expect(readdirSync(join(s.todoDir, projectSlug(s.cwd)))).toEqual([`session-${id}`]);
    const fresh = await s.run("hello", ["hi"], { plugins });
    expect(firstUserText(fresh.model)).toBe("hello");
    const resumed = await s.run("go on", ["ok"], { plugins, resume: id });
    expect(firstUserText(resumed.model)).toMatch(/unfinished tasks[\s\S]*session task/);
  });

  it("a subagent edits its own list, keyed by agent id, and the list is deleted when it reports", async () => {
    const s = setup();
    await s.run("plan", [{ toolCalls: [write({ add: [{ content: "parent task" }] })] }, "ok"]);
    const model = scriptedModel([{ toolCalls: [write({ add: [{ content: "agent task" }] })] }, "reported"]);
    const kernel = createKernel({ presets: [], plugins: [todos(), toolTodo()], model, todoDir: s.todoDir, cwd: s.cwd });
    await kernel.ready();
    const abortSignal = new AbortController().signal;
    const sink: Message[] = [];
    const parent = createRun({ kernel, abortSignal, sink: (m) => sink.push(m) });
    const agent = createRun({
      kernel,
      abortSignal,
      sink: (m) => sink.push(m),
      parent,
      agent: { agentId: "agent:7", agentType: "worker", parentToolUseId: "call_1" },
    });
    const api = getTodosApi(kernel)!;
    expect(api.listFor(agent)).toEqual({ project: projectSlug(s.cwd), key: "agent-agent-7" });
    const result = await driveRun(agent, "side task");
    const during = ofType(sink, "tool_result").map((r) => r.output.content);
    expect(result.isError).toBe(false);
    expect(during[0]).toContain("agent task");
    expect(during[0]).not.toContain("parent task"); // its own list, not the parent's plan
    expect(firstUserText(model)).toBe("side task"); // no carry-over into a subagent
    expect(existsSync(s.listDir("agent-agent-7"))).toBe(false);
    expect(s.onDisk().map((t) => t.content)).toEqual(["parent task"]);
  });
});

describe("TodoWrite in plan mode", () => {
  it("runs: writing down the plan changes nothing in the workspace", async () => {
    const todoDir = temp("ubq-plan-todos-");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "TodoWrite", input: { todos: [{ content: "read the code", status: "pending" }] } }] },
      "here is the plan",
    ]);
    const messages = await collect(
      summon("plan it", { model, permissionMode: "plan", todoDir, persistSession: false, cwd: todoDir }),
    );
    const [result] = ofType(messages, "tool_result");
    expect(result!.output.isError).toBe(false);
    expect(result!.output.content).toContain("read the code");
  });
});
