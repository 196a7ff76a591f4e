/** `ubiquity sandbox check`, through the runner's command table. */
import { describe, expect, it } from "vitest";
import { main } from "../../runner/cli";
import { SKIP } from "./helpers";

async function cli(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

describe("ubiquity sandbox check", () => {
  it.skipIf(SKIP)("reports a working sandbox with its trials, exit 0", async () => {
    const run = await cli(["sandbox", "check"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("backend: bubblewrap");
    expect(run.stdout).toContain("ok   a write outside it is refused");
    expect(run.stdout).toMatch(/ok {3}Unix sockets cannot be made \(seccomp filter\): .*Operation not permitted/);
    expect(run.stdout).toContain("the sandbox works here");
    const json = JSON.parse((await cli(["sandbox", "check", "--json"])).stdout) as {
      ok: boolean;
      trials: { ok: boolean }[];
    };
    expect(json.ok).toBe(true);
    expect(json.trials.every((t) => t.ok)).toBe(true);
  });

  it("a wrong subcommand is a usage error", async () => {
    const run = await cli(["sandbox", "nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("ubiquity sandbox check");
    expect(run.stderr).toContain('(not "nope")');
    // A typo is named with what was meant.
    expect((await cli(["sandbox", "chek"])).stderr).toContain('(not "chek" (did you mean "check"?))');
  });
});
