/**
 * Elicitation at the runner's terminal: the mcp plugin's answerer (`elicitInTerminal`) behind the
 * runner's approver, as `ubiquity run` installs it, answering a real server's form and URL
 * requests with typed lines.
 */
import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { terminalApprover } from "../../runner/run";
import { elicitInTerminal } from "../../plugins/mcp/elicitation";
import { collect, ofType } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest, MARKER } from "./helpers";

expectNoServerLeftAfterEachTest();

const SERVER = fileURLToPath(new URL("./fixtures/feature-server.mjs", import.meta.url));

/** The runner's approver on a fake terminal: each question (a line ending in ":") gets the next reply. */
function terminal(replies: string[]) {
  const stdin = new PassThrough();
  const shown: string[] = [];
  const approver = terminalApprover(
    {
      stdout: () => {},
      stderr: (text) => {
        shown.push(text);
        if (!text.trimEnd().endsWith(":")) return;
        const reply = replies.shift();
        if (reply !== undefined) setImmediate(() => stdin.write(`${reply}\n`));
      },
      stdin,
      stdoutIsTTY: true,
    },
    { answerers: [elicitInTerminal] },
  );
  return { approver, shown };
}

const results = (messages: Message[]) =>
  Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));

describe("elicitation at the terminal", () => {
  it("fills a form field by field (a bad value is asked again) and shows a URL without opening it", async () => {
    const { approver, shown } = terminal(["Ada", "thirty", "36", "2", ""]);
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__features__ask", input: {}, id: "form" }] },
      { toolCalls: [{ toolName: "mcp__features__ask_url", input: {}, id: "url" }] },
      "done",
    ]);
    const out = results(
      await collect(
        summon("ask", {
          presets: [],
          plugins: [mcp()],
          model,
          canUseTool: approver,
          mcpServers: { features: { command: process.execPath, args: [SERVER, "features", MARKER] } },
        }),
      ),
    );
    expect(JSON.parse(String(out.form!.content))).toEqual({
      action: "accept",
      content: { name: "Ada", age: 36, color: "blue" },
    });
    expect(JSON.parse(String(out.url!.content))).toEqual({ action: "accept" });
    const screen = shown.join("");
    expect(screen).toContain('MCP server "features" asks: Who are you?');
    expect(screen).toContain("not a valid integer; try again");
    expect(screen).toContain("https://auth.example.test/login?session=1");
  });

  it("!decline declines", async () => {
    const { approver } = terminal(["!decline"]);
    const model = scriptedModel([{ toolCalls: [{ toolName: "mcp__features__ask", input: {}, id: "form" }] }, "done"]);
    const out = results(
      await collect(
        summon("ask", {
          presets: [],
          plugins: [mcp()],
          model,
          canUseTool: approver,
          mcpServers: { features: { command: process.execPath, args: [SERVER, "features", MARKER] } },
        }),
      ),
    );
    expect(JSON.parse(String(out.form!.content))).toEqual({ action: "decline" });
  });
});
