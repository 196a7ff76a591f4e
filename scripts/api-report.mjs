/**
 * The API reports (api/**.api.md): one per public entry of package.json `exports` (`ubiquity`,
 * `ubiquity/plugin`, `ubiquity/testing`, `ubiquity/harness`, each `ubiquity/plugins/<name>` and
 * `ubiquity/presets/<name>`), made by API Extractor from the built declarations (dist/types, so
 * run `npm run build:types` first; `npm run build` does).
 *
 *   node scripts/api-report.mjs            check: fails when a report differs from the committed one,
 *                                          when one is missing, or when a committed one has no entry
 *   node scripts/api-report.mjs --update   write the reports (npm run api:update builds the types first)
 *
 * A changed surface is therefore a reviewed diff under api/. API Extractor, rather than a hand-made
 * lister: it prints each export's full declaration (signatures, members) with the types it reaches
 * but the entry does not export marked `ae-forgotten-export`, the format TypeScript libraries
 * (Rushstack, the TypeScript team's own tools) review; one compiler program serves every entry.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const update = process.argv.includes("--update");
const apiDir = join(root, "api");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Each public entry: its specifier, its declaration file, and its report (relative to api/). */
function entries() {
  const out = [];
  for (const [key, target] of Object.entries(pkg.exports)) {
    if (target === null || typeof target !== "object" || !target.types) continue;
    const specifier = `ubiquity${key.slice(1)}`;
    if (!key.includes("*")) {
      const report = key === "." ? "ubiquity" : specifier.replace(/\//g, "-");
      out.push({ specifier, types: join(root, target.types), report });
      continue;
    }
    // A wildcard subpath: one entry per declaration file it matches (its folder's files).
    const [before, after] = target.types.split("*");
    const folder = join(root, before);
    if (!existsSync(folder))
      throw new Error(`api-report: ${relative(root, folder)} is missing; run npm run build:types`);
    const group = key.slice(2, key.indexOf("/*"));
    for (const name of readdirSync(folder).sort()) {
      const types = join(root, `${before}${name.replace(/\.d\.ts$/, "")}${after}`);
      // `./plugins/_kits/*` is null in the exports: the kits are no entry.
      if (!existsSync(types) || name.startsWith("_")) continue;
      out.push({
        specifier: `ubiquity/${group}/${name.replace(/\.d\.ts$/, "")}`,
        types,
        report: `${group}/${name.replace(/\.d\.ts$/, "")}`,
      });
    }
  }
  return out;
}

const list = entries();
for (const e of list)
  if (!existsSync(e.types))
    throw new Error(`api-report: ${relative(root, e.types)} is missing (${e.specifier}); run npm run build:types`);

const temp = join(tmpdir(), `ubiquity-api-${process.pid}`);
const configFor = (e) =>
  ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, "package.json"),
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: e.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: "es2023",
            lib: ["es2023"],
            module: "nodenext",
            moduleResolution: "nodenext",
            strict: true,
            skipLibCheck: true,
            types: ["node"],
          },
          files: list.map((entry) => entry.types),
        },
      },
      apiReport: {
        enabled: true,
        reportFolder: join(temp, dirname(e.report)),
        reportTempFolder: join(temp, dirname(e.report)),
        reportFileName: e.report.split("/").pop(),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          default: { logLevel: "none" },
          // A type an export reaches but the entry does not name: shown in the report for review.
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
      newlineKind: "lf",
    },
  });

const configs = list.map(configFor);
const compilerState = CompilerState.create(configs[0]);
const problems = [];
for (const [i, config] of configs.entries()) {
  const e = list[i];
  const file = join(apiDir, `${e.report}.api.md`);
  // API Extractor writes into the temp folder (a "local build"); this script compares and copies, so
  // the check's verdict and message are its own.
  const result = Extractor.invoke(config, {
    localBuild: true,
    compilerState,
    messageCallback: (message) => {
      if (message.category === "console" && message.logLevel !== "error") message.handled = true;
    },
  });
  if (result.errorCount > 0) {
    problems.push(`${e.specifier}: API Extractor reported ${result.errorCount} error(s)`);
    continue;
  }
  const made = join(temp, `${e.report}.api.md`);
  const text = readFileSync(made, "utf8")
    .replace('## API Report File for "ubiquity"', `## API Report File for "${e.specifier}"`)
    // A note API Extractor cannot attach to an export carries the line of the .d.ts it comes from:
    // keep the file, drop the position, so an unrelated edit above it changes no report.
    .replace(/^(\/\/ dist\/[^:\n]+):\d+:\d+ - /gm, "$1 - ");
  writeFileSync(made, text);
  const committed = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  if (committed === text) continue;
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    console.log(`api-report: wrote api/${e.report}.api.md`);
  } else if (committed === undefined) problems.push(`${e.specifier}: no committed report api/${e.report}.api.md`);
  else {
    const diff = spawnSync("diff", ["-u", file, made], { encoding: "utf8" }).stdout ?? "";
    problems.push(
      `${e.specifier}: its public surface differs from api/${e.report}.api.md:\n${diff.split("\n").slice(0, 80).join("\n")}`,
    );
  }
}

// A committed report whose entry is gone is a removed surface: say so until it is deleted.
const wanted = new Set(list.map((e) => `${e.report}.api.md`));
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith(".api.md") ? [relative(apiDir, join(dir, d.name))] : [],
  );
for (const stale of existsSync(apiDir) ? walk(apiDir) : [])
  if (!wanted.has(stale.split("\\").join("/"))) {
    if (update) rmSync(join(apiDir, stale));
    else problems.push(`api/${stale}: no public entry has this report any more`);
  }
rmSync(temp, { recursive: true, force: true });

if (problems.length) {
  console.error(`api-report: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  console.error(
    "A deliberate change of the public surface: run `npm run api:update` and commit api/ with it (see docs/contributing.md).",
  );
  process.exit(1);
}
console.log(`api-report: ${list.length} entries ${update ? "written to" : "match"} api/`);
