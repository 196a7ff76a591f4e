/** Parity: what the seed imports from the package itself (`from ubiquity import …`) comes from "ubiquity". */
import { describe, expect, it } from "vitest";
import * as ubiquity from "ubiquity";

describe("package entry", () => {
  it("exports the seed's top-level helpers under their camelCase names", () => {
    for (const name of [
      "summon",
      "registerAlias",
      "openaiCompatible",
      "registerContextWindow",
      "registerPricing",
      "SessionStore",
      "Tool",
      "builtinTools",
      "defineTool",
      "parseMcpConfig",
      "HOOK_EVENTS",
      "PERMISSION_MODES",
    ]) {
      expect(typeof (ubiquity as Record<string, unknown>)[name], name).not.toBe("undefined");
    }
  });

  it("parseMcpConfig (the seed's parse_config) reads a command server and a bare url as streamable HTTP", () => {
    const servers = ubiquity.parseMcpConfig({
      github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] },
      docs: { url: "https://example.test/mcp" },
    });
    expect(servers.github).toMatchObject({ command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] });
    expect(servers.docs).toMatchObject({ type: "http", url: "https://example.test/mcp" });
  });

  it("lists the six permission modes (auto too) and the twenty-six hook events", () => {
    expect([...ubiquity.PERMISSION_MODES].sort()).toEqual([
      "acceptEdits",
      "auto",
      "bypassPermissions",
      "default",
      "dontAsk",
      "plan",
    ]);
    expect(ubiquity.HOOK_EVENTS).toHaveLength(26);
    for (const fired of ["FileChanged", "ConfigChange", "TaskCreated", "TaskCompleted"])
      expect(ubiquity.HOOK_EVENTS).toContain(fired);
  });
});
