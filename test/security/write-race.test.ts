/**
 * Issue 36, build point 6, through the real bin: a detached helper (its own session, as
 * `setsid` starts it) keeps swapping the folder `docs` for a link to `.git` and back while the
 * agent calls `Write(docs/commondir)` again and again in bypassPermissions and in acceptEdits.
 * Whatever the interleaving, `.git` must never receive the write, and every refused call must
 * say why. Nothing here depends on timing: every call's outcome is checked, whichever it was.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const CALLS_PER_RUN = 150;
const RUNS_PER_MODE = 2;
const SWAPPER = join(import.meta.dirname, "fixtures", "swap-folder.mjs");

const CONFIG = `
import { scriptedModel } from "ubiquity/testing";

export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const last = request.prompt[request.prompt.length - 1];
    if (last.role === "tool") return "done";
    const calls = [];
    for (let i = 0; i < ${CALLS_PER_RUN}; i++) calls.push({ toolName: "Write", input: { file_path: "docs/commondir", content: "../../elsewhere\\n" } });
    return { toolCalls: calls };
  }),
};
`;

/** Why a Write may be refused while docs is being swapped; anything else is a failure of the test. */
const EXPLAINED = [
  /needs approval: it is inside .*\.git folder/, // the engine saw the link: .git asks (headless: denied)
  /no longer the folder that was judged|was replaced by a link|moved/, // the file tools saw the swap
  /resolves now to .* but was judged as/, // the path led elsewhere at the write than at the judgement
  /has not been read|has changed since it was last read/, // a docs folder the agent made while the real one was away
  /Cannot resolve .*docs\/commondir/, // the path kept changing while it was resolved (more than 40 times): fail closed
];

type ToolResult = { type: "tool_result"; toolName: string; output: { isError: boolean; content: string } };

function startSwapper(dir: string): Promise<number> {
  const child = spawn(process.execPath, [SWAPPER, dir, ".git"], { detached: true, stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(Number(readFileSync(join(dir, "swapper-stopped"), "utf8")))
        : reject(new Error(`the swapper failed (exit code ${code})`)),
    );
  });
}

describe("Write while another process swaps a folder for a link to .git", () => {
  it(`never lands in .git over ${RUNS_PER_MODE * 2} runs of ${CALLS_PER_RUN} calls; every refusal says why`, async () => {
    const dir = tempProject(
      { "ubiquity.config.ts": CONFIG, ".git/HEAD": "ref: refs/heads/main\n", "docs/README.md": "docs\n" },
      { linkUbiquity: true },
    );
    mkdirSync(join(dir, "sessions"));
    const before = readdirSync(join(dir, ".git")).sort();
    const outcomes = { written: 0, refused: 0 };
    const landed: string[] = [];
    const unexplained: string[] = [];
    const byReason = EXPLAINED.map(() => 0);
    const stopped = startSwapper(dir);
    try {
      for (const mode of ["bypassPermissions", "acceptEdits"]) {
        for (let run = 0; run < RUNS_PER_MODE; run++) {
          const out = await runCli(
            ["run", "--output-format", "stream-json", "--permission-mode", mode, "write the file"],
            dir,
            { UBQ_SESSIONS: join(dir, "sessions") },
          );
          expect(out.code, out.stderr).toBe(0);
          const results = out.stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { type: string })
            .filter((m): m is ToolResult => m.type === "tool_result");
          expect(results).toHaveLength(CALLS_PER_RUN);
          for (const r of results) {
            if (!r.output.isError) outcomes.written++;
            else {
              outcomes.refused++;
              const why = EXPLAINED.findIndex((w) => w.test(r.output.content));
              if (why === -1) unexplained.push(r.output.content);
              else byReason[why]!++;
            }
          }
          // After every run, not only at the end; cleaned, so that a later run can be caught too.
          const extra = readdirSync(join(dir, ".git")).filter((name) => !before.includes(name));
          if (extra.length > 0) landed.push(`${mode} run ${run}: .git/${extra.join(", .git/")}`);
          for (const name of extra) rmSync(join(dir, ".git", name), { recursive: true, force: true });
        }
      }
    } finally {
      writeFileSync(join(dir, "stop-swapping"), "");
    }
    const swaps = await stopped;
    console.log(
      `write race: ${outcomes.written} written, ${outcomes.refused} refused (by reason ${byReason.join("/")}), ${swaps} swaps; ${unexplained.length} refusals unexplained; landed in .git in ${landed.length} of ${RUNS_PER_MODE * 2} runs`,
    );
    expect(landed).toEqual([]);
    expect(unexplained).toEqual([]);
    expect(readdirSync(join(dir, ".git")).sort()).toEqual(before);
  }, 240_000);
});
