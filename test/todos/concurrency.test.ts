/**
 * Acceptance: 8 processes each make 100 edits to their own tasks in one shared list and lose
 * nothing; two appends at the same position both survive.
 */
import { describe, expect, it } from "vitest";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileTodoStore, applyTodoInput } from "../../plugins/todos/index";
import { projectSlug } from "../../plugins/_kits/storage/index";
import { spawnTs } from "../helpers/ts-child";
import { tempDirs } from "../helpers/temp-dirs";
import { editPlan, progressPlan } from "./fixtures/edit-plan";

const PROCESSES = 8;
const EDITS = 100;

const here = dirname(fileURLToPath(import.meta.url));
const child = join(here, "fixtures", "edit-child.ts");

const temp = tempDirs();
/** The processes that printed `ended`, in the order their output arrived. */
let ended: number[] = [];

/** Start the processes together, let each make its first edit, then let all go on. */
async function runAll(procs: ReturnType<typeof start>[]) {
  await Promise.all(procs.map((p) => p.ready));
  ended = [];
  for (const p of procs) p.go();
  await Promise.all(procs.map((p) => Promise.race([p.midway, p.done])));
  // The runs really overlap: every one is under way (one edit made) and none has ended.
  expect(ended).toEqual([]);
  for (const p of procs) p.resume();
  return Promise.all(procs.map((p) => p.done));
}

function start(todoDir: string, cwd: string, p: number, kind?: "progress") {
  const proc = spawnTs(child, [todoDir, cwd, String(p), ...(kind ? [kind] : [])]);
  let stdout = "";
  let stderr = "";
  let onReady: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  let sawEnd = false;
  let onMidway: () => void;
  const midway = new Promise<void>((resolve) => (onMidway = resolve));
  proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith("ready\n")) onReady();
    if (stdout.includes("\nmidway\n")) onMidway();
    if (!sawEnd && stdout.includes("\nended\n")) ended.push(p);
    sawEnd ||= stdout.includes("\nended\n");
  });
  proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<string[]>((resolve, reject) =>
    proc.on("close", (code) =>
      code === 0
        ? resolve(stdout.split("\n").filter(Boolean))
        : reject(new Error(`process ${p} exited ${code}: ${stderr.slice(0, 2000)}`)),
    ),
  );
  // `go` starts the run; `resume` lets it go on after its first edit (`midway`).
  return { ready, midway, done, go: () => proc.stdin.write("go\n"), resume: () => proc.stdin.end("on\n") };
}

describe("todo lists under concurrency", () => {
  it(`${PROCESSES} processes × ${EDITS} edits to their own tasks in one shared list lose nothing`, async () => {
    const todoDir = temp("ubq-todos-");
    const cwd = temp("ubq-project-");
    const procs = Array.from({ length: PROCESSES }, (_, p) => start(todoDir, cwd, p));
    const outputs = await runAll(procs);

    outputs.forEach((lines, p) => {
      const results = lines.filter((l) => l.startsWith("result "));
      expect(results, `process ${p}`).toHaveLength(EDITS);
      expect(
        results.filter((l) => !l.startsWith("result ok")),
        `process ${p}`,
      ).toEqual([]);
      expect(lines.at(-1), `process ${p}`).toBe("end ok");
    });
    expect(ended.sort((a, b) => a - b)).toEqual(procs.map((_, p) => p));

    const list = await new FileTodoStore(todoDir).read({ project: projectSlug(cwd), key: "project" });
    const expected = Object.assign(
      {},
      ...Array.from({ length: PROCESSES }, (_, p) => editPlan(p, EDITS).final),
    ) as Record<string, string>;
    expect(Object.fromEntries(list.map((t) => [t.content, t.status]))).toEqual(expected);
    expect(list).toHaveLength(PROCESSES * 4);
  }, 120_000);

  it(`${PROCESSES} processes × ${EDITS} edits, each keeping one task in progress, on one shared list: none refused, one in progress per run`, async () => {
    const todoDir = temp("ubq-todos-");
    const cwd = temp("ubq-project-");
    const procs = Array.from({ length: PROCESSES }, (_, p) => start(todoDir, cwd, p, "progress"));
    const outputs = await runAll(procs);

    const results = outputs.flatMap((lines) => lines.filter((l) => l.startsWith("result ")));
    const refused = results.filter((l) => !l.startsWith("result ok"));
    console.log(
      `${PROCESSES} processes × ${EDITS} edits with tasks in progress: ${results.length - refused.length} of ${results.length} accepted, ${refused.length} refused`,
    );
    expect(results).toHaveLength(PROCESSES * EDITS);
    expect(refused).toEqual([]);
    outputs.forEach((lines, p) => {
      expect(lines.at(-1), `process ${p}`).toBe("end ok");
    });

    const list = await new FileTodoStore(todoDir).read({ project: projectSlug(cwd), key: "project" });
    const expected = Object.assign(
      {},
      ...Array.from({ length: PROCESSES }, (_, p) => progressPlan(p, EDITS).final),
    ) as Record<string, string>;
    expect(Object.fromEntries(list.map((t) => [t.content, t.status]))).toEqual(expected);
    // One task in progress per run, each owned by a different run.
    const active = list.filter((t) => t.status === "in_progress");
    expect(active).toHaveLength(PROCESSES);
    expect(new Set(active.map((t) => t.owner)).size).toBe(PROCESSES);
    expect(new Set(active.map((t) => t.content.split("-")[0])).size).toBe(PROCESSES);
  }, 120_000);

  it("two appends at the same position both survive, ordered by id", async () => {
    const store = new FileTodoStore(temp("ubq-todos-"));
    const list = { project: "p", key: "project" };
    await store.write(list, [{ id: "base", content: "existing", status: "pending", position: 0 }], []);
    // Two runs read the same list, then each appends.
    const seenByA = await store.read(list);
    const seenByB = await store.read(list);
    const a = applyTodoInput(seenByA, { add: [{ content: "from A" }] }, () => "ffff0001");
    const b = applyTodoInput(seenByB, { add: [{ content: "from B" }] }, () => "0000000b");
    expect(a.upserts[0]!.position).toBe(b.upserts[0]!.position);
    await Promise.all([store.write(list, a.upserts, a.removals), store.write(list, b.upserts, b.removals)]);
    expect((await store.read(list)).map((t) => [t.content, t.position])).toEqual([
      ["existing", 0],
      ["from B", 1],
      ["from A", 1],
    ]);
  });
});
