/**
 * The example useChat route (examples/harness-use-chat), run as its README says — the plain Node
 * server through jiti, against the built package — with the offline `test` model: a chat
 * request streams UI message chunks (a tool call, its output, text), and the chat's next
 * request resumes the parked harness session.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
let child: ChildProcess | undefined;
let temp: string | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

function start(env: Record<string, string>): Promise<string> {
  child = spawn(join(repo, "node_modules/.bin/jiti"), ["examples/harness-use-chat/server.ts"], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((ready, fail) => {
    let out = "";
    let err = "";
    child!.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) ready(m[1]!);
    });
    child!.stderr!.on("data", (d: Buffer) => (err += d));
    child!.once("exit", (code) => fail(new Error(`the example server exited (${code}): ${err}`)));
  });
}

/** The UI message chunks of a useChat response (server-sent events). */
async function chunks(response: Response): Promise<Array<Record<string, unknown> & { type: string }>> {
  const body = await response.text();
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown> & { type: string });
}

const ask = (url: string, id: string, text: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, messages: [{ id: `m-${text.length}`, role: "user", parts: [{ type: "text", text }] }] }),
  });

describe("examples/harness-use-chat", () => {
  it("serves useChat from a HarnessAgent running ubiquityHarness, and answers the chat's next request on its resumed session", async () => {
    temp = mkdtempSync(join(tmpdir(), "ubiquity-harness-example-"));
    const url = await start({ UBIQUITY_MODEL: "test", WORKSPACES: join(temp, "workspaces"), HOME: temp, PORT: "0" });

    const first = await ask(url, "chat-1", "list the files");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("text/event-stream");
    const parts = await chunks(first);
    const types = parts.map((p) => p.type);
    expect(types).toContain("tool-input-available");
    expect(parts.find((p) => p.type === "tool-input-available")).toMatchObject({ toolName: "Glob" });
    expect(types.indexOf("tool-output-available")).toBeGreaterThan(types.indexOf("tool-input-available"));
    expect(types.lastIndexOf("text-delta")).toBeGreaterThan(types.indexOf("tool-output-available"));
    expect(types.at(-1)).toBe("finish");
    expect(existsSync(join(temp, "workspaces", "ubiquity-chat-1"))).toBe(true);

    const second = await chunks(await ask(url, "chat-1", "thanks"));
    const text = second
      .filter((p) => p.type === "text-delta")
      .map((p) => p.delta)
      .join("");
    expect(text).toContain('you said "thanks"');
  });
});
