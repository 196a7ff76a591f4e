/**
 * `@agentclientprotocol/sdk` is an optional peer. Without it, `ubiquity acp --help` still lists
 * the flags (README sends users there before they install anything), and `ubiquity acp` itself
 * names the install command. The bin runs with a resolve hook that makes the package missing,
 * as in a project that did not install it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireDist, runCli } from "../helpers/project";

const dir = mkdtempSync(join(tmpdir(), "ubq-acp-nosdk-"));
const hide = join(dir, "hide-acp-sdk.mjs");
writeFileSync(
  hide,
  `import { registerHooks } from "node:module";
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "@agentclientprotocol/sdk" || specifier.startsWith("@agentclientprotocol/sdk/")) {
      throw Object.assign(new Error("Cannot find package '@agentclientprotocol/sdk' imported from " + context.parentURL), { code: "ERR_MODULE_NOT_FOUND" });
    }
    return next(specifier, context);
  },
});
`,
);
const env = { NODE_OPTIONS: `--import ${pathToFileURL(hide).href}`, HOME: dir };

beforeAll(requireDist);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ubiquity acp without @agentclientprotocol/sdk", () => {
  it("--help lists the flags", async () => {
    const help = await runCli(["acp", "--help"], dir, env);
    expect(help.stderr).toBe("");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: ubiquity acp [flags]");
    expect(help.stdout).toContain("--model");
  });

  it("serving names the package and the install command", async () => {
    const run = await runCli(["acp"], dir, env);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("ubiquity acp needs the @agentclientprotocol/sdk package");
    expect(run.stderr).toContain("npm i @agentclientprotocol/sdk");
  });
});
