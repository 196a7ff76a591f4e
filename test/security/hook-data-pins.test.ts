/**
 * A trusted hook that decides from data (red team r, left open): `scripts/guard.sh` approves when
 * `config/policy.json` says so. The script is pinned, the data was not: in acceptEdits the model
 * rewrote the policy with Write (no question: an ordinary file) and the hook then approved `touch
 * m`, which the mode asked about (the probe is `printf x > m` now: acceptEdits runs a plain
 * in-project touch, as Claude Code's does). An approval is a proof only on the inputs the user trusted: the
 * files and folders a hook's scripts name and do not only write are recorded with the folder's
 * trust and at the run's start; changed, the hook still runs (its deny and ask count) but its
 * approval does not. Through the built bin, real bwrap, marker files.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  digestsOf,
  findFilesToPin,
  readTrustStore,
  rememberTrust,
  scriptDataReferences,
  trustPinsFor,
} from "../../loader/index";
import { decideTrust, productPlugins } from "../../runner/trust";
import { type AttackProject, attackBench } from "./attack-bench";

const GUARD = [
  "#!/bin/sh",
  "cat > /dev/null",
  'echo "$(date) checked" >> logs/guard.log',
  "if grep -q approve config/policy.json; then",
  '  echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\'',
  "fi",
  "exit 0",
  "",
].join("\n");

const { attack, trustedAttack, project } = attackBench<{ policy: string }>({
  name: "hookdata",
  model: "openai:gpt-4.1",
  key: "sk-test-hook-data",
  fill: ({ cwd }, { policy }) => {
    mkdirSync(join(cwd, ".ubiquity"));
    mkdirSync(join(cwd, "scripts"));
    mkdirSync(join(cwd, "config"));
    mkdirSync(join(cwd, "logs"));
    writeFileSync(join(cwd, "scripts", "guard.sh"), GUARD);
    writeFileSync(join(cwd, "config", "policy.json"), policy);
    writeFileSync(join(cwd, "README.md"), "a project\n");
    writeFileSync(
      join(cwd, ".ubiquity", "settings.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sh scripts/guard.sh" }] }] },
      }),
    );
  },
});

const DENY = '{"mode": "deny"}\n';
const APPROVE = '{"mode": "approve"}\n';
// A write acceptEdits asks about: `touch m` was one until acceptEdits ran Claude Code's plain
// in-project mkdir/touch/cp (claude -p parity); a redirection still asks.
const touch = { name: "Bash", input: { command: "printf x > m" } };
/** The model rewriting the policy: read first, as Write requires of a file that exists. */
const rewrite = (p: AttackProject) => [
  { name: "Read", input: { file_path: join(p.cwd, "config", "policy.json") } },
  { name: "Write", input: { file_path: join(p.cwd, "config", "policy.json"), content: APPROVE } },
];
const flags = ["--permission-mode", "acceptEdits"];
const marked = (p: AttackProject) => existsSync(join(p.cwd, "m"));

describe("the data a hook's script reads by name", () => {
  it("is the files and folders its words name that are no code and that it does not only write", () => {
    const p = project({ policy: DENY });
    writeFileSync(
      join(p.cwd, "scripts", "lib.sh"),
      "STATE=state/seen.txt\necho 1 >> $STATE\ngrep -c 1 $STATE\ngrep -rq ok rules/\n",
    );
    mkdirSync(join(p.cwd, "rules"));
    mkdirSync(join(p.cwd, "state"));
    writeFileSync(join(p.cwd, "state", "seen.txt"), "");
    writeFileSync(join(p.cwd, "scripts", "guard.sh"), `${GUARD}. ./scripts/lib.sh\n`);
    expect(scriptDataReferences(join(p.cwd, "scripts", "guard.sh"), p.cwd)).toEqual(
      // The log is only appended to; the state file is written and read (named outside a redirection
      // too); a folder searched counts by its listing.
      [join(p.cwd, "config", "policy.json"), join(p.cwd, "rules"), join(p.cwd, "state", "seen.txt")],
    );
  });
});

