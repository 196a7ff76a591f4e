/**
 * An API key passed as `apiKey` (or inside providerSettings) reaches the provider and nowhere
 * else: not in any message, transcript file, log line or `inspect` output — also when the
 * provider's error echoes it back.
 */
import { afterEach, expect, it } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import sessionsPlugin from "ubiquity/plugins/sessions";
import { main } from "../../runner/cli";
import { resultOf } from "../helpers/collect";
import { capturingLogger, modelLayer, run } from "./helpers";

const KEY = "sk-live-SECRET-4f9a8b7c6d5e";
const HEADER_SECRET = "hdr-SECRET-0a1b2c3d";

let server: FakeProviderServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

it("appears in no message, transcript or log line, even when the provider echoes it", async () => {
  dir = mkdtempSync(join(tmpdir(), "ubiquity-secrets-"));
  server = await startProviderServer([
    { toolCalls: [{ name: "Echo", input: { text: "x" } }] },
    { status: 429, headers: { "retry-after": "0" }, message: `rate limited for key ${KEY}` },
    { status: 401, message: `Incorrect API key provided: ${KEY}` },
  ]);
  const logger = capturingLogger();
  const messages = await run("go", {
    ...modelLayer(),
    plugins: [...modelLayer().plugins, sessionsPlugin()],
    model: "openai.chat:gpt-4o",
    apiKey: KEY,
    providerSettings: { baseURL: server.baseURL, headers: { "x-custom-auth": HEADER_SECRET } },
    sessionDir: dir,
    logger,
  });
  // The key did reach the provider.
  expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(server.requests[0]!.headers["x-custom-auth"]).toBe(HEADER_SECRET);

  const result = resultOf(messages);
  expect(result.isError).toBe(true);
  expect(result.result).toMatch(/HTTP 401.*Incorrect API key provided: \[redacted\]/);
  const everything = [
    JSON.stringify(messages),
    ...logger.lines,
    ...filesUnder(dir).map((f) => readFileSync(f, "utf8")),
  ].join("\n");
  expect(filesUnder(dir).length).toBeGreaterThan(0);
  expect(logger.lines.some((l) => l.includes("[ubiquity:retry]"))).toBe(true);
  expect(everything).not.toContain(KEY);
  expect(everything).not.toContain(HEADER_SECRET);
});

it("appears nowhere in `ubiquity inspect` (text or JSON)", async () => {
  dir = mkdtempSync(join(tmpdir(), "ubiquity-inspect-"));
  const config = join(dir, "ubiquity.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      model: "groq:llama-3.3-70b-versatile",
      apiKey: KEY,
      providerSettings: { headers: { "x-custom-auth": HEADER_SECRET } },
    }),
  );
  for (const args of [
    ["inspect", "--config", config],
    ["inspect", "--json", "--config", config],
  ]) {
    let out = "";
    const code = await main(args, { stdout: (t) => void (out += t), stderr: (t) => void (out += t) });
    expect(code, out).toBe(0);
    expect(out).toContain("ubiquity:model");
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(HEADER_SECRET);
  }
});
