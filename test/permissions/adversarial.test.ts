/**
 * Runs the adversarial suite (adversarial-cases.ts) through decidePermission() with the real
 * built-in tools, in a real project folder full of real symlinks. A case fails when the verdict
 * differs from the expected one; a verdict listed as a failure is a security failure, and the
 * suite requires zero of those.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { CASES, type AdversarialCase } from "./adversarial-cases";

let dir = "";
let home = "";
let outside = "";
const tools = new Map(builtinTools().map((t) => [t.name, t] as const));

beforeAll(() => {
  const make = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dir = make("ubq-adv-project-");
  home = make("ubq-adv-home-");
  outside = make("ubq-adv-outside-");
  for (const d of ["src", "src_evil", "sub", "docs", "secrets", ".git/hooks", "keys"])
    mkdirSync(join(dir, d), { recursive: true });
  mkdirSync(`${dir}_evil`);
  mkdirSync(join(home, ".ssh"));
  const files: Record<string, string> = {
    ".env": "SECRET=1\n",
    "sub/.env": "SECRET=2\n",
    "secrets/key": "k\n",
    "src_evil/secret.txt": "s\n",
    "notes.txt": "n\n",
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE\n");
  const links: [string, string][] = [
    ["link-to-env", ".env"],
    ["docs/key-link", "../secrets/key"],
    ["src/passwd-link", "/etc/passwd"],
    ["ssh-link", join(home, ".ssh")],
    ["out-secret-link", "secrets/new.txt"],
    ["out-link", outside],
    ["hooks-link", ".git/hooks"],
    ["dangling", ".git/hooks/post-checkout"],
    ["git-link", ".git"],
  ];
  for (const [from, to] of links) symlinkSync(to, join(dir, from));
});

afterAll(() => {
  for (const d of [dir, `${dir}_evil`, home, outside]) if (d) rmSync(d, { recursive: true, force: true });
});

const fill = (text: string) => text.replaceAll("@DIR@", dir).replaceAll("@HOME@", home);

async function verdict(c: AdversarialCase) {
  const tool = c.tool ?? "Bash";
  const input =
    tool === "Bash"
      ? { command: fill(c.input) }
      : { file_path: fill(c.input), path: fill(c.input), pattern: "x", content: "x", old_string: "a", new_string: "b" };
  const rules = {
    allow: c.rules.allow?.map(fill),
    deny: c.rules.deny?.map(fill),
    ask: c.rules.ask?.map(fill),
  };
  return decidePermission({
    toolName: tool,
    input,
    rules,
    mode: c.mode ?? "default",
    cwd: dir,
    home,
    tool: tools.get(tool),
  });
}

describe("adversarial suite", () => {
  it.each(CASES.map((c, i) => [`#${i + 1} ${c.source}: ${c.title}`, c] as const))("%s", async (_name, c) => {
    const d = await verdict(c);
    expect(c.failure, "a security failure").not.toContain(d.behavior);
    expect({ behavior: d.behavior, message: d.message }).toMatchObject({ behavior: c.expect });
  });

  it("has at least 500 cases, each naming its rules and failure verdicts, with zero security failures", async () => {
    expect(CASES.length).toBeGreaterThanOrEqual(500);
    const failures: string[] = [];
    for (const c of CASES) {
      expect(c.failure.length, c.title).toBeGreaterThan(0);
      expect(c.failure).not.toContain(c.expect);
      const d = await verdict(c);
      if (c.failure.includes(d.behavior)) failures.push(`${c.title}: ${d.behavior} (${d.message})`);
    }
    expect(failures).toEqual([]);
  });

  it("Bash(git:*) never authorizes the four commands of the acceptance list, in any mode that consults allow rules", async () => {
    const attacks = [
      "git status && rm -rf /",
      "git status\nrm -rf /",
      "git log $(rm -rf /)",
      "git -c core.pager=sh log",
    ];
    for (const command of attacks) {
      for (const mode of ["default", "acceptEdits", "dontAsk"] as const) {
        const d = await decidePermission({
          toolName: "Bash",
          input: { command },
          rules: { allow: ["Bash(git:*)"] },
          mode,
          cwd: dir,
          home,
        });
        expect(d.behavior, `${mode}: ${command}`).not.toBe("allow");
      }
    }
  });
});
