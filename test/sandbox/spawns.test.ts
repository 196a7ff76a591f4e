/** Command hooks and stdio MCP servers run inside the sandbox too, and still do their job. */
import { readFileSync, readlinkSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest, filesystemStdio } from "../mcp/helpers";
import { outputs, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();
expectNoServerLeftAfterEachTest();

describe.skipIf(SKIP)("sandboxed spawns besides Bash", () => {
  it("a shell-command hook runs inside: its own network namespace, home read-only, the workspace writable", async () => {
    const ws = place.ws();
    const bashrc = readFileSync(join(place.home(), ".bashrc"), "utf8");
    const hook = "readlink /proc/self/ns/net > hook-net.txt; { echo pwned >> ~/.bashrc; } 2> hook-err.txt; exit 0";
    const messages = await runBash(["echo after-hook"], {
      cwd: ws,
      sandbox: true,
      permissionMode: "bypassPermissions",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] },
    });
    expect(outputs(messages).c0!.content).toBe("after-hook");
    expect(readFileSync(join(ws, "hook-net.txt"), "utf8").trim()).not.toBe(readlinkSync("/proc/self/ns/net"));
    expect(readFileSync(join(ws, "hook-err.txt"), "utf8")).toContain("Read-only file system");
    expect(readFileSync(join(place.home(), ".bashrc"), "utf8")).toBe(bashrc);
  });

  it("a stdio MCP server started under the sandbox still answers, and cannot write outside the workspace", async () => {
    const ws = place.ws();
    const home = place.home();
    // server-filesystem is allowed the home folder, so only the sandbox can stop its write there.
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "mcp__fs__list_allowed_directories", input: {}, id: "m0" },
          { toolName: "mcp__fs__write_file", input: { path: join(home, "from-mcp.txt"), content: "x" }, id: "m1" },
          { toolName: "mcp__fs__read_text_file", input: { path: join(home, ".bashrc") }, id: "m2" },
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, cwd: ws, sandbox: true, permissionMode: "bypassPermissions", persistSession: false, persistTodos: false, mcpServers: { fs: filesystemStdio(home) } }),
    );
    expect(resultOf(messages).isError).toBe(false);
    const out = outputs(messages);
    expect(out.m0!.content).toContain(home);
    expect(out.m1!.isError).toBe(true);
    expect(out.m1!.content).toMatch(/read-only file system|EROFS/i);
    expect(existsSync(join(home, "from-mcp.txt"))).toBe(false);
    expect(out.m2!.content).toContain("# rc");
  });
});
