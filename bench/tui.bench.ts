/**
 * What a terminal UI costs to load on top of the runner: the built runner alone, the runner plus
 * Ubiquity's own terminal UI (dist/chunks/tui.mjs, loaded by `ubiquity chat` only), and — when
 * `TUI_CANDIDATES=<folder>` names a folder where `npm i ink@8 react@19 @ai-sdk/tui@1
 * @mariozechner/pi-tui@0` was run — the runner plus each candidate library (Ink renders one
 * element and unmounts; the others are imported). Wall time, CPU time and peak RSS, medians of
 * alternating rounds (the same `measure` as cold-start). Needs a build (`npx unbuild`).
 * Figures from one machine are in bench/tui-libraries.md.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { measure, median, type Sample } from "./cold-start.bench";

const ROUNDS = Number(process.env.COLD_ROUNDS ?? 11);
const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

export default async function tuiBench(): Promise<void> {
  const runner = pathToFileURL(join(repo, "dist", "runner", "cli.mjs")).href;
  const ui = pathToFileURL(join(repo, "dist", "chunks", "tui.mjs")).href;
  if (!existsSync(fileURLToPath(ui))) throw new Error("no build: run `npx unbuild` first");
  const dir = mkdtempSync(join(tmpdir(), "ubiquity-bench-tui-"));
  const candidates = process.env.TUI_CANDIDATES;
  const load = JSON.stringify(runner);
  const scripts: [string, string][] = [
    ["runner alone", `await import(${load});`],
    ["runner + ubiquity terminal UI", `await import(${load}); await import(${JSON.stringify(ui)});`],
  ];
  if (candidates) {
    // Each library resolved from the candidates' folder, the way its own users import it.
    const req = `const req = (await import("node:module")).createRequire(${JSON.stringify(join(candidates, "package.json"))});`;
    scripts.push(
      [
        "runner + ink 8 + react 19 (render)",
        `await import(${load}); ${req} const React = (await import(req.resolve("react"))).default; const { render, Text } = await import(req.resolve("ink")); const app = render(React.createElement(Text, null, "hi"), { patchConsole: false }); app.unmount(); await app.waitUntilExit();`,
      ],
      ["runner + @ai-sdk/tui 1", `await import(${load}); ${req} await import(req.resolve("@ai-sdk/tui"));`],
      [
        "runner + @mariozechner/pi-tui",
        `await import(${load}); ${req} await import(req.resolve("@mariozechner/pi-tui"));`,
      ],
    );
  }
  try {
    const files = scripts.map(([, code], i) => {
      const file = join(dir, `s${i}.mjs`);
      writeFileSync(file, code);
      return file;
    });
    for (const file of files) await measure([file], dir, process.env); // warm-up
    const samples = files.map(() => [] as Sample[]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = files.map((_, i) => i);
      if (round % 2) order.reverse();
      for (const i of order) samples[i]!.push(await measure([files[i]!], dir, process.env));
    }
    const base = samples[0]!;
    const b = {
      ms: median(base.map((x) => x.ms)),
      cpu: median(base.map((x) => x.cpuMs)),
      mib: median(base.map((x) => x.kib)) / 1024,
    };
    for (const [i, [label]] of scripts.entries()) {
      const s = samples[i]!;
      const ms = median(s.map((x) => x.ms));
      const cpu = median(s.map((x) => x.cpuMs));
      const mib = median(s.map((x) => x.kib)) / 1024;
      console.log(
        `${label.padEnd(38)} ${ms.toFixed(0).padStart(5)} ms  cpu ${cpu.toFixed(0).padStart(4)} ms (+${(cpu - b.cpu).toFixed(0)})  ${mib.toFixed(1).padStart(6)} MiB peak (+${(mib - b.mib).toFixed(1)})`,
      );
    }
    if (!candidates)
      console.log(
        "(set TUI_CANDIDATES=<folder with ink, react, @ai-sdk/tui, @mariozechner/pi-tui installed> to compare the libraries)",
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
