/**
 * Slash commands over ACP: a session whose options read command files announces them
 * (`available_commands_update`, with the argument hint as input), and a prompt `/name args`
 * reaches the model as the command's body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { ACP_CONFIG, ACP_CONFIG_FILE, messageText, startAgent, until, updatesOf } from "./helpers";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FEATURE_SERVER = fileURLToPath(new URL("../mcp/fixtures/feature-server.mjs", import.meta.url));

afterAll(removeTempProjects);
beforeAll(requireDist);

describe("ubiquity acp: slash commands", () => {
  it("announces the command files and expands /name prompts", async () => {
    const dir = tempProject(
      {
        [ACP_CONFIG_FILE]: ACP_CONFIG.replace(
          "marketPricing: false,",
          'marketPricing: false,\n  commandSources: ["project"],',
        ),
        ".ubiquity/commands/greet.md":
          "---\ndescription: Greet someone\nargument-hint: <who>\n---\nSay hello to $ARGUMENTS\n",
      },
      { linkUbiquity: true },
    );
    const proc = startAgent({ dir, sessions: join(dir, "sessions") });
    try {
      await proc.initialized;
      const { sessionId } = await proc.agent.request("session/new", { cwd: dir, mcpServers: [] });
      await until(() => updatesOf(proc, sessionId).some((u) => u.sessionUpdate === "available_commands_update"));
      const announced = updatesOf(proc, sessionId).find((u) => u.sessionUpdate === "available_commands_update");
      expect(announced).toMatchObject({
        availableCommands: [{ name: "greet", description: "Greet someone", input: { hint: "<who>" } }],
      });
      const answer = await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/greet the world" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(messageText(proc, sessionId)).toBe("answer to Say hello to the world (1 user messages)");
    } finally {
      await proc.close();
    }
  });

  it("announces an MCP server's prompts as /mcp__<server>__<prompt> and expands them", async () => {
    const dir = tempProject({ [ACP_CONFIG_FILE]: ACP_CONFIG }, { linkUbiquity: true });
    const proc = startAgent({ dir, sessions: join(dir, "sessions") });
    try {
      await proc.initialized;
      const mcpServers = [
        {
          name: "features",
          command: process.execPath,
          args: [FEATURE_SERVER, "features"],
          env: [] as { name: string; value: string }[],
        },
      ];
      const { sessionId } = (await proc.agent.request("session/new", { cwd: dir, mcpServers })) as {
        sessionId: string;
      };
      await until(() => updatesOf(proc, sessionId).some((u) => u.sessionUpdate === "available_commands_update"));
      const announced = updatesOf(proc, sessionId).find((u) => u.sessionUpdate === "available_commands_update");
      expect(announced).toMatchObject({
        availableCommands: [
          { name: "mcp__features__greet", description: "Say hello (MCP prompt of features)" },
          {
            name: "mcp__features__review",
            description: "Review a file (MCP prompt of features)",
            input: { hint: "<file> [focus]" },
          },
        ],
      });
      const answer = (await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/mcp__features__review a.ts speed" }],
      })) as { stopReason: string };
      expect(answer.stopReason).toBe("end_turn");
      expect(messageText(proc, sessionId)).toBe("answer to Review a.ts focusing on speed. (1 user messages)");
    } finally {
      await proc.close();
    }
  });

  it("a prompt refused before the model (a command missing its argument) is answered with the reason, not an internal error", async () => {
    const dir = tempProject({ [ACP_CONFIG_FILE]: ACP_CONFIG }, { linkUbiquity: true });
    const proc = startAgent({ dir, sessions: join(dir, "sessions") });
    try {
      await proc.initialized;
      const mcpServers = [{ name: "features", command: process.execPath, args: [FEATURE_SERVER, "features"], env: [] }];
      const { sessionId } = (await proc.agent.request("session/new", { cwd: dir, mcpServers })) as {
        sessionId: string;
      };
      const refused = (await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/mcp__features__review" }],
      })) as { stopReason: string };
      expect(refused.stopReason).toBe("end_turn");
      expect(messageText(proc, sessionId)).toBe(
        "Prompt blocked: /mcp__features__review needs file: /mcp__features__review <file> [focus]",
      );
      // The session goes on: the refused prompt never reached the model.
      const answer = (await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/mcp__features__review a.ts" }],
      })) as { stopReason: string };
      expect(answer.stopReason).toBe("end_turn");
      expect(messageText(proc, sessionId)).toContain("answer to Review a.ts");
    } finally {
      await proc.close();
    }
  });

  it("an MCP server's URL elicitation is the editor's permission question, showing the URL; allowing it accepts", async () => {
    const config = ACP_CONFIG.replace(
      'if (said.includes("mcp"))',
      'if (said.includes("sign in")) return { toolCalls: [{ toolName: "mcp__features__ask_url", input: {} }] };\n    if (said.includes("mcp"))',
    );
    const dir = tempProject({ [ACP_CONFIG_FILE]: config }, { linkUbiquity: true });
    const proc = startAgent({ dir, sessions: join(dir, "sessions") });
    try {
      await proc.initialized;
      const mcpServers = [
        {
          name: "features",
          command: process.execPath,
          args: [FEATURE_SERVER, "features"],
          env: [] as { name: string; value: string }[],
        },
      ];
      const { sessionId } = (await proc.agent.request("session/new", { cwd: dir, mcpServers })) as {
        sessionId: string;
      };
      const answer = (await proc.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "please sign in" }],
      })) as { stopReason: string };
      expect(answer.stopReason).toBe("end_turn");
      const asked = proc.permissions.find(
        (p) => p.toolCall.rawInput && (p.toolCall.rawInput as { mode?: string }).mode === "url",
      );
      expect(JSON.stringify(asked?.toolCall.content)).toContain(
        'MCP server \\"features\\" asks: Sign in to continue\\nhttps://auth.example.test/login?session=1',
      );
      expect(JSON.stringify(proc.updates)).toContain('{\\"action\\":\\"accept\\"}');
    } finally {
      await proc.close();
    }
  });
});
