/**
 * Issue 38 in the terminal mode, under a pseudo-terminal, against a loopback OpenAI-compatible
 * server (`--base-url`): Ctrl-C while the answer streams keeps the session, the turn stays in it
 * as interrupted (the prompt, what streamed, `[interrupted by the user]`), and the next prompt is
 * sent as a message of its own and answered next — the interrupted prompt is never sent again.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { inTerminal, PROMPT } from "../helpers/terminal";

afterAll(removeTempProjects);
beforeAll(requireDist);

let server: FakeProviderServer | undefined;
afterAll(async () => void (await server?.close()));

/** The chat messages of a request, as `role:text` (system left out). */
function chatShape(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages
    .filter((m) => m.role !== "system")
    .map(
      (m) =>
        `${m.role}:${typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? "").join("|")}`,
    );
}

describe.skipIf(!existsSync("/usr/bin/script"))("ubiquity chat: Ctrl-C while the answer streams", () => {
  it("keeps the interrupted turn as interrupted, and the next prompt runs next, alone", async () => {
    // The first answer sends one delta ("xxx…") and stalls; the second comes at once.
    server = await startProviderServer((_request, index) =>
      index === 0 ? { fault: "stall-mid-stream" } : "the next prompt, answered",
    );
    const dir = tempProject({
      ".ubiquityrc.json": JSON.stringify({ maxRetries: 0, marketPricing: false, persistTodos: false }),
    });
    const { code, screen } = await inTerminal(
      dir,
      ["chat", "--base-url", server.baseURL, "--model", "local-model"],
      { HOME: tempProject({}) },
      [
        { until: (s) => s.includes(PROMPT), type: "write a long essay\r" },
        { until: (s) => s.includes("xxxxxxxx"), type: "\u0003" },
        { until: (s) => s.includes("interrupted") && s.includes(PROMPT), type: "now do this instead\r" },
        { until: (s) => s.includes("the next prompt, answered") && s.includes(PROMPT), type: "/exit\r" },
      ],
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain("[interrupted by the user]");
    expect(server.requests).toHaveLength(2);
    const shape = chatShape(server.requests[1]!.body);
    expect(shape).toHaveLength(3);
    expect(shape[0]).toBe("user:write a long essay");
    expect(shape[1]).toMatch(/^assistant:x+\n\n\[interrupted by the user\]$/);
    expect(shape[2]).toBe("user:now do this instead");
  });
});
