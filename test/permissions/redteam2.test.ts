/**
 * Runs the second red-team suite (redteam2-cases.ts) through decidePermission() with the real built-in
 * tools, in a real project folder (the fixture of adversarial.test.ts plus bare repositories with
 * and without the .git suffix, a nested repository, a venv and node_modules). A case fails when
 * its verdict is one of its `failure` verdicts (looser than a careful reviewer wants).
 *
 * With REDTEAM_REPORT=<file> every verdict and message is written there as JSON, for counting.
 */
import { describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import { redteamFixture } from "./redteam-fixture";
import { CASES } from "./redteam2-cases";

/**
 * Judgement calls: cases the red team marked looser where the engine's verdict is the design.
 * Each stays tested at its verdict, so a change to it is a decision, not an accident.
 */
const DECIDED: Record<string, { behavior: "allow" | "ask" | "deny"; why: string }> = {
  // Issue 36 let a git rule cover these (the trust digest catches Ubiquity's own config files a
  // checkout brings). Red team r (R5): the digest does not see .npmrc, .husky/, .envrc or
  // .vscode/tasks.json, which npm, git, direnv and the editor run: without the sandbox (which keeps
  // them read-only) a checkout of another commit is a write to them that cannot be ruled out.
  "git checkout FETCH_HEAD -- .": {
    behavior: "ask",
    why: "without the sandbox, git checkout of another commit may write .npmrc or .husky/ hooks, which run outside Ubiquity's trust (red team r, R5)",
  },
  "git restore --source=FETCH_HEAD -- .": {
    behavior: "ask",
    why: "as git checkout: without the sandbox the files another commit holds may be sensitive ones (red team r, R5)",
  },
  "echo 'on: push' > .github/workflows/x.yml": {
    behavior: "allow",
    why: "CI workflows run in CI, not on this machine; editing them is ordinary project work",
  },
  "mkdir -p z/objects z/refs && echo 'ref: refs/heads/main' > z/HEAD && echo '[core] fsmonitor = touch PWNED' > z/config":
    {
      behavior: "allow",
      why: "bypassPermissions inside the permitted folders: plain files written in the project; a later git -C into them is refused (it is another repository)",
    },
};

// The red-team fixture plus the files this round's attacks move, copy or back up onto sensitive names.
const fixture = redteamFixture({
  folders: ["pkg", "hooks"],
  files: {
    "pre-commit": "#!/bin/sh\nid\n",
    rc: "id\n",
    config: "[core]\n\tfsmonitor = id\n",
    "pkg/package.json": "{}\n",
    "hooks/pre-commit": "#!/bin/sh\nid\n",
    "list.txt": "package.json\n",
  },
});

describe("second red-team suite (issue 35)", () => {
  it.each(CASES.map((c, i) => [`#${i + 1} ${c.source}: ${c.title}`, i, c] as const))("%s", async (_name, i, c) => {
    const d = await fixture.verdict(c, i);
    const decided = DECIDED[c.input];
    if (decided) expect(d.behavior, `${c.input}: ${decided.why}`).toBe(decided.behavior);
    else expect(c.failure, `${c.input} → ${d.behavior}: ${d.message}`).not.toContain(d.behavior);
  });

  // decide() promises never to throw ("a failing check denies"); a NUL in a path reaches lstatSync in match-path.ts.
  it("decidePermission does not throw on a path holding a NUL ($'.env\\0')", async () => {
    const input = { command: "cat $'.env\\0'" };
    await expect(
      decidePermission({
        toolName: "Bash",
        input,
        rules: { deny: ["Read(.env)"] },
        mode: "bypassPermissions",
        cwd: fixture.dir,
        home: fixture.home,
      }),
    ).resolves.toMatchObject({ behavior: "deny" });
  });

  it("has at least 150 attacks and 30 benign controls, each naming failure verdicts that exclude the expected one", () => {
    const benign = CASES.filter((c) => c.source === "BENIGN control");
    expect(CASES.length - benign.length).toBeGreaterThanOrEqual(150);
    expect(benign.length).toBeGreaterThanOrEqual(30);
    for (const c of CASES) {
      expect(c.failure.length, c.title).toBeGreaterThan(0);
      expect(c.failure).not.toContain(c.expect);
    }
  });
});
