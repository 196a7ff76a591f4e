/**
 * Writes test/sequence/durations.json from a vitest JSON report: each test file's wall time, for
 * the longest-first order of test/sequence/sequencer.ts. Refresh it after a test file's time
 * changes much:
 *
 *   npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/suite.json
 *   npx jiti scripts/test-durations.ts /tmp/suite.json
 *
 * Only files of 2 s or more are kept (the rest order by size); a stale figure changes the order,
 * never an outcome.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const report = process.argv[2];
if (!report) throw new Error("usage: npx jiti scripts/test-durations.ts <vitest json report>");
const root = join(import.meta.dirname, "..");
const { testResults } = JSON.parse(readFileSync(report, "utf8")) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const durations = Object.fromEntries(
  testResults
    .map((t) => [relative(root, t.name), Math.round((t.endTime - t.startTime) / 100) / 10] as const)
    .filter(([, seconds]) => seconds >= 2)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(join(root, "test", "sequence", "durations.json"), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/sequence/durations.json: ${Object.keys(durations).length} files of 2 s or more`);
