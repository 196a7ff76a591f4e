/**
 * The engine measured against bash: 2,000 generated strings run in real bash inside bubblewrap
 * (oracle.ts), and every program bash started or path it wrote must be one the engine saw —
 * or the engine's verdict must not be `allow`. Needs bubblewrap, strace and bash; without them
 * the suite skips with the command that installs them (CI installs them, so there it never skips).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../../../plugins/permissions/shell/parser";
import { compare } from "./compare";
import { formatDisagreement, runHarness } from "./harness";
import { makeFixture, observe, oracleUnavailable, type Fixture } from "./oracle";
import { parseTrace } from "./trace";

const missing = oracleUnavailable();
if (missing) console.warn(`skipping the differential harness: ${missing}`);
// CI must never skip it quietly.
if (missing && process.env.CI) throw new Error(`CI runs the differential harness: ${missing}`);

const COUNT = 2000;
const SEED = 16;

describe.skipIf(missing !== undefined)("differential: the engine against bash", () => {
  let fixture: Fixture;
  beforeAll(async () => {
    await loadShellParser();
    fixture = makeFixture();
  });
  afterAll(() => fixture?.dispose());

  it("the oracle sees what bash runs and writes (argv exact, absolute paths, real wrappers followed)", async () => {
    const [a, b, c] = await observe(
      [
        "r\\\nm -rf x; echo hi > o.txt",
        "env -i rm y; /usr/bin/git st",
        "cd sub && echo >> ../c.txt; echo a | xargs touch",
      ],
      fixture,
    );
    expect(a!.execs).toEqual([{ path: "/usr/local/bin/rm", argv: ["rm", "-rf", "x"] }]);
    expect(a!.writes).toEqual([`${fixture.workspace}/o.txt`]);
    expect(b!.execs.map((e) => e.argv)).toEqual([
      ["env", "-i", "rm", "y"],
      ["rm", "y"],
      ["/usr/bin/git", "st"],
    ]);
    expect(c!.execs.map((e) => e.argv)).toEqual([
      ["xargs", "touch"],
      ["touch", "a"],
    ]);
    expect(c!.writes).toEqual([`${fixture.workspace}/c.txt`]);
  });

  it("a miss the engine would allow is reported as a failure (the comparison can fail)", async () => {
    // As if bash had also run `rm` for `git status`: the engine allows `git status` under Bash(*).
    const fake = {
      execs: [
        { path: "/usr/local/bin/git", argv: ["git", "status"] },
        { path: "/usr/local/bin/rm", argv: ["rm", "x"] },
      ],
      writes: [],
      status: 0,
    };
    const d = await compare("git status", fake, { cwd: fixture.workspace, home: fixture.home });
    expect(d?.unseenExecs).toEqual(["rm x"]);
    expect(d?.allowed).toBe(true);
    const unseenWrite = await compare(
      "git status",
      { execs: fake.execs.slice(0, 1), writes: ["/etc/passwd"], status: 0 },
      { cwd: fixture.workspace, home: fixture.home },
    );
    expect(unseenWrite?.allowed).toBe(true);
  });

  it("reads strace's hex-escaped, interleaved output", () => {
    const trace = [
      '10 execve("\\x2f\\x62\\x69\\x6e\\x2f\\x62\\x61\\x73\\x68", ["\\x62\\x61\\x73\\x68"], 0x1 /* 1 vars */) = 0',
      '11 execve("\\x2f\\x72\\x6d", ["\\x72\\x6d", "\\x61\\x20\\x62"], 0x1 /* 1 vars */ <unfinished ...>',
      '10 openat(AT_FDCWD<\\x2f\\x77>, "\\x6f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only file system)',
      "11 <... execve resumed>) = 0",
    ].join("\n");
    expect(parseTrace(trace, 0)).toEqual({
      execs: [{ path: "/rm", argv: ["rm", "a b"] }],
      writes: ["/w/o"],
      status: 0,
    });
  });

  it(`${COUNT} generated strings (seed ${SEED}): no disagreement ends in allow`, async () => {
    const report = await runHarness(COUNT, SEED, { shrink: false });
    expect(report.completed).toBeGreaterThan(COUNT * 0.95);
    // The generator must reach the classes that matter: far from every string agrees trivially.
    expect(report.disagreements.length).toBeGreaterThan(100);
    expect(report.failures.map(formatDisagreement)).toEqual([]);
  }, 300_000);
});
