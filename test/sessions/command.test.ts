import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { cli, tempDirs } from "./helpers";
import { BACKENDS, backendMissing, useBackend, type BackendFixture } from "./backends";

const temp = tempDirs();

describe.each(BACKENDS)("ubiquity sessions (%s store)", (kind) => {
  const fresh = useBackend(kind);
  if (backendMissing(kind)) it.skip(`skipped: ${backendMissing(kind)}`, () => {});
  else tests(fresh);
});

function tests(fresh: () => Promise<BackendFixture>) {
  async function seed() {
    const b = await fresh();
    const cwd = temp("ubq-project-");
    const model = scriptedModel([
      { text: "reading", toolCalls: [{ toolName: "Nope", input: { path: "a.txt" }, id: "c1" }] },
      "all done",
    ]);
    const messages = await collect(
      summon("explain the code", { model, presets: [], ...b.options, plugins: b.plugins(), cwd }),
    );
    return { b, flags: b.cli.flags, cwd, id: resultOf(messages).sessionId };
  }

  it("list shows the cwd's sessions (newest first), --all every project's, --json the infos", async () => {
    const { flags, cwd, id } = await seed();
    const text = await cli(["sessions", "list", ...flags, "--cwd", cwd]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +6 msgs  explain the code\\n$`));
    const other = await cli(["sessions", "list", ...flags, "--cwd", temp("ubq-empty-")]);
    expect(other.stdout).toBe("No stored sessions.\n");
    const all = await cli(["sessions", "list", "--all", "--json", ...flags, "--cwd", temp("ubq-empty-")]);
    expect(JSON.parse(all.stdout)).toMatchObject([
      { sessionId: id, summary: "explain the code", messageCount: 6, cwd },
    ]);
  });

  it("show renders the conversation readably", async () => {
    const { flags, id } = await seed();
    const { code, stdout } = await cli(["sessions", "show", id, ...flags]);
    expect(code).toBe(0);
    expect(stdout).toContain(`Session ${id}`);
    expect(stdout).toContain("> explain the code");
    expect(stdout).toContain('  → Nope(path: "a.txt")  error: Unknown tool "Nope"');
    expect(stdout).toContain("all done");
    expect(stdout).toContain("── done · 2 turns");
  });

  it("fork prints the new id; the copy is a session of its own", async () => {
    const { b, flags, id } = await seed();
    const { code, stdout, stderr } = await cli(["sessions", "fork", id, ...flags]);
    expect(code).toBe(0);
    const forked = stdout.trim();
    expect(forked).toMatch(/^[0-9a-f-]{36}$/);
    expect(stderr).toContain(`--resume ${forked}`);
    const copy = await b.store.get(forked);
    expect(copy!.records).toHaveLength(6);
  });

  it("reads the store from the config file when no --session-dir is given", async () => {
    const { b, cwd, id } = await seed();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${cwd}/.ubiquityrc.json`, JSON.stringify(b.cli.config));
    const { code, stdout } = await cli(["sessions", "list", "--cwd", cwd]);
    expect(code).toBe(0);
    expect(stdout).toContain(id);
  });

  it("an unknown id (exit 1), a missing id or subcommand (a usage error: exit 2), with an error saying what to do", async () => {
    const { flags } = await seed();
    const unknown = await cli(["sessions", "show", "ghost", ...flags]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toMatch(/^error: No stored session with id "ghost".*ubiquity sessions list/);
    expect(await cli(["sessions", "fork", ...flags])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/needs a session id/),
    });
    expect(await cli(["sessions", ...flags])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/needs a subcommand: use list \| show <id> \| fork <id>/),
    });
    expect(await cli(["sessions", "prune", ...flags])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/"prune" is not a subcommand/),
    });
    expect(await cli(["sessions", "list", "--limit", "0", ...flags])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--limit must be a positive integer/),
    });
  });
}
