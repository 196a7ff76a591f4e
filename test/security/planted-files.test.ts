/**
 * Files planted where the SDK reads definitions by itself: a FIFO would block a plain read
 * forever, a huge file would be read whole. Each is refused at once with a warning naming it,
 * and the good files beside it still load.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readAgentFiles } from "../../plugins/agents/index";
import { loadSkills } from "../../plugins/skills/index";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-planted-")));
  made.push(dir);
  return dir;
}
const agent = (name: string) => `---\nname: ${name}\ndescription: d\n---\nDo it.\n`;
const skill = (name: string) => `---\nname: ${name}\ndescription: d\n---\nSteps.\n`;

describe("planted agent and skill files", () => {
  it("a FIFO and a 2 GB sparse file among the agent files are refused; the good one loads", async () => {
    const cwd = temp();
    const folder = join(cwd, ".ubiquity", "agents");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "good.md"), agent("good"));
    execFileSync("mkfifo", [join(folder, "fifo.md")]);
    writeFileSync(join(folder, "huge.md"), "");
    truncateSync(join(folder, "huge.md"), 2 * 1024 ** 3);
    const warnings: string[] = [];
    const files = await readAgentFiles(["project"], { cwd, home: temp() }, (m) => warnings.push(m));
    expect([...files.keys()]).toEqual(["good"]);
    expect(warnings.join("\n")).toContain(
      `${join(folder, "huge.md")}: it is 2147483648 bytes, over the 1048576-byte limit`,
    );
  });

  it("a FIFO and a 2 GB sparse file as SKILL.md are refused; the good skill loads", async () => {
    const cwd = temp();
    const root = join(cwd, ".ubiquity", "skills");
    mkdirSync(join(root, "good"), { recursive: true });
    mkdirSync(join(root, "trap"), { recursive: true });
    writeFileSync(join(root, "good", "SKILL.md"), skill("good"));
    execFileSync("mkfifo", [join(root, "trap", "SKILL.md")]);
    mkdirSync(join(root, "huge"));
    writeFileSync(join(root, "huge", "SKILL.md"), "");
    truncateSync(join(root, "huge", "SKILL.md"), 2 * 1024 ** 3);
    const warnings: string[] = [];
    const skills = await loadSkills({ skillSources: ["project"] }, { cwd, home: temp() }, (m) => warnings.push(m));
    expect(skills.map((s) => s.name)).toEqual(["good"]);
    expect(warnings.join("\n")).toContain(
      `skipped the skill ${join(root, "huge", "SKILL.md")}: it is 2147483648 bytes, over the 1048576-byte limit`,
    );
  });
});

describe("planted transcripts and task files", () => {
  it("a FIFO as a session transcript is refused at once, naming the file", async () => {
    const { readTranscriptFile } = await import("../../plugins/sessions/index");
    const dir = temp();
    const path = join(dir, "00000000-0000-4000-8000-000000000000.jsonl");
    execFileSync("mkfifo", [path]);
    await expect(readTranscriptFile(path)).rejects.toThrow(
      `the session transcript ${path} cannot be read: it is a FIFO (named pipe), not a regular file`,
    );
  });

  it("a FIFO among the task files is skipped with a report, without blocking", async () => {
    const { FileTodoStore } = await import("../../plugins/todos/store");
    const root = temp();
    const skipped: string[] = [];
    const store = new FileTodoStore(root, (file, why) => skipped.push(`${file}: ${why}`));
    const list = { project: "p", key: "k" };
    mkdirSync(store.dir(list), { recursive: true });
    execFileSync("mkfifo", [join(store.dir(list), "trap.json")]);
    await store.read(list);
    expect(skipped).toEqual([`${join(store.dir(list), "trap.json")}: it is a FIFO (named pipe), not a regular file`]);
  });
});
