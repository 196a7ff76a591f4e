/** The process-group count a Bash command's end is judged by (plugins/tool-bash/process-group.ts). */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { liveMembers, waitGroupGone } from "../../plugins/tool-bash/process-group";

describe.runIf(process.platform === "linux")("liveMembers", () => {
  it("counts a group's running members, and none once the group is gone", async () => {
    // A shell leading its own group, with a background child in it.
    const child = spawn("sh", ["-c", "sleep 30 & sleep 30; wait"], { detached: true, stdio: "ignore" });
    const pgid = child.pid!;
    const exited = once(child, "exit");
    try {
      let live = 0;
      for (let i = 0; i < 200 && live < 3; i++) {
        live = (await liveMembers(pgid)) ?? 0;
        if (live < 3) await new Promise((r) => setTimeout(r, 10));
      }
      expect(live).toBe(3);
    } finally {
      process.kill(-pgid, "SIGKILL");
    }
    await exited;
    expect(await waitGroupGone(pgid)).toBe(true);
    expect(await liveMembers(pgid)).toBe(0);
  });
});
