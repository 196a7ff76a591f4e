/**
 * `ubiquity rewind` through the real bin: a run writes with Bash, `rewind` lists the checkpoint,
 * `--dry-run` shows the plan and changes nothing, no `--yes` without a terminal exits 2 and
 * changes nothing, `--yes` rewinds. The sessions and the store lie inside the project: they are
 * never snapshotted, so a rewind leaves them alone.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { temp } from "./helpers";

// Plain JavaScript, written as ubiquity.config.mjs: a .ts config made each fresh project's first run
// load jiti's Babel (~0.2 CPU-s; see test/helpers/scripted-project.ts).
const CONFIG = `
import { scriptedModel } from "ubiquity/testing";
export default {
  sessionDir: "./.sessions",
  todoDir: "./.todos",
  marketPricing: false,
  maxRetries: 0,
  permissionMode: "bypassPermissions",
  checkpoints: { dir: "./.checkpoints" },
  model: scriptedModel([
    { toolCalls: [{ toolName: "Bash", input: { command: "echo changed > f.txt && rm g.txt && echo new > h.txt" } }] },
    "done",
  ]),
};
`;

describe("ubiquity rewind (the real bin)", () => {
  beforeAll(() => requireDist());
  afterAll(() => removeTempProjects());

  it("lists, shows the plan with --dry-run, refuses without --yes off a terminal, rewinds with --yes", async () => {
    const dir = tempProject(
      { "ubiquity.config.mjs": CONFIG, "f.txt": "original\n", "g.txt": "gone soon\n" },
      { linkUbiquity: true },
    );
    const run = await runCli(["run", "change the files"], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("changed\n");

    const list = await runCli(["rewind", "--json"], dir);
    expect(list.code, list.stderr).toBe(0);
    const checkpoints = JSON.parse(list.stdout) as { messageUuid: string; promptUuid: string; prompt: string }[];
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]!.prompt).toBe("change the files");
    const to = checkpoints[0]!.promptUuid;

    const dry = await runCli(["rewind", "--to", to, "--dry-run"], dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/restore\s+f\.txt/);
    expect(dry.stdout).toMatch(/recreate\s+g\.txt/);
    expect(dry.stdout).toMatch(/remove\s+h\.txt/);
    expect(dry.stdout).not.toContain(".sessions");
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("changed\n");

    const unconfirmed = await runCli(["rewind", "--to", to], dir);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stdout).toMatch(/restore\s+f\.txt/);
    expect(unconfirmed.stderr).toContain("--yes");
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("changed\n");

    const done = await runCli(["rewind", "--to", to, "--yes"], dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/restored\s+f\.txt/);
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("original\n");
    expect(readFileSync(join(dir, "g.txt"), "utf8")).toBe("gone soon\n");
    expect(existsSync(join(dir, "h.txt"))).toBe(false);
    // The transcript (inside the project) was not rolled back: the session is still listed.
    const again = await runCli(["rewind", "--json"], dir);
    expect(JSON.parse(again.stdout)).toHaveLength(1);
  });

  it("says which flags it takes (--help), and an unknown uuid is an error naming how to list them", async () => {
    const dir = tempProject(
      { "ubiquity.config.mjs": CONFIG, "f.txt": "original\n", "g.txt": "x\n" },
      { linkUbiquity: true },
    );
    const help = await runCli(["rewind", "--help"], dir);
    expect(help.code).toBe(0);
    for (const flag of ["--session", "--to", "--dry-run", "--yes"]) expect(help.stdout + help.stderr).toContain(flag);
    expect((await runCli(["run", "go"], dir)).code).toBe(0);
    const bad = await runCli(["rewind", "--to", "nope"], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("ubiquity rewind --session");
  });

  it("rewinds an additional directory outside the project from the store the config's checkpoints.dir names", async () => {
    const extra = temp("ubq-ckpt-extra-");
    const stores = temp("ubq-ckpt-stores-");
    writeFileSync(join(extra, "g.txt"), "g original\n");
    const config = CONFIG.replace(
      'checkpoints: { dir: "./.checkpoints" }',
      `checkpoints: { dir: ${JSON.stringify(stores)} }, additionalDirectories: [${JSON.stringify(extra)}]`,
    ).replace(
      "echo changed > f.txt && rm g.txt && echo new > h.txt",
      `echo changed > f.txt && echo changed > ${extra}/g.txt`,
    );
    const dir = tempProject({ "ubiquity.config.mjs": config, "f.txt": "original\n" }, { linkUbiquity: true });
    const run = await runCli(["run", "change the files"], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(extra, "g.txt"), "utf8")).toBe("changed\n");
    const to = (JSON.parse((await runCli(["rewind", "--json"], dir)).stdout) as { promptUuid: string }[])[0]!
      .promptUuid;
    const done = await runCli(["rewind", "--to", to, "--yes"], dir);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(join(extra, "g.txt"), "utf8")).toBe("g original\n");
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("original\n");
  });
});
