/**
 * TypeScript configs without jiti (issue 40): Node strips the types of a `.ts` config and of the
 * local modules it imports by file name, a module hook hands the JavaScript to Node's loader, and
 * the result is kept in the compiled-code folder under the source's digest. What jiti gave stays:
 * the config and its local modules run afresh at each load (once per load), an edit is seen, and
 * whatever Node cannot strip or refuses goes to jiti. Each case runs in a child process on the
 * built package, as the bin loads a config: the test runner imports modules its own way.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempProjects, tempProject } from "../helpers/project";

afterAll(removeTempProjects);

const sdk = pathToFileURL(join(import.meta.dirname, "..", "..", "dist", "sdk", "index.mjs")).href;

/** Loads the config of `dir` once per entry of `edits` (each a file → content written before that load); the maxTurns each load read and whether jiti was loaded. */
function loads(dir: string, cache: string, edits: Record<string, string>[]): { turns: unknown[]; jiti: boolean } {
  const program = `
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadConfig } from ${JSON.stringify(sdk)};
const turns = [];
for (const edit of ${JSON.stringify(edits)}) {
  for (const [file, content] of Object.entries(edit)) writeFileSync(${JSON.stringify(dir)} + "/" + file, content);
  turns.push((await loadConfig({ trust: true, cwd: ${JSON.stringify(dir)} })).config?.maxTurns);
}
const jiti = Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("/node_modules/jiti/"));
console.log(JSON.stringify({ turns, jiti }));`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", program], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, XDG_CACHE_HOME: cache, UBQ_LOAD_LOG: join(dir, "loads.log") },
    timeout: 120_000,
  });
  expect(child.status, child.stderr).toBe(0);
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { turns: unknown[]; jiti: boolean };
}

const stripped = (cache: string) => {
  const dir = join(cache, "ubiquity", "jiti");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith("strip-")) : [];
};
const logged = (dir: string) => readFileSync(join(dir, "loads.log"), "utf8").split("\n").filter(Boolean);
const log = (line: string) =>
  `import { appendFileSync } from "node:fs";\nappendFileSync(process.env.UBQ_LOAD_LOG as string, "${line}\\n");\n`;

describe("a TypeScript config Node strips of its types", () => {
  it("is kept under its source's digest, runs once per load, and is read again when edited", () => {
    const cache = tempProject({});
    const dir = tempProject({
      "ubiquity.config.ts": `${log("config")}const turns: number = 4;\nexport default { maxTurns: turns };\n`,
    });
    const edited = { "ubiquity.config.ts": "export default { maxTurns: 5 as number };\n" };
    expect(loads(dir, cache, [{}, {}, edited])).toEqual({ turns: [4, 4, 5], jiti: false });
    // Once per load, as jiti ran it: twice for the two loads, never twice in one.
    expect(logged(dir)).toEqual(["config", "config"]);
    expect(stripped(cache)).toHaveLength(2);
    // A later process reads the kept JavaScript (its content is what Node's stripper wrote).
    expect(readFileSync(join(cache, "ubiquity", "jiti", stripped(cache)[0]!), "utf8")).toMatch(/maxTurns/);
  });

  it("runs the local modules it imports by file name afresh at each load, each once per load", () => {
    const cache = tempProject({});
    const dir = tempProject({
      "ubiquity.config.ts": `import { a } from "./parts/a.ts";\nimport { b } from "./parts/b.mjs";\nexport default { maxTurns: a + b };\n`,
      "parts/a.ts": `${log("a")}import { base } from "./shared.ts";\nexport const a: number = base + 1;\n`,
      "parts/b.mjs": `import { appendFileSync } from "node:fs";\nappendFileSync(process.env.UBQ_LOAD_LOG, "b\\n");\nimport { base } from "./shared.ts";\nexport const b = base;\n`,
      "parts/shared.ts": `${log("shared")}export const base: number = 1;\n`,
    });
    const edited = { "parts/shared.ts": `${log("shared")}export const base: number = 10;\n` };
    expect(loads(dir, cache, [{}, edited])).toEqual({ turns: [3, 21], jiti: false });
    // shared.ts once per load although a.ts and b.mjs both import it.
    expect(logged(dir).sort()).toEqual(["a", "a", "b", "b", "shared", "shared"]);
    // The config, a.ts and both versions of shared.ts.
    expect(stripped(cache)).toHaveLength(4);
  });

  it("leaves to jiti what Node cannot strip or refuses: an enum, a type imported without `type`, an extensionless import", () => {
    const cache = tempProject({});
    const cases: [Record<string, string>, number][] = [
      [{ "ubiquity.config.ts": "enum T { A = 6 }\nexport default { maxTurns: T.A };\n" }, 6],
      [
        {
          "ubiquity.config.ts":
            'import { UbiquityConfig } from "ubiquity";\nconst c: UbiquityConfig = { maxTurns: 8 };\nexport default c;\n',
        },
        8,
      ],
      [
        {
          "ubiquity.config.ts": 'import { n } from "./n";\nexport default { maxTurns: n };\n',
          "n.ts": "export const n: number = 9;\n",
        },
        9,
      ],
    ];
    for (const [files, turns] of cases) {
      const dir = tempProject(files, { packageJson: { name: "p", private: true } });
      expect(loads(dir, cache, [{}])).toEqual({ turns: [turns], jiti: true });
    }
    // Only the config Node refused after stripping was stripped: the enum failed to, the extensionless import was never tried.
    expect(stripped(cache)).toHaveLength(1);
  });
});
