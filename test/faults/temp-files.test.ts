/**
 * Temp files of atomic writes (Write, Edit, todos, sessions) left by a crash: swept at the next
 * start, and never listed by Glob or Grep (with ripgrep and with the pure-Node fallback).
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import presetDefault from "ubiquity/presets/default";
import { GlobTool } from "../../plugins/tool-glob/index";
import { GrepTool } from "../../plugins/tool-grep/index";
import { isAtomicTempName, sweepProjectTemps, writeFileAtomic } from "../../plugins/_kits/storage/index";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { toolContext } from "../tools/helpers";

const temp = tempDirs();

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.on("close", resolve));
  return child.pid!;
}

/** A project with a real file and the temp files crashed writes left: a dead writer's, an old one, a live one. */
async function project() {
  const cwd = temp("ubq-project-");
  mkdirSync(join(cwd, "src", "deep"), { recursive: true });
  writeFileSync(join(cwd, "src", "app.ts"), "export const needle = 1;\n");
  const dead = join(cwd, "src", `.app.ts.${await deadPid()}.0badc0de.tmp`);
  const old = join(cwd, "src", "deep", `.util.ts.${process.pid}.12345678.tmp`);
  const live = join(cwd, `.notes.md.${process.pid}.abcdef01.tmp`);
  for (const p of [dead, old, live]) writeFileSync(p, "export const needle = 2; // half written\n");
  const past = new Date(Date.now() - 10 * 60_000);
  utimesSync(old, past, past);
  // A dotfile of the user's that only looks similar stays untouched.
  const mine = join(cwd, ".scratch.tmp");
  writeFileSync(mine, "needle");
  return { cwd, dead, old, live, mine };
}

describe("temp files of atomic writes", () => {
  it("have names only writeFileAtomic gives", async () => {
    const dir = temp();
    const { readdir } = await import("node:fs/promises");
    const write = writeFileAtomic(join(dir, "a.txt"), "x".repeat(1 << 20));
    const seen = (await readdir(dir)).find((n) => n.endsWith(".tmp"));
    await write;
    if (seen) expect(isAtomicTempName(seen)).toBe(true);
    expect(isAtomicTempName(".scratch.tmp")).toBe(false);
    expect(isAtomicTempName(".a.txt.123.0badc0de.tmp")).toBe(true);
  });

  it("are swept when the next run starts: a dead writer's and an old one go, a live young one and the user's own stay", async () => {
    const p = await project();
    const result = resultOf(
      await collect(
        summon("hi", {
          presets: [presetDefault],
          model: scriptedModel(["ok"]),
          cwd: p.cwd,
          persistSession: false,
          persistTodos: false,
        }),
      ),
    );
    expect(result.isError).toBe(false);
    // The sweep runs in the background: wait for it however loaded the machine (the bound only
    // catches a sweep that never comes).
    for (const end = Date.now() + 120_000; (existsSync(p.dead) || existsSync(p.old)) && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 20));
    expect([existsSync(p.dead), existsSync(p.old), existsSync(p.live), existsSync(p.mine)]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it("the sweep runs once per folder per process", async () => {
    const p = await project();
    expect(await sweepProjectTemps(p.cwd)).toBe(2);
    writeFileSync(p.dead, "again");
    expect(await sweepProjectTemps(p.cwd)).toBe(0);
  });

  it("once its session ended, a sweep of a big tree stops (it never holds the program open) and the folder can be swept again; a small one finishes", async () => {
    const cwd = temp("ubq-big-");
    for (let d = 0; d < 5; d++) {
      mkdirSync(join(cwd, `d${d}`, "deeper"), { recursive: true });
      for (let i = 0; i < 600; i++) writeFileSync(join(cwd, `d${d}`, `f${i}`), "");
    }
    const far = join(cwd, "d4", "deeper", `.b.txt.${await deadPid()}.0badc0de.tmp`);
    writeFileSync(far, "x");
    const ended = new AbortController();
    ended.abort();
    expect(await sweepProjectTemps(cwd, undefined, 12, undefined, ended.signal)).toBe(0);
    expect(existsSync(far)).toBe(true);
    expect(await sweepProjectTemps(cwd)).toBe(1);
    expect(existsSync(far)).toBe(false);
    const small = await project();
    expect(await sweepProjectTemps(small.cwd, undefined, 12, undefined, ended.signal)).toBe(2);
  });

  it("a sweep reads a bounded number of folder entries, nearest folders first (a run started in a huge tree does not walk it all)", async () => {
    const cwd = temp("ubq-huge-");
    const near = join(cwd, `.a.txt.${await deadPid()}.0badc0de.tmp`);
    writeFileSync(near, "x");
    mkdirSync(join(cwd, "wide"));
    for (let i = 0; i < 300; i++) writeFileSync(join(cwd, "wide", `f${i}`), "");
    mkdirSync(join(cwd, "wide", "sub", "far"), { recursive: true });
    const far = join(cwd, "wide", "sub", "far", `.b.txt.${await deadPid()}.0badc0de.tmp`);
    writeFileSync(far, "x");
    expect(await sweepProjectTemps(cwd, undefined, 12, 100)).toBe(1); // the budget ran out in wide/
    expect([existsSync(near), existsSync(far)]).toEqual([false, true]);
    const again = temp("ubq-huge-");
    mkdirSync(join(again, "sub"));
    const deepOne = join(again, "sub", `.c.txt.${await deadPid()}.0badc0de.tmp`);
    writeFileSync(deepOne, "x");
    expect(await sweepProjectTemps(again)).toBe(1); // within the default budget it is found
    expect(existsSync(deepOne)).toBe(false);
  });

  it.each(["rg", "node"] as const)("are never listed by Glob or Grep (%s backend)", async (backend) => {
    const p = await project();
    const ctx = toolContext(p.cwd);
    const glob = await new GlobTool().call({ pattern: "**/*" } as never, ctx);
    expect(glob.content).toContain("src/app.ts");
    expect(glob.content).toContain(".scratch.tmp");
    expect(glob.content).not.toMatch(/\.\d+\.[0-9a-f]{8}\.tmp/);
    const grep = await new GrepTool({ backend }).call(
      { pattern: "needle", output_mode: "files_with_matches" } as never,
      ctx,
    );
    expect(grep.content).toContain("app.ts");
    expect(grep.content).toContain(".scratch.tmp");
    expect(grep.content).not.toMatch(/\.\d+\.[0-9a-f]{8}\.tmp/);
  });
});
