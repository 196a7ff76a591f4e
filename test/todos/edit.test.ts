import { describe, expect, it } from "vitest";
import { applyTodoInput, TodoInputError } from "../../plugins/todos/index";
import type { Todo } from "ubiquity/plugins/todos";

function ids() {
  let n = 0;
  return () => `n${++n}`;
}

const stored: Todo[] = [
  { id: "a1", content: "write the parser", status: "completed", position: 0 },
  { id: "b2", content: "wire the CLI", status: "in_progress", activeForm: "Wiring the CLI", position: 1 },
  { id: "c3", content: "docs", status: "pending", position: 2 },
];

describe("TodoWrite merge rules", () => {
  it("add appends after the last position, pending by default", () => {
    const change = applyTodoInput(
      stored,
      { add: [{ content: "tests" }, { content: "release", status: "pending" }] },
      ids(),
    );
    expect(change.todos.map((t) => [t.id, t.content, t.status, t.position])).toEqual([
      ["a1", "write the parser", "completed", 0],
      ["b2", "wire the CLI", "in_progress", 1],
      ["c3", "docs", "pending", 2],
      ["n1", "tests", "pending", 3],
      ["n2", "release", "pending", 4],
    ]);
    expect(change.upserts.map((t) => t.id)).toEqual(["n1", "n2"]);
    expect(change.removals).toEqual([]);
  });

  it("update names a task by id or exact content and writes only that task", () => {
    const byContent = applyTodoInput(stored, { update: [{ task: "wire the CLI", status: "completed" }] }, ids());
    expect(byContent.upserts).toEqual([
      { id: "b2", content: "wire the CLI", status: "completed", activeForm: "Wiring the CLI", position: 1 },
    ]);
    const byId = applyTodoInput(
      stored,
      {
        update: [
          { task: "c3", content: "write the docs", status: "in_progress" },
          { task: "b2", status: "pending" },
        ],
      },
      ids(),
    );
    expect(byId.upserts.map((t) => [t.id, t.content, t.status])).toEqual([
      ["b2", "wire the CLI", "pending"],
      ["c3", "write the docs", "in_progress"],
    ]);
  });

  it("remove deletes by id or content; add → update → remove apply in order in one call", () => {
    const change = applyTodoInput(
      stored,
      { add: [{ content: "tests" }], update: [{ task: "tests", status: "completed" }], remove: ["a1", "docs"] },
      ids(),
    );
    expect(change.todos.map((t) => `${t.content}:${t.status}`)).toEqual([
      "wire the CLI:in_progress",
      "tests:completed",
    ]);
    expect(change.removals.sort()).toEqual(["a1", "c3"]);
    expect(change.upserts.map((t) => t.id)).toEqual(["n1"]);
  });

  it("replace (todos) restates the list: same content keeps its id, unchanged tasks are not rewritten, the rest go", () => {
    const change = applyTodoInput(
      stored,
      {
        todos: [
          { content: "write the parser", status: "completed" },
          { content: "wire the CLI", status: "completed", activeForm: "Wiring the CLI" },
          { content: "benchmarks", status: "in_progress" },
        ],
      },
      ids(),
    );
    expect(change.todos.map((t) => [t.id, t.status, t.position])).toEqual([
      ["a1", "completed", 0],
      ["b2", "completed", 1],
      ["n1", "in_progress", 2],
    ]);
    expect(change.upserts.map((t) => t.id)).toEqual(["b2", "n1"]);
    expect(change.removals).toEqual(["c3"]);
  });

  it("replace keeps a given id, and an unknown id is an error", () => {
    const change = applyTodoInput(
      stored,
      { todos: [{ id: "c3", content: "docs, renamed", status: "pending" }] },
      ids(),
    );
    expect(change.todos).toEqual([{ id: "c3", content: "docs, renamed", status: "pending", position: 0 }]);
    expect(() => applyTodoInput(stored, { todos: [{ id: "zz", content: "x", status: "pending" }] }, ids())).toThrow(
      /no task has id "zz"/,
    );
  });

  it("a reference that matches nothing is an error, not a no-op", () => {
    expect(() => applyTodoInput(stored, { update: [{ task: "write the parsr", status: "completed" }] }, ids())).toThrow(
      TodoInputError,
    );
    expect(() => applyTodoInput(stored, { update: [{ task: "write the parsr", status: "completed" }] }, ids())).toThrow(
      /no task matches "write the parsr": name a task by its id or its exact content \("write the parser" \(id a1\)/,
    );
    expect(() => applyTodoInput(stored, { remove: ["nothing"] }, ids())).toThrow(/no task matches "nothing"/);
    expect(() => applyTodoInput([], { remove: ["x"] }, ids())).toThrow(/the list is empty/);
  });

  it("content shared by two tasks must be named by id", () => {
    const twins: Todo[] = [
      { id: "x1", content: "same", status: "pending", position: 0 },
      { id: "x2", content: "same", status: "pending", position: 1 },
    ];
    expect(() => applyTodoInput(twins, { update: [{ task: "same", status: "completed" }] }, ids())).toThrow(
      /"same" matches 2 tasks \(x1, x2\): name the task by its id/,
    );
    expect(
      applyTodoInput(twins, { update: [{ task: "x2", status: "completed" }] }, ids()).upserts.map((t) => t.id),
    ).toEqual(["x2"]);
  });

  it("replace and edit in one call is an error; so is an empty call and an update that changes nothing", () => {
    expect(() => applyTodoInput(stored, { todos: [], add: [{ content: "x" }] }, ids())).toThrow(
      /either `todos` .* or `add` \/ `update` \/ `remove` .* not both/,
    );
    expect(() => applyTodoInput(stored, {}, ids())).toThrow(/nothing to do/);
    expect(() => applyTodoInput(stored, { update: [{ task: "docs" }] }, ids())).toThrow(/changes nothing/);
  });

  it("at most one in_progress per owner: updates leaving two are refused, an add never is (it takes over)", () => {
    const added = applyTodoInput(stored, { add: [{ content: "another", status: "in_progress" }] }, ids());
    expect(added.todos.map((t) => `${t.id}:${t.status}`)).toEqual([
      "a1:completed",
      "b2:pending",
      "c3:pending",
      "n1:in_progress",
    ]);
    expect(added.notes).toEqual([
      '"wire the CLI" (id b2) went back to pending: "another" (id n1) is now this run\'s task in progress (one at a time)',
    ]);
    expect(added.upserts.map((t) => t.id).sort()).toEqual(["b2", "n1"]);
    expect(() => applyTodoInput(stored, { update: [{ task: "c3", status: "in_progress" }] }, ids())).toThrow(
      /at most one task can be in_progress, and this change leaves 2: "wire the CLI" \(id b2\), "docs" \(id c3\)/,
    );
    // Handing over in the same call is fine.
    const handover = applyTodoInput(
      stored,
      { add: [{ content: "another", status: "in_progress" }], update: [{ task: "b2", status: "completed" }] },
      ids(),
    );
    expect(handover.todos.filter((t) => t.status === "in_progress").map((t) => t.id)).toEqual(["n1"]);
    expect(() =>
      applyTodoInput(
        [],
        {
          todos: [
            { content: "a", status: "in_progress" },
            { content: "b", status: "in_progress" },
          ],
        },
        ids(),
      ),
    ).toThrow(/at most one task can be in_progress/);
  });

  it("the rule holds per owner: another run's task in progress neither blocks nor is touched", () => {
    const theirs: Todo[] = [{ id: "t1", content: "their task", status: "in_progress", position: 0, owner: "run-b" }];
    const mine = applyTodoInput(
      theirs,
      { add: [{ content: "my task", status: "in_progress" }, { content: "later" }] },
      ids(),
      "run-a",
    );
    expect(mine.todos.map((t) => `${t.content}:${t.status}:${t.owner ?? "-"}`)).toEqual([
      "their task:in_progress:run-b",
      "my task:in_progress:run-a",
      "later:pending:-",
    ]);
    expect(mine.notes).toEqual([]);
    expect(mine.upserts.map((t) => t.content)).toEqual(["my task", "later"]);
    // Finishing leaves no owner behind; two of one run's own tasks in progress is still refused.
    const done = applyTodoInput(mine.todos, { update: [{ task: "my task", status: "completed" }] }, ids(), "run-a");
    expect(done.todos.find((t) => t.content === "my task")).not.toHaveProperty("owner");
    expect(() =>
      applyTodoInput(mine.todos, { update: [{ task: "later", status: "in_progress" }] }, ids(), "run-a"),
    ).toThrow(/per run, and this change leaves 2/);
  });

  it("orders by position, ties by id", () => {
    const tied: Todo[] = [
      { id: "zz", content: "later id", status: "pending", position: 3 },
      { id: "aa", content: "earlier id", status: "pending", position: 3 },
      { id: "mm", content: "first", status: "pending", position: 1 },
    ];
    expect(applyTodoInput(tied, { add: [{ content: "x" }] }, ids()).todos.map((t) => t.id)).toEqual([
      "mm",
      "aa",
      "zz",
      "n1",
    ]);
  });
});
