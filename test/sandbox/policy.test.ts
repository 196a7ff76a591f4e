/**
 * The sandbox with the permission engine (autoAllowBash, deny and ask rules first,
 * excludedCommands), the system prompt note, and what happens when the sandbox cannot start.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { CanUseTool, Logger } from "ubiquity";
import sandbox from "ubiquity/plugins/sandbox";
import { resultOf } from "../helpers/collect";
import { outputs, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();

function recorder() {
  const asked: string[] = [];
  const canUseTool: CanUseTool = (_tool, input) => {
    asked.push(String(input.command));
    return { behavior: "deny", message: "the test says no" };
  };
  return { asked, canUseTool };
}

describe.skipIf(SKIP)("sandbox and permissions", () => {
  it("autoAllowBash: a sandboxed Bash call that would ask runs without a prompt", async () => {
    const { asked, canUseTool } = recorder();
    const out = outputs(
      await runBash(["echo hi > a.txt && cat a.txt"], { cwd: place.ws(), sandbox: true, canUseTool }),
    );
    expect(asked).toEqual([]);
    expect(out.c0!.content).toBe("hi");
  });

  it("bypassPermissions: a write the engine cannot name runs inside the sandbox, and asks without it (issue 35)", async () => {
    // `$OUT` is only known at run time: without the sandbox nothing keeps it from ~/.bashrc.
    const command = 'OUT=made.txt; echo hi > "$OUT"';
    const inside = recorder();
    const out = outputs(
      await runBash([command], {
        cwd: place.ws(),
        sandbox: { autoAllowBash: false },
        permissionMode: "bypassPermissions",
        canUseTool: inside.canUseTool,
      }),
    );
    expect(inside.asked).toEqual([]);
    expect(out.c0!.isError).toBe(false);
    expect(existsSync(join(place.ws(), "made.txt"))).toBe(true);
    const unsandboxed = 'OUT=other.txt; echo hi > "$OUT"';
    const outside = recorder();
    const denied = outputs(
      await runBash([unsandboxed], {
        cwd: place.ws(),
        permissionMode: "bypassPermissions",
        sandbox: false,
        canUseTool: outside.canUseTool,
      }),
    );
    expect(outside.asked).toEqual([unsandboxed]);
    expect(denied.c0!.content).toBe("the test says no");
    expect(existsSync(join(place.ws(), "other.txt"))).toBe(false);
  });

  it("without autoAllowBash the same call asks", async () => {
    const { asked, canUseTool } = recorder();
    await runBash(["echo hi > a.txt"], { cwd: place.ws(), sandbox: { autoAllowBash: false }, canUseTool });
    expect(asked).toEqual(["echo hi > a.txt"]);
    expect(existsSync(join(place.ws(), "a.txt"))).toBe(false);
  });

  it("deny rules apply first, and an ask rule the user wrote still asks", async () => {
    const { asked, canUseTool } = recorder();
    const out = outputs(
      await runBash(["rm -f .env", "echo asked > b.txt"], {
        cwd: place.ws(),
        sandbox: true,
        canUseTool,
        disallowedTools: ["Bash(rm:*)"],
        askTools: ["Bash(echo:*)"],
      }),
    );
    expect(out.c0!.content).toContain("Permission denied: the rule Bash(rm:*)");
    expect(existsSync(join(place.ws(), ".env"))).toBe(true);
    expect(asked).toEqual(["echo asked > b.txt"]);
  });

  it("excludedCommands run outside the sandbox and are judged by the rules alone", async () => {
    const { asked, canUseTool } = recorder();
    const home = place.home();
    await runBash(["touch ~/outside.txt"], { cwd: place.ws(), sandbox: { excludedCommands: ["touch"] }, canUseTool });
    expect(asked).toEqual(["touch ~/outside.txt"]); // not auto-allowed: it would not be sandboxed
    // Unsandboxed, bypassPermissions asks before writing outside the permitted folders (issue 35); the user approves.
    const approved: string[] = [];
    await runBash(["touch ~/outside.txt"], {
      cwd: place.ws(),
      sandbox: { excludedCommands: ["touch"] },
      permissionMode: "bypassPermissions",
      canUseTool: (_t, input) => (approved.push(String(input.command)), { behavior: "allow" }),
    });
    expect(approved).toEqual(["touch ~/outside.txt"]);
    expect(existsSync(join(home, "outside.txt"))).toBe(true); // ran unsandboxed: the home folder was writable
  });

  it("the system prompt says the agent is sandboxed and what that means", async () => {
    const { scriptedModel } = await import("ubiquity/testing");
    const { summon } = await import("ubiquity");
    const { collect } = await import("../helpers/collect");
    const model = scriptedModel(["done"]);
    const cwd = place.ws();
    await collect(summon("hi", { model, cwd, sandbox: true, persistSession: false, persistTodos: false }));
    const system = JSON.stringify(model.requests[0]!.prompt[0]);
    expect(system).toContain("# Sandbox");
    expect(system).toContain("No network: downloads");
    expect(system).toContain("Read-only file system");
    // The writable folder is the working directory, which the environment section names once.
    expect(system).toContain("Writable: only the working directory and /tmp");
    expect(system.split(cwd).length - 1).toBe(1);
  });
});

describe("an unavailable sandbox", () => {
  it("ends the run at start with an error naming apt-get install bubblewrap; nothing runs", async () => {
    const messages = await runBash(["touch ran.txt"], {
      cwd: place.ws(),
      sandbox: true,
      permissionMode: "bypassPermissions",
      plugins: [sandbox({ bwrapPath: "/nonexistent/bwrap" })],
    });
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("apt-get install bubblewrap");
    expect(result.result).toContain("failIfUnavailable: false");
    expect(existsSync(join(place.ws(), "ran.txt"))).toBe(false);
  });

  it("names an unsupported platform", async () => {
    const result = resultOf(
      await runBash(["true"], { cwd: place.ws(), sandbox: true, plugins: [sandbox({ platform: "win32" })] }),
    );
    expect(result.isError).toBe(true);
    expect(result.result).toContain("not win32");
  });

  it("failIfUnavailable: false warns once and runs unsandboxed", async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn: (...a: unknown[]) => void warnings.push(a.join(" ")),
      error() {},
    };
    const messages = await runBash(["touch ~/unsandboxed.txt"], {
      cwd: place.ws(),
      sandbox: { failIfUnavailable: false },
      permissionMode: "bypassPermissions",
      // Unsandboxed, a write outside the permitted folders asks even in bypassPermissions (issue 35); the user approves.
      canUseTool: () => ({ behavior: "allow" }),
      logger,
      plugins: [sandbox({ bwrapPath: "/nonexistent/bwrap" })],
    });
    expect(resultOf(messages).isError).toBe(false);
    expect(warnings.filter((w) => w.includes("UNSANDBOXED"))).toHaveLength(1);
    expect(existsSync(join(place.home(), "unsandboxed.txt"))).toBe(true);
  });

  it("by default (no sandbox option) a machine without bubblewrap warns once and runs; system/init says unavailable", async () => {
    const warnings: string[] = [];
    const messages = await runBash(["touch ran.txt"], {
      cwd: place.ws(),
      permissionMode: "bypassPermissions",
      plugins: [
        sandbox({ bwrapPath: "/nonexistent/bwrap" }),
        {
          name: "test:events",
          apply: (k) => void k.hooks.event.tap("t", (e) => void (e.type === "warning" && warnings.push(e.message))),
        },
      ],
    });
    expect(resultOf(messages).isError).toBe(false);
    expect(existsSync(join(place.ws(), "ran.txt"))).toBe(true);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init && "sandbox" in init && init.sandbox).toMatchObject({ status: "unavailable" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("UNSANDBOXED");
    expect(warnings[0]).toContain("/proc/$PPID/environ");
  });

  it("UBIQUITY_REQUIRE_SANDBOX=1 makes the same machine refuse to run: nothing runs", async () => {
    // sandboxPlace() (./helpers) unstubs every key after each test.
    vi.stubEnv("UBIQUITY_REQUIRE_SANDBOX", "1");
    const messages = await runBash(["touch ran.txt"], {
      cwd: place.ws(),
      permissionMode: "bypassPermissions",
      plugins: [sandbox({ bwrapPath: "/nonexistent/bwrap" })],
    });
    expect(resultOf(messages).isError).toBe(true);
    expect(resultOf(messages).result).toContain("UBIQUITY_REQUIRE_SANDBOX=1 is set");
    expect(existsSync(join(place.ws(), "ran.txt"))).toBe(false);
    const off = await runBash(["touch ran.txt"], {
      cwd: place.ws(),
      sandbox: false,
      permissionMode: "bypassPermissions",
    });
    expect(resultOf(off).result).toContain("turns the sandbox off");
    expect(existsSync(join(place.ws(), "ran.txt"))).toBe(false);
  });

  it("the sandbox option without the ubiquity:sandbox plugin refuses to run commands (the run fails at boot: the option is unknown)", async () => {
    const messages = await runBash(["touch ran.txt"], {
      cwd: place.ws(),
      sandbox: true,
      permissionMode: "bypassPermissions",
      disable: ["ubiquity:sandbox"],
    });
    expect(resultOf(messages).isError).toBe(true);
    expect(resultOf(messages).result).toContain(
      '"sandbox" is an option of the plugin ubiquity:sandbox, which is not in the plugin list',
    );
    expect(existsSync(join(place.ws(), "ran.txt"))).toBe(false);
  });
});

describe.skipIf(SKIP)("the settings files' sandbox key", () => {
  it("a settings file turns the sandbox on; a more specific file cannot turn it off", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const ws = place.ws();
    mkdirSync(join(place.home(), ".ubiquity"), { recursive: true });
    writeFileSync(join(place.home(), ".ubiquity", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
    mkdirSync(join(ws, ".ubiquity"), { recursive: true });
    writeFileSync(join(ws, ".ubiquity", "settings.json"), JSON.stringify({ sandbox: false }));
    const out = outputs(
      await runBash(["touch ~/from-settings.txt"], {
        cwd: ws,
        settingSources: ["user", "project"],
        permissionMode: "bypassPermissions",
      }),
    );
    expect(out.c0!.content).toContain("blocked by the sandbox:");
    expect(existsSync(join(place.home(), "from-settings.txt"))).toBe(false);
  });
});
