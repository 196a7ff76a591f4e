/**
 * No process outlives its run: a SIGTERM to an SDK program in the middle of a Bash call ends
 * the call's whole process group (and the program still dies of SIGTERM, as it would have), and
 * a background job a command left behind ends when the call returns. Checked with /proc.
 */
import { readdirSync } from "node:fs";
import { sleepers } from "../helpers/processes";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { liveProcessGroups } from "../../plugins/_kits/process/index";
import { collect } from "../helpers/collect";
import { spawnTs } from "../helpers/ts-child";

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await delay(25);
  }
  return check();
}

const uniqueMarker = () => `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;

describe.skipIf(!readdirSync("/proc").length)("process trees", () => {
  it("SIGTERM to the SDK program mid-call leaves no process of the call, and the program still ends by SIGTERM", async () => {
    const marker = uniqueMarker();
    const child = spawnTs(join(import.meta.dirname, "fixtures", "sigterm-child.ts"), [marker]);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    expect(await until(() => sleepers(marker).length === 2, 60_000)).toBe(true);
    child.kill("SIGTERM");
    const { signal } = await exited;
    expect(signal).toBe("SIGTERM");
    expect(await until(() => sleepers(marker).length === 0, 60_000)).toBe(true);
  });

  it("a background job the command left running (`sleep … &`) is gone when the call returns, and the result says so", async () => {
    const marker = uniqueMarker();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `sleep ${marker} & echo started` } }] },
      "done",
    ]);
    // Unsandboxed: the process group is what ends it (in the sandbox, the PID namespace does).
    const messages = await collect(
      summon("go", {
        model,
        permissionMode: "bypassPermissions",
        persistSession: false,
        persistTodos: false,
        sandbox: false,
      }),
    );
    const result = messages.find((m) => m.type === "tool_result");
    expect(result?.type === "tool_result" && result.output.content).toMatch(
      /^started\n\n\[1 background process the command left running was stopped when it returned/,
    );
    expect(sleepers(marker)).toEqual([]);
    // The signal listeners are gone with the last group: the host program's own handling is untouched.
    expect(liveProcessGroups()).toBe(0);
    expect(process.listeners("SIGTERM").length).toBe(0);
  });
});
