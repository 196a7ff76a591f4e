/**
 * The project both red-team suites judge their cases in (redteam.test.ts, redteam2.test.ts): the
 * adversarial suite's files plus bare repositories with and without the .git suffix, a nested
 * repository, a venv, node_modules, `.env`, `~/.ssh` and links to `.git`, outside and `~/.ssh`.
 * `@DIR@` and `@HOME@` in a case stand for the project and home folders.
 * With REDTEAM_REPORT=<file> every verdict and message is written there as JSON, for counting.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { decidePermission, type PermissionDecision } from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import type { AdversarialCase } from "./adversarial-cases";

const FILES: Record<string, string> = {
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
const FOLDERS = [
  "src",
  "sub",
  "docs",
  "secrets",
  ".git/hooks",
  ".git/objects",
  ".git/refs/heads",
  "keys",
  "build",
  "sub/repo/.git/hooks",
  ".venv/lib/python3.12/site-packages",
  "node_modules/.bin",
  "vendor",
];

function bareRepo(path: string) {
  for (const d of ["hooks", "objects", "refs/heads"]) mkdirSync(join(path, d), { recursive: true });
  writeFileSync(join(path, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(path, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
}

/** Make the fixture before the suite and remove it after; `verdict` judges a case in it. */
export function redteamFixture(extra: { folders?: string[]; files?: Record<string, string> } = {}) {
  let dir = "";
  let home = "";
  let outside = "";
  const tools = new Map(builtinTools().map((t) => [t.name, t] as const));
  const seen: Record<string, unknown>[] = [];
  beforeAll(() => {
    const make = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    dir = make("ubq-rt-project-");
    home = make("ubq-rt-home-");
    outside = make("ubq-rt-outside-");
    for (const d of [...FOLDERS, ...(extra.folders ?? [])]) mkdirSync(join(dir, d), { recursive: true });
    bareRepo(join(dir, "vendor", "lib.git"));
    bareRepo(join(dir, "vendor", "plain"));
    mkdirSync(join(home, ".ssh"));
    for (const [f, text] of Object.entries({ ...FILES, ...extra.files })) writeFileSync(join(dir, f), text);
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE\n");
    writeFileSync(join(home, ".bashrc"), "# rc\n");
    for (const [from, to] of [
      ["git-link", ".git"],
      ["out-link", outside],
      ["ssh-link", join(home, ".ssh")],
    ] as const)
      symlinkSync(to, join(dir, from));
  });
  afterAll(() => {
    if (process.env.REDTEAM_REPORT) writeFileSync(process.env.REDTEAM_REPORT, JSON.stringify(seen, null, 1));
    for (const d of [dir, home, outside]) if (d) rmSync(d, { recursive: true, force: true });
  });
  const fill = (text: string) => text.replaceAll("@DIR@", dir).replaceAll("@HOME@", home);
  return {
    /** The verdict a run would reach for case `c` (number `i`), recorded for REDTEAM_REPORT. */
    async verdict(c: AdversarialCase, i: number): Promise<PermissionDecision> {
      const tool = c.tool ?? "Bash";
      const input =
        tool === "Bash"
          ? { command: fill(c.input) }
          : {
              file_path: fill(c.input),
              path: fill(c.input),
              pattern: "x",
              content: "x",
              old_string: "a",
              new_string: "b",
            };
      const rules = { allow: c.rules.allow?.map(fill), deny: c.rules.deny?.map(fill), ask: c.rules.ask?.map(fill) };
      const d = await decidePermission({
        toolName: tool,
        input,
        rules,
        mode: c.mode ?? "default",
        cwd: dir,
        home,
        tool: tools.get(tool),
      });
      seen.push({
        i: i + 1,
        source: c.source,
        title: c.title,
        input: c.input,
        rules: c.rules,
        mode: c.mode ?? "default",
        tool,
        expect: c.expect,
        failure: c.failure,
        got: d.behavior,
        message: d.message,
      });
      return d;
    },
    get dir() {
      return dir;
    },
    get home() {
      return home;
    },
  };
}

/** The verdict a case wants, and the verdicts that would be looser. */
export type Behavior = "allow" | "ask" | "deny";
export type Verdict = { expect: Behavior; failure: readonly Behavior[] };
/** An attack under allow rules or bypassPermissions: it must not be allowed. */
export const ASK: Verdict = { expect: "ask", failure: ["allow"] };
/** Under a matching deny rule: anything looser than deny is a failure. */
export const DENY: Verdict = { expect: "deny", failure: ["allow", "ask"] };
/** A benign control: a correct engine allows it (ask is a usefulness cost, deny a failure). */
export const OK: Verdict = { expect: "allow", failure: ["deny"] };

type Rules = AdversarialCase["rules"];
type Mode = NonNullable<AdversarialCase["mode"]>;

/** Many cases of one class, rules and mode; an item is an input, or [title, input]. */
export function group(
  source: string,
  rules: Rules,
  mode: Mode,
  verdict: Verdict,
  items: (string | [string, string])[],
  tool?: string,
): AdversarialCase[] {
  return items.map((item) => {
    const [title, input] = typeof item === "string" ? [JSON.stringify(item).slice(0, 120), item] : item;
    return { source, title, input, rules, mode, ...(tool ? { tool } : {}), ...verdict };
  });
}

/** Allow rules for programs: a bare name is `Bash(name:*)`. */
export const allow = (...programs: string[]): Rules => ({
  allow: programs.map((p) => (p.includes("(") ? p : `Bash(${p}:*)`)),
});
