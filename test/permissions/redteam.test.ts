/**
 * Runs the red-team suite (redteam-cases.ts) through decidePermission() with the real built-in
 * tools, in a real project folder (the fixture of adversarial.test.ts plus bare repositories with
 * and without the .git suffix, a nested repository, a venv and node_modules). A case fails when
 * its verdict is one of its `failure` verdicts (looser than a careful reviewer wants).
 *
 * With REDTEAM_REPORT=<file> every verdict and message is written there as JSON, for counting.
 */
import { describe, expect, it } from "vitest";
import { redteamFixture } from "./redteam-fixture";
import { CASES } from "./redteam-cases";

const fixture = redteamFixture();

describe("red-team suite (issue 35)", () => {
  it.each(CASES.map((c, i) => [`#${i + 1} ${c.source}: ${c.title}`, i, c] as const))("%s", async (_name, i, c) => {
    const d = await fixture.verdict(c, i);
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
