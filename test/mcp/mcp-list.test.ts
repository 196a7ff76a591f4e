/** `ubiquity mcp list`: connect, list servers with status and tools, exit; nothing left running. */
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../runner/cli";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { everythingStdio, MARKER, expectNoServerLeftAfterEachTest } from "./helpers";

expectNoServerLeftAfterEachTest();
afterAll(removeTempProjects);

async function inProcess(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

const project = (mcpServers: Record<string, unknown>) =>
  tempProject({ "servers.json": JSON.stringify({ mcpServers }) });

describe("ubiquity mcp list", () => {
  it("prints each server with its status and tools (read-only marked); a failed server makes the exit code 1", async () => {
    const dir = project({
      everything: { ...everythingStdio(), readOnly: ["echo"] },
      ghost: { command: `no-such-server-${MARKER}` },
    });
    const { code, stdout, stderr } = await inProcess(["mcp", "list", "--config", `${dir}/servers.json`]);
    expect(stderr).toBe("");
    expect(code).toBe(1);
    expect(stdout).toContain(`everything (stdio: ${process.execPath} `);
    expect(stdout).toMatch(/^ {2}connected, \d+ tools$/m);
    expect(stdout).toMatch(/^ {2}mcp__everything__echo +read-only {2}Echoes back the input string$/m);
    expect(stdout).toMatch(/^ {2}mcp__everything__get-sum +says r\/o {3}Returns the sum/m); // the server's claim only
    expect(stdout).toMatch(/^ {2}mcp__everything__toggle-simulated-logging {2,}\S/m); // not read-only: no marker
    expect(stdout).toContain(`ghost (stdio: no-such-server-${MARKER})\n  failed: failed to start: command not found`);
  });

  it("--json prints the report as data; all connected exits 0", async () => {
    const dir = project({ everything: { ...everythingStdio(), readOnly: true } });
    const { code, stdout } = await inProcess(["mcp", "list", "--json", "--config", `${dir}/servers.json`]);
    expect(code).toBe(0);
    const [server] = JSON.parse(stdout) as {
      name: string;
      status: string;
      tools: { name: string; readOnly: boolean }[];
    }[];
    expect(server).toMatchObject({ name: "everything", transport: "stdio", status: "connected" });
    expect(server!.tools).toContainEqual(
      expect.objectContaining({ name: "mcp__everything__echo", tool: "echo", readOnly: true, readOnlyHint: true }),
    );
    expect(server!.tools).toContainEqual(
      expect.objectContaining({ tool: "toggle-simulated-logging", readOnly: true, readOnlyHint: false }),
    );
  });

  it("names the subcommands when given another (a usage error: exit 2)", async () => {
    const { code, stderr } = await inProcess(["mcp", "ls"]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'error: ubiquity mcp: "ls"; the subcommands are `ubiquity mcp list`, `ubiquity mcp login <server>` and `ubiquity mcp logout <server>`\n',
    );
  });

  it('in an untrusted folder, says its .mcp.json was not read instead of only "none configured"', async () => {
    requireDist();
    const dir = tempProject({ ".mcp.json": JSON.stringify({ mcpServers: { everything: everythingStdio() } }) });
    const home = tempProject({}, { packageJson: false });
    const { code, stdout } = await runCli(["mcp", "list"], dir, { UBIQUITY_TRUST: "", HOME: home });
    expect(code).toBe(0);
    expect(stdout).toBe(
      `No MCP servers started.\n${dir}/.mcp.json was not read: the folder is not trusted (or the file changed since it was approved); trust it with \`ubiquity trust .\`, or pass --trust for one run.\n`,
    );
  });

  it("works through the real bin (the built package loads the plugin through the facade)", async () => {
    requireDist();
    const dir = project({ everything: { ...everythingStdio(), readOnly: true } });
    const { code, stdout, stderr } = await runCli(["mcp", "list", "--config", "servers.json"], dir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}mcp__everything__echo +read-only/m);
  });
});
