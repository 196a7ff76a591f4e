/**
 * `npm run fuzz -- --count N --seed S [--all] [--no-shrink]`: run N generated strings through bash and the
 * engine, print every disagreement that produced `allow` as a shrunk reproducer (with --all,
 * every disagreement, unshrunk), and a summary. Exit code 1 when any `allow` disagreement was
 * found, 2 when bubblewrap, strace or bash are missing.
 */
import { parseArgs } from "node:util";
import { formatDisagreement, runHarness } from "./harness";
import { oracleUnavailable } from "./oracle";

const { values } = parseArgs({
  options: {
    count: { type: "string" },
    seed: { type: "string" },
    all: { type: "boolean" },
    "no-shrink": { type: "boolean" },
  },
});
const count = Number(values.count ?? 2000);
const seed = Number(values.seed ?? Date.now() % 1_000_000);
const missing = oracleUnavailable();
if (missing) {
  console.error(missing);
  process.exit(2);
}
console.log(`fuzz: ${count} strings, seed ${seed}`);
const report = await runHarness(count, seed, {
  shrink: !values["no-shrink"],
  onProgress: (done, seen, allowed, ms) =>
    console.error(`  … ${done}/${count}: ${seen} disagreements, ${allowed} that allowed, ${(ms / 1000).toFixed(0)} s`),
  chunk: 2000,
});
for (const d of values.all ? report.disagreements : report.failures) console.log(`\n${formatDisagreement(d)}`);
const rate = ((report.ms / 1000 / count) * 1000).toFixed(1);
console.log(
  `\n${report.strings} strings (${report.completed} ran to completion), ${report.disagreements.length} disagreements, ` +
    `${report.failures.length} that allowed, in ${(report.ms / 1000).toFixed(1)} s (${rate} ms per string); seed ${seed}`,
);
process.exit(report.failures.length > 0 ? 1 : 0);