describe("a hook's approval rests on the data the user trusted", () => {
  it("control: with the policy approving since it was trusted, the hook's approval runs `printf x > m`", async () => {
    const p = project({ policy: APPROVE });
    const { out } = await trustedAttack([touch], flags, p);
    expect(out[0]!.isError, out[0]!.content).toBe(false);
    expect(marked(p)).toBe(true);
  });

  it("the model's Write to the policy in acceptEdits takes the approval away: `printf x > m` asks, so it does not run", async () => {
    const p = project({ policy: DENY });
    const { out, run } = await trustedAttack([...rewrite(p), touch], flags, p);
    expect(out[1]!.isError, out[1]!.content).toBe(false);
    expect(readFileSync(join(p.cwd, "config", "policy.json"), "utf8")).toBe(APPROVE);
    expect(out[2]!.isError).toBe(true);
    expect(marked(p)).toBe(false);
    expect(run.stderr).toContain("config/policy.json, which its script reads, changed since it was trusted");
  });

  it("a policy changed after trust (by an earlier run) approves nothing in the next run until `ubiquity trust .`", async () => {
    const p = project({ policy: DENY });
    const first = await trustedAttack([touch], flags, p);
    expect(first.out[0]!.isError).toBe(true);
    writeFileSync(join(p.cwd, "config", "policy.json"), APPROVE);
    const second = await trustedAttack([touch], flags, p, false);
    expect(second.out[0]!.isError).toBe(true);
    expect(marked(p)).toBe(false);
    expect(second.run.stderr).toContain("changed since it was trusted");
    // Trusted again as it is now, the approval counts.
    const third = await trustedAttack([touch], flags, p);
    expect(third.out[0]!.isError, third.out[0]!.content).toBe(false);
    expect(marked(p)).toBe(true);
  });

  it("a folder trusted by the environment (UBIQUITY_TRUST=1) pins the data at the run's start", async () => {
    const p = project({ policy: DENY });
    const { out } = await attack([...rewrite(p), touch], flags, p);
    expect(out[1]!.isError, out[1]!.content).toBe(false);
    expect(out[2]!.isError).toBe(true);
    expect(marked(p)).toBe(false);
  });

  it("the hook's own log, which its script only appends to, changes nothing: it keeps approving", async () => {
    const p = project({ policy: APPROVE });
    const again = { name: "Bash", input: { command: "printf x > n" } };
    const { out } = await trustedAttack([touch, again], flags, p);
    expect(out.map((o) => o.isError)).toEqual([false, false]);
    expect(
      readFileSync(join(p.cwd, "logs", "guard.log"), "utf8")
        .split("\n")
        .filter(Boolean),
    ).toHaveLength(2);
    expect(existsSync(join(p.cwd, "n"))).toBe(true);
  });
});

describe("the trust question", () => {
  it("approving a changed settings file does not approve the changed policy beside it, which the question did not show", async () => {
    const p = project({ policy: DENY });
    const plugins = await productPlugins();
    const trust = () => rememberTrust(p.cwd, true, p.home, digestsOf(findFilesToPin(p.cwd, p.home, plugins)));
    trust();
    const policy = join(p.cwd, "config", "policy.json");
    const before = trustPinsFor(p.cwd, readTrustStore(p.home), p.home)!.pins.trustedData(policy);
    expect(before).toMatch(/^sha256:/);
    writeFileSync(policy, APPROVE);
    const settings = join(p.cwd, ".ubiquity", "settings.json");
    writeFileSync(settings, readFileSync(settings, "utf8").replace('"Bash"', '"Bash|Write"'));
    const asked: string[] = [];
    const decision = await decideTrust({ cwd: p.cwd, home: p.home, plugins, ask: async (q) => (asked.push(q), "t") });
    expect(asked[0]).toContain(".ubiquity/settings.json");
    expect(asked[0]).not.toContain("policy.json");
    expect(decision.unapproved).toEqual([]);
    expect(trustPinsFor(p.cwd, readTrustStore(p.home), p.home)!.pins.trustedData(policy)).toBe(before);
    // `ubiquity trust .`, which records everything as it is now, does.
    trust();
    expect(trustPinsFor(p.cwd, readTrustStore(p.home), p.home)!.pins.trustedData(policy)).not.toBe(before);
  });
});
