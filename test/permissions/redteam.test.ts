/**
 * Runs the red-team suite (redteam-cases.ts) through decidePermission() with the real built-in
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
import { CASES } from "./redteam-cases";

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
  for (const d of ["src", "sub", "docs", "secrets", ".git/hooks", ".git/objects", ".git/refs/heads", "keys", "build", "sub/repo/.git/hooks", ".venv/lib/python3.12/site-packages", "node_modules/.bin", "vendor"]) {
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
  return decidePermission({ toolName: tool, input, rules, mode: c.mode ?? "default", cwd: dir, home, tool: tools.get(tool) });
}

describe("red-team suite (issue 35)", () => {
  it.each(CASES.map((c, i) => [`#${i + 1} ${c.source}: ${c.title}`, i, c] as const))("%s", async (_name, i, c) => {
    const d = await verdict(c);
    seen.push({ i: i + 1, source: c.source, title: c.title, input: c.input, rules: c.rules, mode: c.mode ?? "default", tool: c.tool ?? "Bash", expect: c.expect, failure: c.failure, got: d.behavior, message: d.message });
    expect(c.failure, `${c.input} → ${d.behavior}: ${d.message}`).not.toContain(d.behavior);
  });

  it("has at least 200 attacks and 40 benign controls, each naming failure verdicts that exclude the expected one", () => {
    const benign = CASES.filter((c) => c.source === "BENIGN control");
    expect(CASES.length - benign.length).toBeGreaterThanOrEqual(200);
    expect(benign.length).toBeGreaterThanOrEqual(40);
    for (const c of CASES) {
      expect(c.failure.length, c.title).toBeGreaterThan(0);
      expect(c.failure).not.toContain(c.expect);
    }
  });
});
