/** `ubiquity run --sandbox` turns the sandbox on (and keeps a config's own sandbox settings). */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../../runner/run";
import { SKIP } from "./helpers";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Run `ubiquity run` with a config whose plugin records the resolved `sandbox` option. */
async function sandboxOptionOf(flags: string[], configSandbox?: unknown): Promise<unknown> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-run-")));
  dirs.push(dir);
  const seen = join(dir, "seen.json");
  const config = join(dir, "ubiquity.config.mjs");
  writeFileSync(
    config,
    `import { writeFileSync } from "node:fs";
export default {
  ${configSandbox === undefined ? "" : `sandbox: ${JSON.stringify(configSandbox)},`}
  plugins: [{ name: "test:record", apply(k) { k.hooks.kernel.configResolved.tap("test:record", (o) => writeFileSync(${JSON.stringify(seen)}, JSON.stringify(o.sandbox ?? null))); } }],
};`,
  );
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const code = await runCommand(
    [...flags, "--config", config, "--cwd", dir, "--model", "test", "--output-format", "json", "hi"],
    { stdout() {}, stderr() {}, stdin, stdoutIsTTY: false },
  );
  expect(code).toBe(0);
  return JSON.parse(readFileSync(seen, "utf8"));
}

describe.skipIf(SKIP)("ubiquity run --sandbox", () => {
  it("sets sandbox: true, and enabled: true on a config's sandbox object", async () => {
    expect(await sandboxOptionOf([])).toBe(null);
    expect(await sandboxOptionOf(["--sandbox"])).toBe(true);
    expect(await sandboxOptionOf(["--sandbox"], { enabled: false, network: "all" })).toEqual({
      enabled: true,
      network: "all",
    });
  });
});
