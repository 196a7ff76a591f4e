/**
 * The benign corpus (issue 35 item 6): real shell commands that people and coding agents run,
 * taken unmodified from public, permissively licensed repositories (CI workflow `run:` steps,
 * Makefile recipes, package.json scripts, Dockerfile RUN lines, contributing guides, agent
 * demonstrations). One JSON object a line: { command, source: "owner/repo@commit:path", licence }.
 * SOURCES.md beside this file lists every repository, commit and licence.
 *
 * Where the file lives: `UBQ_BENIGN_CORPUS` when set, else `benign.jsonl` beside this file, else
 * `corpus/benign.jsonl` in the shared folder beside the repository (`../shared/`).
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface BenignEntry {
  command: string;
  /** owner/repo@<40-hex commit>:path */
  source: string;
  /** SPDX identifier, or several joined with " OR " */
  licence: string;
}

const here = dirname(fileURLToPath(import.meta.url));

/** The places the corpus is looked for, in order. */
export function benignCorpusCandidates(): string[] {
  const fromEnv = process.env.UBQ_BENIGN_CORPUS;
  return [
    ...(fromEnv ? [resolve(fromEnv)] : []),
    join(here, "benign.jsonl"),
    resolve(here, "../../../../shared/corpus/benign.jsonl"),
  ];
}

/** The corpus file's path; throws naming every place looked at when there is none. */
export function benignCorpusPath(): string {
  const candidates = benignCorpusCandidates();
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the benign corpus is missing: looked for ${candidates.join(", ")}`);
  return found;
}

/** Every entry of the corpus, in file order. A line that is not an entry throws, naming the line. */
export function loadBenignCorpus(path = benignCorpusPath()): BenignEntry[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      const entry = JSON.parse(line) as Partial<BenignEntry>;
      if (typeof entry.command !== "string" || typeof entry.source !== "string" || typeof entry.licence !== "string") {
        throw new Error(`${path}:${i + 1}: not a { command, source, licence } entry`);
      }
      return entry as BenignEntry;
    });
}

/** A realistic project to judge the corpus in: package.json, sources, tests, docs, a Makefile, a git repository. */
export interface ProjectFixture {
  cwd: string;
  home: string;
  remove(): void;
}

export function makeProjectFixture(): ProjectFixture {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ubq-benign-")));
  const cwd = join(root, "project");
  const home = join(root, "home");
  const files: Record<string, string> = {
    "package.json": JSON.stringify(
      {
        name: "fixture",
        version: "1.0.0",
        type: "module",
        scripts: { build: "tsc -p .", test: "vitest run", lint: "eslint ." },
      },
      null,
      2,
    ),
    "package-lock.json": "{}\n",
    "tsconfig.json": "{}\n",
    "README.md": "# fixture\n",
    Makefile: "test:\n\tnpm test\n",
    "src/index.ts": "export const x = 1;\n",
    "src/util.ts": "export const y = 2;\n",
    "test/index.test.ts": "import { x } from '../src/index';\n",
    "docs/index.md": "# docs\n",
    "scripts/build.sh": "#!/bin/sh\necho build\n",
    ".gitignore": "node_modules/\ndist/\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, rel)), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  }
  mkdirSync(home, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd });
  return { cwd, home, remove: () => rmSync(root, { recursive: true, force: true }) };
}

// Licences under which a package's scripts may be quoted here as test data.
const PERMISSIVE = /^(MIT|ISC|Apache-2\.0|BSD-2-Clause|BSD-3-Clause|MPL-2\.0|BlueOak-1\.0\.0|CC0-1\.0|0BSD|Unlicense)$/;

/**
 * A second corpus, built where the tests run and never committed: the `scripts` of every
 * permissively licensed package installed in this repository's node_modules — real commands that
 * public projects run, reproducible from the lockfile on any clean clone after `npm install`.
 * Source: `npm:<name>@<version>`.
 */
export function loadNpmScriptsCorpus(root = join(here, "../../..", "node_modules")): BenignEntry[] {
  const seen = new Map<string, BenignEntry>();
  const visit = (folder: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const dir = join(folder, name);
      if (name.startsWith("@")) {
        visit(dir, depth);
        continue;
      }
      const manifest = join(dir, "package.json");
      if (existsSync(manifest)) {
        try {
          const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
            name?: string;
            version?: string;
            license?: unknown;
            scripts?: Record<string, unknown>;
          };
          const licence = typeof pkg.license === "string" ? pkg.license : "";
          if (PERMISSIVE.test(licence)) {
            for (const command of Object.values(pkg.scripts ?? {})) {
              if (typeof command === "string" && command.trim() !== "" && !seen.has(command))
                seen.set(command, { command, source: `npm:${pkg.name}@${pkg.version}`, licence });
            }
          }
        } catch {
          // not a package manifest we can read: skipped
        }
      }
      if (depth < 3) visit(join(dir, "node_modules"), depth + 1);
    }
  };
  visit(root, 0);
  return [...seen.values()];
}
