/**
 * The runner's status line in a terminal: "waiting for <provider>… N s" while a request is
 * unanswered, cleared when the answer starts; nothing without a terminal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { summon } from "ubiquity";
import { TextRenderer } from "../../src/render";
import { modelLayer } from "../model/helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function render(status: boolean) {
  // The first attempt hears nothing for 2.5 s (requestTimeoutMs), the retry answers.
  server = await startProviderServer([{ fault: "silent" }, "hello there"]);
  const lines: string[] = [];
  const statuses: string[] = [];
  const renderer = new TextRenderer({ out: (t) => lines.push(t), info: (t) => lines.push(t), ...(status ? { status: (t: string) => statuses.push(t) } : {}) }, true);
  const options = { ...modelLayer(), model: "openai.chat:gpt-4o", apiKey: "sk-test", providerSettings: { baseURL: server.baseURL }, requestTimeoutMs: 2500, retryMaxWaitMs: 10, includePartialMessages: true };
  for await (const message of summon("hi", options)) renderer.render(message);
  renderer.close();
  return { lines, statuses };
}

describe("waiting for the provider", () => {
  it("counts the seconds on the status line, then clears it before the answer", async () => {
    const { lines, statuses } = await render(true);
    const waits = statuses.filter((s) => s.includes("waiting"));
    expect(waits[0]).toBe("\r\x1b[2Kwaiting for openai… 1 s");
    expect(waits).toContain("\r\x1b[2Kwaiting for openai… 2 s");
    expect(statuses.at(-1)).toBe("\r\x1b[2K");
    expect(lines.join("")).toContain("hello there");
  });

  it("writes no status line without a terminal", async () => {
    const { statuses } = await render(false);
    expect(statuses).toEqual([]);
  });
});
