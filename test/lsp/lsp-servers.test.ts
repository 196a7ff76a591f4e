/**
 * How a language server runs: inside the sandbox when it is on (real bubblewrap: the server
 * cannot write outside the workspace), with the scrubbed environment plus its own `env`, answered
 * with its `settings` when it asks, and not at all in a folder that is not trusted. The server is
 * a small probe (probe-server.mjs) that reports what it could do.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { summon, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType } from "../helpers/collect";
import { SKIP } from "../sandbox/helpers";

const PROBE = join(import.meta.dirname, "probe-server.mjs");

let project: string;
let outside: string;
beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), "ubq-lsp-probe-")));
  outside = realpathSync(mkdtempSync(join(tmpdir(), "ubq-lsp-outside-")));
  writeFileSync(join(project, "a.probe"), "x\n");
});
afterEach(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

/** The probe's symbols for a.probe, or the error, in a run with `options` (`server` in place of the probe). */
async function probe(
  options: SummonOptions,
  env: Record<string, string> = {},
  server?: { command: string; extensionToLanguage: Record<string, string> },
): Promise<string> {
  const model = scriptedModel([
    { toolCalls: [{ toolName: "LSP", input: { operation: "documentSymbol", filePath: "a.probe" } }] },
    "done",
  ]);
  const messages = await collect(
    summon("look", {
      model,
      cwd: project,
      persistSession: false,
      lspServers: {
        probe: server ?? {
          command: process.execPath,
          args: [PROBE],
          extensionToLanguage: { ".probe": "probe" },
          env: { PROBE_WRITE: join(outside, "marker"), ...env },
          settings: { probe: { level: 2 } },
        },
      },
      ...options,
    }),
  );
  return ofType(messages, "tool_result")[0]!.output.content;
}

describe("a language server's process", () => {
  it("unsandboxed, the probe writes where it is told (the control for the next test)", async () => {
    const out = await probe({ sandbox: false });
    expect(out).toContain("write_wrote");
    expect(existsSync(join(outside, "marker"))).toBe(true);
  });

  it.skipIf(SKIP)("runs inside the sandbox: it cannot write outside the workspace", async () => {
    const out = await probe({ sandbox: true });
    expect(out).toMatch(/write_(EROFS|EACCES|ENOENT)/);
    expect(existsSync(join(outside, "marker"))).toBe(false);
  });

  it("gets the scrubbed environment plus its own env, and its settings when it asks", async () => {
    vi.stubEnv("UBQ_LSP_TEST_TOKEN", "sk-test-not-for-servers");
    expect(await probe({ sandbox: false }, { PROBE_ENV: "UBQ_LSP_TEST_TOKEN" })).toContain("env_unset");
    const given = await probe({ sandbox: false }, { PROBE_ENV: "MINE", MINE: "1" });
    expect(given).toContain("env_set");
    expect(given).toContain('settings_{"level":2}');
  });

  it.skipIf(SKIP)("a server that is not installed is named with the fix, sandboxed too", async () => {
    const ghost = { command: "no-such-language-server-xyz", extensionToLanguage: { ".probe": "probe" } };
    expect(await probe({ sandbox: true }, {}, ghost)).toContain(
      '"no-such-language-server-xyz" was not found; install it or fix "command"',
    );
  });

  it("is not started in a folder that is not trusted", async () => {
    const out = await probe({ sandbox: false, trust: false });
    expect(out).toContain("not started in a folder that is not trusted");
    expect(existsSync(join(outside, "marker"))).toBe(false);
  });
});
