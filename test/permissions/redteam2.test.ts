/**
 * Runs the second red-team suite (redteam2-cases.ts) through decidePermission() with the real built-in
 * tools, in a real project folder (the fixture of adversarial.test.ts plus bare repositories with
 * and without the .git suffix, a nested repository, a venv and node_modules). A case fails when
 * its verdict is one of its `failure` verdicts (looser than a careful reviewer wants).
 *
 * With REDTEAM_REPORT=<file> every verdict and message is written there as JSON, for counting.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import type { AdversarialCase } from "./adversarial-cases";
import { CASES } from "./redteam2-cases";

/**
 * Judgement calls: cases the red team marked looser where the engine's verdict is the design.
 * Each stays tested at its verdict, so a change to it is a decision, not an accident.
 */
const DECIDED: Record<string, { behavior: "allow" | "ask" | "deny"; why: string }> = {
  "git checkout FETCH_HEAD -- .": { behavior: "allow", why: "a git rule covers git rewriting the work tree from its own history (checkout, reset, pull); config files it brings are the trust digest's to catch (issue 36)" },
  "git restore --source=FETCH_HEAD -- .": { behavior: "allow", why: "as git checkout: the work tree from the repository's history, under a rule naming git" },
  "echo 'on: push' > .github/workflows/x.yml": { behavior: "allow", why: "CI workflows run in CI, not on this machine; editing them is ordinary project work" },
  "mkdir -p z/objects z/refs && echo 'ref: refs/heads/main' > z/HEAD && echo '[core] fsmonitor = touch PWNED' > z/config": {
    behavior: "allow",
    why: "bypassPermissions inside the permitted folders: plain files written in the project; a later git -C into them is refused (it is another repository)",
  },
};

let dir = "";
let home = "";
let outside = "";
const tools = new Map(builtinTools().map((t) => [t.name, t] as const));
const seen: { i: number; source: string; title: string; input: string; rules: AdversarialCase["rules"]; mode: string; tool: string; expect: string; failure: readonly string[]; got: string; message: string }[] = [];

function bareRepo(path: string) {
  for (const d of ["hooks", "objects", "refs/heads"]) mkdirSync(join(path, d), { recursive: true });
  writeFileSync(join(path, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(path, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
}

beforeAll(() => {
  const make = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dir = make("ubq-rt-project-");
  home = make("ubq-rt-home-");
  outside = make("ubq-rt-outside-");
  for (const d of ["src", "sub", "docs", "secrets", ".git/hooks", ".git/objects", ".git/refs/heads", "keys", "build", "sub/repo/.git/hooks", ".venv/lib/python3.12/site-packages", "node_modules/.bin", "vendor", "pkg", "hooks"]) {
    mkdirSync(join(dir, d), { recursive: true });
  }
  bareRepo(join(dir, "vendor", "lib.git"));
  bareRepo(join(dir, "vendor", "plain"));
  mkdirSync(join(home, ".ssh"));
  const files: Record<string, string> = {
    ".env": "SECRET=1\n",
    "sub/.env": "SECRET=2\n",
    "secrets/key": "k\n",
    "notes.txt": "n\n",
    "a.txt": "a\n",
    "count.txt": "a[$(id)]\n",
    "src/x.ts": "export {};\n",
    // Files the second round's attacks move, copy or back up onto sensitive names.
    "pre-commit": "#!/bin/sh\nid\n",
    "rc": "id\n",
    "config": "[core]\n\tfsmonitor = id\n",
    "pkg/package.json": "{}\n",
    "hooks/pre-commit": "#!/bin/sh\nid\n",
    "list.txt": "package.json\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n\tbare = false\n",
    "sub/repo/.git/HEAD": "ref: refs/heads/main\n",
    "sub/repo/.git/config": "[core]\n",
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE\n");
  writeFileSync(join(home, ".bashrc"), "# rc\n");
  for (const [from, to] of [["git-link", ".git"], ["out-link", outside], ["ssh-link", join(home, ".ssh")]] as const) symlinkSync(to, join(dir, from));
});

afterAll(() => {
  if (process.env.REDTEAM_REPORT) writeFileSync(process.env.REDTEAM_REPORT, JSON.stringify(seen, null, 1));
  for (const d of [dir, home, outside]) if (d) rmSync(d, { recursive: true, force: true });
});

const fill = (text: string) => text.replaceAll("@DIR@", dir).replaceAll("@HOME@", home);

async function verdict(c: AdversarialCase) {
  const tool = c.tool ?? "Bash";
  const input = tool === "Bash" ? { command: fill(c.input) } : { file_path: fill(c.input), path: fill(c.input), pattern: "x", content: "x", old_string: "a", new_string: "b" };
  const rules = { allow: c.rules.allow?.map(fill), deny: c.rules.deny?.map(fill), ask: c.rules.ask?.map(fill) };
  try {
    return await decidePermission({ toolName: tool, input, rules, mode: c.mode ?? "default", cwd: dir, home, tool: tools.get(tool) });
  } catch (error) {
    // A run denies when the permission check throws (src/funnel.ts); record it as that deny, and
    // let the test below report the throw itself.
    return { behavior: "deny" as const, message: `decidePermission threw, which a run turns into a deny: ${String(error).slice(0, 200)}` };
  }
}

describe("second red-team suite (issue 35)", () => {
  it.each(CASES.map((c, i) => [`#${i + 1} ${c.source}: ${c.title}`, i, c] as const))("%s", async (_name, i, c) => {
    const d = await verdict(c);
    seen.push({ i: i + 1, source: c.source, title: c.title, input: c.input, rules: c.rules, mode: c.mode ?? "default", tool: c.tool ?? "Bash", expect: c.expect, failure: c.failure, got: d.behavior, message: d.message });
    const decided = DECIDED[c.input];
    if (decided) expect(d.behavior, `${c.input}: ${decided.why}`).toBe(decided.behavior);
    else expect(c.failure, `${c.input} → ${d.behavior}: ${d.message}`).not.toContain(d.behavior);
  });

  // decide() promises never to throw ("a failing check denies"); a NUL in a path reaches lstatSync in match-path.ts.
  it("decidePermission does not throw on a path holding a NUL ($'.env\\0')", async () => {
    const input = { command: "cat $'.env\\0'" };
    await expect(decidePermission({ toolName: "Bash", input, rules: { deny: ["Read(.env)"] }, mode: "bypassPermissions", cwd: dir, home, tool: tools.get("Bash") })).resolves.toBeDefined();
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
