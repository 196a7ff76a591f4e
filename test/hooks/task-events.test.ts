/**
 * TaskCreated and TaskCompleted on the todo list, through `summon()` with the todos plugins and
 * real command hooks (shell scripts that log their stdin JSON and exit 2 to refuse): a refused
 * task is never written (the task files on disk are the oracle), a refused completion leaves the
 * task open, and the hook's reason reaches the model in TodoWrite's answer.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import todos, { type Todo } from "ubiquity/plugins/todos";
import toolTodo from "../../plugins/tool-todo/index";
import { projectSlug } from "../../plugins/_kits/storage/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { lines, script } from "../helpers/hook-scripts";
import { tempDirs } from "../helpers/temp-dirs";

const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-task-events-"));
const write = (input: unknown) => ({ toolName: "TodoWrite", input });

async function run(cwd: string, todoDir: string, steps: Script, hooks: Options["hooks"]) {
  const messages = await collect(
    summon("plan", {
      model: scriptedModel(steps),
      presets: [],
      plugins: [todos(), toolTodo(), hooksPlugin()],
      cwd,
      todoDir,
      hooks,
    }),
  );
  expect(resultOf(messages).isError).toBe(false);
  return ofType(messages, "tool_result").map((r) => r.output);
}

/** The tasks stored on disk for the project. */
function onDisk(todoDir: string, cwd: string): Todo[] {
  const dir = join(todoDir, projectSlug(cwd), "project");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")) as Todo)
    .sort((a, b) => a.position - b.position);
}

/** A hook that logs its input and refuses (exit 2, `reason` on stderr) unless the input holds `allowed`. */
function gate(dir: string, log: string, allowed: string, reason: string) {
  const body = `input=$(cat); printf '%s\\n' "$input" >> "${log}"
printf '%s' "$input" | grep -qF '${allowed}' && exit 0
echo "${reason}" >&2; exit 2`;
  return { type: "command" as const, command: script(dir, `gate-${Math.random().toString(36).slice(2)}.sh`, body) };
}

describe("TaskCreated", () => {
  it("fires for each new task with task_id and task_subject; exit 2 keeps it off the list and tells the model", async () => {
    const cwd = temp();
    const todoDir = temp();
    const log = join(cwd, "created.jsonl");
    const outputs = await run(
      cwd,
      todoDir,
      [{ toolCalls: [write({ add: [{ content: "[T-1] fix the parser" }, { content: "tidy up" }] })] }, "planned"],
      {
        TaskCreated: [
          { hooks: [gate(cwd, log, '"task_subject":"[T-', "Task subject must start with a ticket number")] },
        ],
      },
    );
    expect(onDisk(todoDir, cwd).map((t) => t.content)).toEqual(["[T-1] fix the parser"]);
    expect(outputs[0]!.isError).toBeFalsy();
    expect(outputs[0]!.content).toContain('"tidy up"');
    expect(outputs[0]!.content).toContain("was not created: Task subject must start with a ticket number");
    const seen = lines(log);
    expect(seen.map((l) => [l.hook_event_name, l.task_subject])).toEqual([
      ["TaskCreated", "[T-1] fix the parser"],
      ["TaskCreated", "tidy up"],
    ]);
    expect(seen[0]!.task_id).toBe(onDisk(todoDir, cwd)[0]!.id);
  });
});

describe("TaskCompleted", () => {
  it("fires when a task is marked completed; exit 2 keeps it open and tells the model", async () => {
    const cwd = temp();
    const todoDir = temp();
    const log = join(cwd, "completed.jsonl");
    const createdLog = join(cwd, "created.jsonl");
    const outputs = await run(
      cwd,
      todoDir,
      [
        { toolCalls: [write({ add: [{ content: "write tests", status: "in_progress" }, { content: "docs" }] })] },
        { toolCalls: [write({ update: [{ task: "write tests", status: "completed" }] })] },
        { toolCalls: [write({ update: [{ task: "docs", status: "completed" }] })] },
        "done",
      ],
      {
        TaskCreated: [{ hooks: [gate(cwd, createdLog, "task_id", "never")] }],
        TaskCompleted: [
          { hooks: [gate(cwd, log, '"task_subject":"docs"', "Tests not passing. Fix failing tests first")] },
        ],
      },
    );
    const tasks = onDisk(todoDir, cwd);
    expect(tasks.map((t) => [t.content, t.status])).toEqual([
      ["write tests", "in_progress"],
      ["docs", "completed"],
    ]);
    expect(outputs[1]!.content).toContain("was not marked completed: Tests not passing. Fix failing tests first");
    expect(outputs[2]!.content).not.toContain("was not marked completed");
    const seen = lines(log);
    expect(seen.map((l) => [l.hook_event_name, l.task_subject, l.task_id])).toEqual([
      ["TaskCompleted", "write tests", tasks[0]!.id],
      ["TaskCompleted", "docs", tasks[1]!.id],
    ]);
    // Creation fired once per new task, never for an update.
    expect(lines(createdLog)).toHaveLength(2);
  });
});
