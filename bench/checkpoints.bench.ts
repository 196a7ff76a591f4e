/**
 * Snapshot cost of ubiquity:checkpoints on a 20,000-file tree (200 folders × 100 files of
 * ~100 bytes, plus a .gitignore): the first snapshot (every file hashed into the shadow store),
 * then a snapshot with nothing changed (the median of 20; target ≤ 100 ms), one with a single
 * file changed (median of 20), and a dry-run rewind plan over the whole tree.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShadowStore } from "../plugins/checkpoints/store";
import { rewindTo } from "../plugins/checkpoints/rewind";

const FOLDERS = 200;
const PER_FOLDER = 100;
const RUNS = 20;
const RULES = { maxBytes: 10 * 1024 * 1024, exclude: [] };

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

export default async function bench(): Promise<void> {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bench-ckpt-ws-")));
  const storeDir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-bench-ckpt-store-")));
  try {
    for (let d = 0; d < FOLDERS; d++) {
      const dir = join(ws, `pkg${d}`, "src");
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < PER_FOLDER; f++)
        writeFileSync(
          join(dir, `file${f}.ts`),
          `export const value${d}_${f} = ${d * PER_FOLDER + f}; // ${"x".repeat(60)}\n`,
        );
    }
    writeFileSync(join(ws, ".gitignore"), "*.log\n");
    const store = new ShadowStore(join(storeDir, "project"));
    let seq = 0;
    const snap = () =>
      store.snapshot([ws], RULES, {
        sessionId: "bench",
        messageUuid: `m${seq++}`,
        createdAt: new Date().toISOString(),
      });

    let started = performance.now();
    const first = await snap();
    const firstMs = performance.now() - started;

    const same: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      started = performance.now();
      await snap();
      same.push(performance.now() - started);
    }

    const one: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      writeFileSync(join(ws, "pkg7", "src", "file7.ts"), `export const changed = ${i};\n`);
      started = performance.now();
      await snap();
      one.push(performance.now() - started);
    }

    started = performance.now();
    const plan = await rewindTo(first, true);
    const planMs = performance.now() - started;

    console.log(`tree: ${FOLDERS * PER_FOLDER} files in ${FOLDERS} folders`);
    console.log(`first snapshot:            ${ms(firstMs)}`);
    console.log(
      `no-change snapshot:        ${ms(median(same))} median of ${RUNS} (min ${ms(Math.min(...same))}, max ${ms(Math.max(...same))}; target ≤ 100 ms)`,
    );
    console.log(`one-file-changed snapshot: ${ms(median(one))} median of ${RUNS}`);
    console.log(`rewind plan (dry run):     ${ms(planMs)} (${plan.changes.length} file to restore)`);
  } finally {
    rmSync(ws, { recursive: true, force: true });
    rmSync(storeDir, { recursive: true, force: true });
  }
}
