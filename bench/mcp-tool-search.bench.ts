/**
 * MCP tool search: request bytes with 200 MCP tools (a real stdio server, the one the tests use:
 * test/mcp/fixtures/feature-server.mjs `many 200`), every tool offered (`mcpToolSearch: false`)
 * against deferred behind the search tool (`mcpToolSearch: true`). The same five-request session
 * runs both ways: calls of two tools and an answer (deferred, a search loading three tools comes
 * first, one request more). Printed:
 * each request's bytes (tool block plus messages, as the provider is sent them) and the share of
 * each request that repeats the previous one as its prefix (what a prompt cache can reuse).
 */
import { fileURLToPath } from "node:url";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { summon, type Message } from "../sdk/index";
import { scriptedModel, type ScriptedTurn } from "../src/testing/index";
import mcp from "../plugins/mcp/index";

const SERVER = fileURLToPath(new URL("../test/mcp/fixtures/feature-server.mjs", import.meta.url));
const TOOLS = 200;

function body(request: LanguageModelV4CallOptions): string {
  return [...(request.tools ?? []).map((t) => JSON.stringify(t)), ...request.prompt.map((m) => JSON.stringify(m))].join(
    "\n",
  );
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The session: two tools called, then the answer; deferred, a search loading three tools comes first (one more request). */
function script(deferred: boolean): ScriptedTurn[] {
  const calls: ScriptedTurn[] = [
    { toolCalls: [{ toolName: "mcp__many__tool_042", input: { id: "a" } }] },
    { toolCalls: [{ toolName: "mcp__many__tool_117", input: { id: "b", limit: 5 } }] },
    "Done.",
  ];
  const search: ScriptedTurn = {
    toolCalls: [
      {
        toolName: "McpToolSearch",
        input: { query: "select:mcp__many__tool_042,mcp__many__tool_117,mcp__many__tool_180" },
      },
    ],
  };
  return deferred ? [search, ...calls] : calls;
}

async function measure(deferred: boolean): Promise<string[]> {
  const model = scriptedModel(script(deferred));
  for await (const m of summon("Use the record tools.", {
    presets: [],
    plugins: [mcp()],
    model,
    maxContextTokens: 200_000,
    mcpToolSearch: deferred,
    mcpServers: { many: { command: process.execPath, args: [SERVER, "many", String(TOOLS)] } },
  }) as AsyncGenerator<Message>) {
    if (m.type === "result" && m.isError) throw new Error(`bench run failed: ${m.result}`);
  }
  return model.requests.map(body);
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

export default async function mcpToolSearch(): Promise<void> {
  for (const deferred of [false, true]) {
    const bodies = await measure(deferred);
    const total = bodies.reduce((s, b) => s + b.length, 0);
    console.log(
      `${deferred ? "deferred (mcpToolSearch: true)" : "all offered (mcpToolSearch: false)"}: ${bodies.length} requests, ${kib(total)} in all, ~${Math.round(total / 4).toLocaleString("en")} tokens`,
    );
    bodies.forEach((b, i) => {
      const prefix =
        i === 0
          ? ""
          : `, prefix reused ${((commonPrefix(bodies[i - 1]!, b) / bodies[i - 1]!.length) * 100).toFixed(1)}%`;
      console.log(`  request ${i + 1}: ${kib(b.length)}${prefix}`);
    });
  }
}
