/**
 * Failing closed must not make the engine useless (issue 35 item 6): real commands from public
 * build scripts, CI files and agent runs, judged in a realistic project. With bypassPermissions
 * and the sandbox on, at least 99% of them run without a prompt. The shares in the other modes and
 * under the README's rules are figures, printed by `npm run bench -- permissions`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decidePermission, type DecidePermissionInput } from "ubiquity/plugins/permissions";
import {
  benignCorpusCandidates,
  loadBenignCorpus,
  loadNpmScriptsCorpus,
  makeProjectFixture,
  type BenignEntry,
  type ProjectFixture,
} from "./corpus/corpus";
import { existsSync } from "node:fs";

// The corpus is public material and is not committed (SOURCES.md says where each line comes
// from): it is read from the shared folder beside the repository, or a local copy. Where it is
// not present the suite says so and skips.
const present = benignCorpusCandidates().some((p) => existsSync(p));
if (!present)
  console.warn(
    `skipping the benign corpus: not found at ${benignCorpusCandidates().join(", ")} (see test/permissions/corpus/SOURCES.md)`,
  );

const PERMISSIVE = new Set(["MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "MPL-2.0", "Unlicense"]);

describe.skipIf(!present)("the benign corpus", () => {
  let corpus: BenignEntry[] = [];
  let fixture: ProjectFixture;
  beforeAll(() => {
    corpus = loadBenignCorpus();
    fixture = makeProjectFixture();
  });
  afterAll(() => fixture?.remove());

  it("has at least 1,000 distinct real commands, each with its source and a permissive licence", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(corpus.map((e) => e.command)).size).toBe(corpus.length);
    for (const e of corpus) {
      expect(e.command.trim(), e.source).not.toBe("");
      expect(e.source).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}:\S.*$/);
      for (const licence of e.licence.split(" OR ")) expect(PERMISSIVE, `${e.source}: ${e.licence}`).toContain(licence);
    }
    expect(new Set(corpus.map((e) => e.source.split("@")[0])).size).toBeGreaterThanOrEqual(30);
  });

  it("bypassPermissions with the sandbox on runs at least 99% of it without a prompt", async () => {
    const notAllowed: string[] = [];
    for (const { command } of corpus) {
      // Not an object literal at the call, so this compiles before DecidePermissionInput has `sandbox`.
      const request = {
        toolName: "Bash",
        input: { command },
        mode: "bypassPermissions" as const,
        cwd: fixture.cwd,
        home: fixture.home,
        sandbox: true,
      };
      const verdict = await decidePermission(request satisfies DecidePermissionInput);
      if (verdict.behavior !== "allow")
        notAllowed.push(`${verdict.behavior}: ${JSON.stringify(command)} — ${verdict.message}`);
    }
    const share = 1 - notAllowed.length / corpus.length;
    expect(
      share,
      `${notAllowed.length} of ${corpus.length} not allowed, e.g.\n${notAllowed.slice(0, 40).join("\n")}`,
    ).toBeGreaterThanOrEqual(0.99);
  });
});

// The corpus every clean clone has: the scripts of the permissively licensed packages in
// node_modules (built at test time from the lockfile's packages; nothing third-party is committed).
describe("the npm-scripts corpus", () => {
  let corpus: BenignEntry[] = [];
  let fixture: ProjectFixture;
  beforeAll(() => {
    corpus = loadNpmScriptsCorpus();
    fixture = makeProjectFixture();
  });
  afterAll(() => fixture?.remove());

  it("has at least 1,000 distinct real commands from at least 100 packages, each with its package and licence", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(corpus.map((e) => e.command)).size).toBe(corpus.length);
    expect(new Set(corpus.map((e) => e.source.replace(/@[^@]*$/, ""))).size).toBeGreaterThanOrEqual(100);
    for (const e of corpus) expect(e.source).toMatch(/^npm:\S+@\S+$/);
  });

  it("bypassPermissions with the sandbox on runs at least 99% of it without a prompt", async () => {
    const notAllowed: string[] = [];
    for (const { command } of corpus) {
      const verdict = await decidePermission({
        toolName: "Bash",
        input: { command },
        mode: "bypassPermissions",
        cwd: fixture.cwd,
        home: fixture.home,
        sandbox: true,
      });
      if (verdict.behavior !== "allow")
        notAllowed.push(`${verdict.behavior}: ${JSON.stringify(command)} — ${verdict.message}`);
    }
    expect(
      1 - notAllowed.length / corpus.length,
      `${notAllowed.length} of ${corpus.length} not allowed, e.g.\n${notAllowed.slice(0, 40).join("\n")}`,
    ).toBeGreaterThanOrEqual(0.99);
  });
});
