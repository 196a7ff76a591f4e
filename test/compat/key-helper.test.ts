/**
 * Claude Code's `apiKeyHelper` with short-lived keys (an SSO broker's token): the helper runs again
 * once its key is older than `CLAUDE_CODE_API_KEY_HELPER_TTL_MS` (5 minutes by default), and when
 * the provider answers 401, after which the request goes once more with the new key — as Claude
 * Code does. Real parts: the user's settings file in a temp HOME, a helper script counting its
 * runs, the fake Anthropic server behind the real provider package.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { summon, type Message } from "ubiquity";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { tempHome } from "../helpers/temp-home";
import { tempDir } from "../tools/helpers";

const home = tempHome();
let server: FakeProviderServer | undefined;
beforeEach(() => {
  vi.stubEnv("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

/** A helper that prints `sk-broker-<n>-long-enough-key` for its n-th run (runs counted in a file beside it). */
function helperScript(fails = false): { command: string; runs: () => number } {
  const dir = tempDir();
  const count = join(dir, "runs");
  writeFileSync(count, "");
  const command = join(dir, "get-key.sh");
  writeFileSync(
    command,
    `#!/bin/sh\necho run >> ${JSON.stringify(count)}\nn=$(wc -l < ${JSON.stringify(count)})\n${fails ? 'if [ "$n" -gt 1 ]; then exit 7; fi\n' : ""}echo "sk-broker-$((n))-long-enough-key"\n`,
    { mode: 0o755 },
  );
  return { command, runs: () => readFileSync(count, "utf8").split("\n").filter(Boolean).length };
}

async function runWith(helper: string, prompt = "hi"): Promise<{ messages: Message[]; warnings: string[] }> {
  mkdirSync(join(home(), ".ubiquity"), { recursive: true });
  writeFileSync(join(home(), ".ubiquity", "settings.json"), JSON.stringify({ apiKeyHelper: helper }));
  const warnings: string[] = [];
  const log = (line: string) => void warnings.push(line);
  const messages = await collect(
    summon(prompt, {
      model: "anthropic:claude-haiku-4-5",
      providerSettings: { baseURL: server!.baseURL },
      settingSources: ["user"],
      cwd: tempDir(),
      persistSession: false,
      logger: { debug: () => {}, info: () => {}, warn: log, error: log },
    }),
  );
  return { messages, warnings };
}

const keysSent = () => server!.requests.map((r) => r.headers["x-api-key"]);

it("a 401 runs the helper again and sends the request once more with its new key", async () => {
  server = await startProviderServer([{ status: 401, message: "token expired" }, "done"]);
  const helper = helperScript();
  const { messages } = await runWith(helper.command);
  expect(resultOf(messages)).toMatchObject({ isError: false, result: "done" });
  expect(keysSent()).toEqual(["sk-broker-1-long-enough-key", "sk-broker-2-long-enough-key"]);
  expect(helper.runs()).toBe(2);
  // The new key is a secret like the first: never in what the run emits.
  expect(JSON.stringify(messages)).not.toContain("sk-broker-2");
});

it("a key older than CLAUDE_CODE_API_KEY_HELPER_TTL_MS is renewed before the request; a younger one is not", async () => {
  server = await startProviderServer(["first", "second"]);
  const helper = helperScript();
  vi.stubEnv("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "0");
  await runWith(helper.command);
  expect(keysSent()).toEqual(["sk-broker-2-long-enough-key"]);
  vi.stubEnv("CLAUDE_CODE_API_KEY_HELPER_TTL_MS", String(60 * 60_000));
  await runWith(helper.command);
  expect(keysSent()).toEqual(["sk-broker-2-long-enough-key", "sk-broker-2-long-enough-key"]);
  expect(helper.runs()).toBe(2);
});

it("a helper failing when run again leaves the key it printed before, with a warning that shows no key", async () => {
  server = await startProviderServer([{ status: 401, message: "token expired" }]);
  const helper = helperScript(true);
  const { messages, warnings } = await runWith(helper.command);
  expect(resultOf(messages).isError).toBe(true);
  // The 401 stands (the same key would be refused again): one request, not a loop.
  expect(keysSent()).toEqual(["sk-broker-1-long-enough-key"]);
  expect(warnings.join("\n")).toContain("exited with status 7 when run again for a fresh key");
  expect(warnings.join("\n")).not.toContain("sk-broker");
});
