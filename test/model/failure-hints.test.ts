/**
 * A failed model call names its fix (the README's promise: a failed run's result says what went
 * wrong and how to fix it): a refused key names the provider's key variables, a server nobody
 * answers at says to start it or fix the base URL. Against a real HTTP server and a closed port.
 */
import { createServer } from "node:net";
import { afterEach, expect, it } from "vitest";
import { summon } from "ubiquity";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const failure = async (model: string, providerSettings: Record<string, unknown>) =>
  resultOf(
    await collect(summon("hi", { model, apiKey: "sk-test", providerSettings, maxRetries: 0, persistSession: false })),
  );

it("HTTP 401 names the provider's key variable and apiKey; 403 also the model's access", async () => {
  server = await startProviderServer([{ status: 401 }, { status: 403 }]);
  const refused = await failure("openai:gpt-5", { baseURL: server.baseURL });
  expect(refused).toMatchObject({ isError: true, subtype: "error_during_execution" });
  expect(refused.result).toContain("HTTP 401");
  expect(refused.result).toContain("(the provider refused the credentials: check OPENAI_API_KEY or the apiKey option)");
  const forbidden = await failure("anthropic:claude-sonnet-4-5", { baseURL: `${server.baseURL}/v1` });
  expect(forbidden.result).toContain("HTTP 403");
  expect(forbidden.result).toContain(
    "check ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or the apiKey option, and that the key may use this model",
  );
});

it("a closed port names the address and says to start the server", async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const result = await failure("openai:gpt-5", { baseURL: `http://127.0.0.1:${port}/v1` });
  expect(result.isError).toBe(true);
  expect(result.result).toContain(
    `nothing answered at http://127.0.0.1:${port}: check that the server is running and the base URL is right`,
  );
});
