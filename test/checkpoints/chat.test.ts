/**
 * `/rewind` in the terminal mode, under a pseudo-terminal: checkpoints are on there without any
 * config saying so; `/rewind` lists them, `/rewind <uuid>` shows the plan, asks, and rewinds.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, tempProject } from "../helpers/project";
import { inTerminal, PROMPT } from "../helpers/terminal";

afterAll(removeTempProjects);
beforeAll(requireDist);

// Plain JavaScript, written as ubiquity.config.mjs: a .ts config made each fresh project's first run
// load jiti's Babel (~0.2 CPU-s; see test/helpers/scripted-project.ts).
const CONFIG = `
import { scriptedModel } from "ubiquity/testing";
export default {
  marketPricing: false,
  maxRetries: 0,
  permissionMode: "bypassPermissions",
  model: scriptedModel(({ request }) =>
    request.prompt[request.prompt.length - 1].role === "tool"
      ? "done"
      : { toolCalls: [{ toolName: "Bash", input: { command: "echo changed > f.txt && echo new > made.txt" } }] },
  ),
};
`;

describe.skipIf(!existsSync("/usr/bin/script"))("/rewind in the terminal mode", () => {
  it("lists the checkpoints, shows the plan, asks, and puts the files back", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG, "f.txt": "original\n" }, { linkUbiquity: true });
    // Sessions and checkpoints go to their defaults under HOME: a temp one.
    const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-ckpt-chat-home-")));
    try {
      const uuid = /([0-9a-f-]{36}) {2}\d{4}-/;
      const { code, screen } = await inTerminal(dir, [], { HOME: home }, [
        { until: (s) => s.includes(PROMPT), type: "change the file\r" },
        { until: (s) => s.includes("done") && s.includes(PROMPT), type: "/rewind\r" },
        {
          until: (s) => uuid.test(s) && s.includes(PROMPT),
          type: (s) => `/rewind ${uuid.exec(s.slice(s.lastIndexOf("Checkpoints of session")))![1]}\r`,
        },
        { until: (s) => s.includes("[y/N]"), type: "y\r" },
        { until: (s) => s.includes("files are as they were") && s.includes(PROMPT), type: "/exit\r" },
      ]);
      expect(code, screen).toBe(0);
      expect(screen).toMatch(/restore\s+f\.txt/);
      expect(screen).toMatch(/remove\s+made\.txt/);
      expect(screen).toMatch(/restored\s+f\.txt/);
      expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("original\n");
      expect(existsSync(join(dir, "made.txt"))).toBe(false);
      expect(existsSync(join(home, ".ubiquity", "checkpoints"))).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
