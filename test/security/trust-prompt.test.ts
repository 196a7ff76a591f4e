/**
 * The trust question in a terminal: the real bin under a pseudo-terminal (util-linux `script`),
 * answered the way a person would — after the question appears. Trust is remembered and the
 * folder's config runs; "run without" is remembered too and never asks again; quit runs nothing.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binPath, requireDist, runCli } from "../helpers/project";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => requireDist());

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A repository whose TypeScript config writes a marker when it runs. */
function repo(): string {
  const dir = temp("ubq-prompt-repo-");
  mkdirSync(join(dir, ".git"));
  writeFileSync(
    join(dir, "ubiquity.config.ts"),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(dir, "marker"))}, "ran");\nexport default {};\n`,
  );
  return dir;
}

/** Run `ubiquity run` under a pseudo-terminal; type `answer` once the trust question shows (if it does). */
function inTerminal(
  cwd: string,
  home: string,
  answer: string,
): Promise<{ code: number; screen: string; asked: boolean }> {
  const command = [process.execPath, binPath, "run", "--model", "test", "hi"].map((a) => `'${a}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd,
      env: { ...process.env, HOME: home, UBIQUITY_TRUST: "", NO_COLOR: "1", DEBUG: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    let asked = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no exit within 240 s; screen so far:\n${screen}`));
    }, 240_000);
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      if (!asked && screen.includes("[q]uit, then Enter: ")) {
        asked = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, screen, asked });
    });
  });
}

const storeOf = (home: string) =>
  JSON.parse(readFileSync(join(home, ".ubiquity", "trusted-folders.json"), "utf8")) as {
    folders: { path: string; trusted: boolean }[];
  };

describe.skipIf(!existsSync("/usr/bin/script"))("the trust question under a pseudo-terminal", () => {
  it("lists what it found and what it could do; 'trust' runs the config and is remembered", async () => {
    const dir = repo();
    const home = temp("ubq-prompt-home-");
    const first = await inTerminal(dir, home, "t");
    expect(first.asked).toBe(true);
    expect(first.screen).toContain(`This folder is not trusted yet: ${dir}`);
    expect(first.screen).toContain("ubiquity.config.ts: runs as code");
    expect(first.code).toBe(0);
    expect(existsSync(join(dir, "marker"))).toBe(true);
    expect(storeOf(home).folders).toEqual([expect.objectContaining({ path: dir, trusted: true })]);

    // Remembered: a later run without a terminal applies the config and warns about nothing.
    rmSync(join(dir, "marker"));
    const later = await runCli(["run", "--model", "test", "hi"], dir, { HOME: home, UBIQUITY_TRUST: "" });
    expect(later.stderr).not.toContain("not trusted");
    expect(existsSync(join(dir, "marker"))).toBe(true);
  });

  it("'run without' skips the config, is remembered, and the next terminal run does not ask again", async () => {
    const dir = repo();
    const home = temp("ubq-prompt-home-");
    const first = await inTerminal(dir, home, "r");
    expect(first.asked).toBe(true);
    expect(first.code).toBe(0);
    expect(existsSync(join(dir, "marker"))).toBe(false);
    expect(storeOf(home).folders).toEqual([expect.objectContaining({ path: dir, trusted: false })]);

    const second = await inTerminal(dir, home, "t");
    expect(second.asked).toBe(false);
    expect(second.screen).toContain("warning: this folder is not trusted");
    expect(existsSync(join(dir, "marker"))).toBe(false);
  });

  it("'quit' runs nothing and exits non-zero", async () => {
    const dir = repo();
    const home = temp("ubq-prompt-home-");
    const result = await inTerminal(dir, home, "q");
    expect(result.asked).toBe(true);
    expect(result.code).toBe(1);
    expect(result.screen).toContain("is not trusted (run `ubiquity trust .` to trust it)");
    expect(result.screen).not.toContain("Offline test model");
    expect(existsSync(join(dir, "marker"))).toBe(false);
  });
});
