/** Parity: TodoWrite and the persisted list (seed README: "Todos"). */
import { describe, expect, it } from "vitest";
import { readdirSync, realpathSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { tempHome } from "../helpers/temp-home";
import { join } from "node:path";
import { scriptedModel } from "ubiquity/testing";
import { ofType } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { call, run, userTextsOf } from "./helpers";

const temp = tempDirs();
const home = tempHome();

/** Every task file under a todo dir (the list is one file per task). */
function taskFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".json")) out.push(join(d, e.name));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

async function todo(cwd: string, todoDir: string, inputs: unknown[], extra: Record<string, unknown> = {}) {
  const model = scriptedModel([...inputs.map((i, n) => call("TodoWrite", i, `t${n}`)), "done"]);
  const messages = await run("plan", { model, cwd, persistTodos: true, todoDir, ...extra });
  const results = ofType(messages, "tool_result");
  return { model, results: inputs.map((_, n) => results.find((r) => r.toolUseId === `t${n}`)!.output) };
}

describe("TodoWrite", () => {
  it("adds, updates by content and removes single tasks; one file per task", async () => {
    const cwd = temp();
    const dir = temp();
    const { results } = await todo(cwd, dir, [
      { add: [{ content: "write the parser" }, { content: "write the tests" }] },
      { update: [{ task: "write the parser", status: "in_progress" }] },
      { remove: ["write the tests"] },
    ]);
    for (const r of results) expect(r.isError).toBeFalsy();
    expect(results[1]!.content).toContain("1 in progress");
    const files = taskFiles(dir);
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(files[0]!, "utf8"))).toMatchObject({
      content: "write the parser",
      status: "in_progress",
    });
  });

  it("a whole-list write mixed with edits is an error; a reference matching nothing is an error", async () => {
    const { results } = await todo(temp(), temp(), [
      { todos: [{ content: "a", status: "pending" }], add: [{ content: "b" }] },
      { update: [{ task: "no such task", status: "completed" }] },
    ]);
    expect(results[0]!.isError).toBe(true);
    expect(results[1]!.isError).toBe(true);
  });

  it("updates leaving two tasks in progress are refused", async () => {
    const { results } = await todo(temp(), temp(), [
      {
        todos: [
          { content: "a", status: "pending" },
          { content: "b", status: "pending" },
        ],
      },
      {
        update: [
          { task: "a", status: "in_progress" },
          { task: "b", status: "in_progress" },
        ],
      },
    ]);
    expect(results[0]!.isError).toBeFalsy();
    expect(results[1]!.isError).toBe(true);
  });

  it("a stored list with unfinished work is described in the next run's first prompt; an all-completed one is not", async () => {
    const cwd = temp();
    const dir = temp();
    await todo(cwd, dir, [{ todos: [{ content: "UNFINISHED-TASK", status: "pending" }] }]);
    const next = scriptedModel(["ok"]);
    await run("continue", { model: next, cwd, persistTodos: true, todoDir: dir });
    expect(userTextsOf(next.requests[0]!).join("\n")).toContain("UNFINISHED-TASK");

    const cwd2 = temp();
    await todo(cwd2, dir, [{ todos: [{ content: "FINISHED-TASK", status: "completed" }] }]);
    const after = scriptedModel(["ok"]);
    await run("continue", { model: after, cwd: cwd2, persistTodos: true, todoDir: dir });
    expect(JSON.stringify(after.requests[0]!.prompt)).not.toContain("FINISHED-TASK");
  });

  it("a subagent gets its own list, discarded when it reports", async () => {
    const cwd = realpathSync(temp());
    const dir = temp();
    const model = scriptedModel(({ request }) => {
      const system = request.prompt
        .filter((m) => m.role === "system")
        .map((m) => m.content)
        .join("");
      const answered = request.prompt.at(-1)?.role === "tool";
      if (system.includes("You are SUB."))
        return answered ? "sub done" : call("TodoWrite", { todos: [{ content: "SUB-TASK", status: "pending" }] }, "st");
      if (!answered) return call("TodoWrite", { todos: [{ content: "PARENT-TASK", status: "in_progress" }] }, "pt");
      if (JSON.stringify(request.prompt).includes("sub done")) return "done";
      return {
        toolCalls: [{ toolName: "Agent", id: "a", input: { subagent_type: "sub", description: "x", prompt: "x" } }],
      };
    });
    await run("go", {
      model,
      cwd,
      persistTodos: true,
      todoDir: dir,
      agents: { sub: { description: "sub", prompt: "You are SUB." } },
    });
    const contents = taskFiles(dir).map((f) => JSON.parse(readFileSync(f, "utf8")).content);
    expect(contents).toEqual(["PARENT-TASK"]);
  });

  it("persists by default under ~/.ubiquity/todos/<project-slug>/<key>/<task-id>.json; an unreadable task file is skipped, not fatal", async () => {
    const cwd = temp();
    const model = scriptedModel([
      call("TodoWrite", { todos: [{ content: "KEPT-TASK", status: "pending" }] }, "t"),
      "done",
    ]);
    await run("plan", { model, cwd, persistTodos: true });
    const files = taskFiles(join(home(), ".ubiquity", "todos"));
    expect(files).toHaveLength(1);
    const rel = files[0]!.slice(join(home(), ".ubiquity", "todos").length + 1).split("/");
    expect(rel).toHaveLength(3);
    expect(rel[1]).toBe("project");
    writeFileSync(join(dirname(files[0]!), "deadbeef.json"), "{ torn");
    const next = scriptedModel(["ok"]);
    const messages = await run("go on", { model: next, cwd, persistTodos: true });
    expect(ofType(messages, "result")[0]!.isError).toBe(false);
    expect(userTextsOf(next.requests[0]!).join("\n")).toContain("KEPT-TASK");
  });
});
