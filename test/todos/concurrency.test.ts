/**
 * Acceptance: 8 processes each make 100 edits to their own tasks in one shared list and lose
 * nothing; two appends at the same position both survive. The same 8 processes serve both
 * multi-process tests, one job after the other (each imports the SDK once: 8 starts, not 16).
 */
import { afterAll, describe, expect, it } from "vitest";
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

/** Start the jobs together, let each make its first edit, then let all go on. */
async function runAll(jobs: Job[]) {
  await Promise.all(jobs.map((j) => j.ready));
  ended = [];
  for (const j of jobs) j.go();
  await Promise.all(jobs.map((j) => Promise.race([j.midway, j.done])));
  // The runs really overlap: every one is under way (one edit made) and none has ended.
  expect(ended).toEqual([]);
  for (const j of jobs) j.resume();
  return Promise.all(jobs.map((j) => j.done));
}

/** One job of a process: its lines from `began` to `end …`, and the points the test waits for. */
interface Job {
  ready: Promise<void>;
  midway: Promise<void>;
  done: Promise<string[]>;
  go: () => void;
  resume: () => void;
}

/** A long-lived process that runs the jobs it is given one after another (see fixtures/edit-child.ts). */
function start(p: number) {
  const proc = spawnTs(child, [String(p)]);
  let stderr = "";
  proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  let current: { lines: string[]; onLine: (line: string) => void } | undefined;
  let readyLines = 0;
  const readyWaiters: (() => void)[] = [];
  const exited = new Promise<number | null>((resolve) => proc.on("close", resolve));
  let buffered = "";
  proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line === "ready") {
        readyLines++;
        readyWaiters.shift()?.();
      } else current?.onLine(line);
    }
  });
  let jobs = 0;
  return {
    exited,
    /** The next job: on the list under `todoDir`, with the plan of `kind`. */
    job(todoDir: string, cwd: string, kind?: "progress"): Job {
      const n = ++jobs;
      const ready = new Promise<void>((resolve) => (readyLines >= n ? resolve() : readyWaiters.push(resolve)));
      let onMidway: () => void;
      const midway = new Promise<void>((resolve) => (onMidway = resolve));
      let onDone: (lines: string[]) => void;
      const done = new Promise<string[]>((resolve, reject) => {
        onDone = resolve;
        void exited.then((code) =>
          reject(new Error(`process ${p} exited ${code} during a job: ${stderr.slice(0, 2000)}`)),
        );
      });
      const lines: string[] = [];
      current = {
        lines,
        onLine: (line) => {
          lines.push(line);
          if (line === "midway") onMidway();
          if (line === "ended") ended.push(p);
          if (line.startsWith("end ")) onDone(lines);
        },
      };
      return {
        ready,
        midway,
        done,
        go: () => proc.stdin.write(`go ${JSON.stringify({ todoDir, cwd, kind })}\n`),
        resume: () => proc.stdin.write("on\n"),
      };
    },
    /** End its stdin: the process exits once its job is done. */
    stop: () => proc.stdin.end(),
  };
}

let processes: ReturnType<typeof start>[] | undefined;
/** The 8 processes, started at the first test that needs them. */
const pool = () => (processes ??= Array.from({ length: PROCESSES }, (_, p) => start(p)));
afterAll(async () => {
  if (!processes) return;
  for (const proc of processes) proc.stop();
  // Each exits 0 once stdin ends: nothing failed after its last job.
  expect(await Promise.all(processes.map((proc) => proc.exited))).toEqual(processes.map(() => 0));
});

describe("todo lists under concurrency", () => {
  it(`${PROCESSES} processes × ${EDITS} edits to their own tasks in one shared list lose nothing`, async () => {
    const todoDir = temp("ubq-todos-");
    const cwd = temp("ubq-project-");
    const procs = pool();
    const outputs = await runAll(procs.map((proc) => proc.job(todoDir, cwd)));

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
    const outputs = await runAll(pool().map((proc) => proc.job(todoDir, cwd, "progress")));

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
