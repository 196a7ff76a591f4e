/**
 * FileChanged and ConfigChange, fired as Claude Code fires them, through `summon()` with real
 * command hooks (shell scripts that append their stdin JSON to a log) and real files changed on
 * disk during the session. The changes are made by a tool of the run, which then waits (bounded
 * polling) until the hook's log shows what the test expects, so the session is still on.
 */
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools, defineTool, summon, type Options, type ToolContext } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin, { getHooksApi } from "ubiquity/plugins/hooks";
import settingsPlugin from "../../plugins/settings/index";
import { type FileEvent, FileWatch, MAX_WATCHED_PATHS } from "../../plugins/hooks/file-watch";
import { later, type SessionWatch } from "../../plugins/hooks/watch-events";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { SKIP } from "../sandbox/helpers";
import { capture, lines, script } from "../helpers/hook-scripts";

const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-watch-events-"));

/** Wait (bounded) until `condition` holds; throws naming `what` when it never does. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}`);
}

/** A hook that appends its stdin JSON (one line) to `log`, then prints `answer` (JSON) when given. */
function recorder(dir: string, log: string, answer?: unknown) {
  const name = `record-${Math.random().toString(36).slice(2)}.sh`;
  const tail = answer === undefined ? "" : `\nprintf '%s' '${JSON.stringify(answer)}'`;
  return { type: "command" as const, command: script(dir, name, `cat >> "${log}"; printf "\\n" >> "${log}"${tail}`) };
}

/** A tool whose one call runs `steps` (changes on disk, then waits on their outcome) and reports. */
function stepsTool(steps: (ctx: ToolContext) => Promise<void>) {
  return defineTool({
    name: "Steps",
    description: "Runs the test's steps.",
    inputSchema: z.object({}),
    execute: async (_input, ctx) => {
      try {
        await steps(ctx);
        return "steps done";
      } catch (error) {
        return { content: String(error), isError: true };
      }
    },
  });
}

async function session(
  cwd: string,
  steps: (ctx: ToolContext) => Promise<void>,
  options: Options,
  plugins: unknown[] = [hooksPlugin()],
) {
  const model = scriptedModel([{ toolCalls: [{ toolName: "Steps", input: {}, id: "s" }] }, "done"]);
  const messages = await collect(
    summon("go", { presets: [], plugins: plugins as never, model, tools: [stepsTool(steps)], cwd, ...options }),
  );
  expect(resultOf(messages).isError).toBe(false);
  return ofType(messages, "tool_result")[0]!.output.content;
}

describe("FileChanged", () => {
  it("watches its matcher's file names in the working folder: add, change, unlink, with file_path and event", async () => {
    const cwd = temp();
    const log = join(cwd, "log.jsonl");
    const envrc = join(cwd, ".envrc");
    const said = await session(
      cwd,
      async () => {
        writeFileSync(envrc, "export A=1\n");
        await until(() => lines(log).length === 1, "the add");
        writeFileSync(envrc, "export A=2\n");
        await until(() => lines(log).length === 2, "the change");
        rmSync(envrc);
        await until(() => lines(log).length === 3, "the unlink");
      },
      { hooks: { FileChanged: [{ matcher: ".envrc|.env", hooks: [recorder(cwd, log)] }] } },
    );
    expect(said).toBe("steps done");
    const got = lines(log);
    expect(got.map((l) => l.event)).toEqual(["add", "change", "unlink"]);
    for (const line of got) {
      expect(line).toMatchObject({ hook_event_name: "FileChanged", file_path: envrc, cwd });
      expect(typeof line.session_id).toBe("string");
    }
  });

  it("runs only the groups whose matcher selects the changed file's name", async () => {
    const cwd = temp();
    const envLog = join(cwd, "env.jsonl");
    const pkgLog = join(cwd, "pkg.jsonl");
    await session(
      cwd,
      async () => {
        writeFileSync(join(cwd, ".envrc"), "x");
        await until(() => lines(envLog).length === 1, "the .envrc hook");
        writeFileSync(join(cwd, "package.json"), "{}");
        await until(() => lines(pkgLog).length === 1, "the package.json hook");
      },
      {
        hooks: {
          FileChanged: [
            { matcher: ".envrc", hooks: [recorder(cwd, envLog)] },
            { matcher: "package.json", hooks: [recorder(cwd, pkgLog)] },
          ],
        },
      },
    );
    // The groups run in order for each change: had .envrc's group run for package.json, its log would have two lines.
    expect(lines(envLog).map((l) => l.file_path)).toEqual([join(cwd, ".envrc")]);
    expect(lines(pkgLog).map((l) => l.file_path)).toEqual([join(cwd, "package.json")]);
  });

  it("watches SessionStart's watchPaths; a FileChanged answer's watchPaths replaces that list", async () => {
    const cwd = temp();
    const elsewhere = temp();
    const log = join(cwd, "log.jsonl");
    const [a, b] = [join(elsewhere, "a.txt"), join(elsewhere, "b.txt")];
    const sync = join(cwd, "sync");
    const start = recorder(cwd, join(cwd, "start.jsonl"), {
      hookSpecificOutput: { hookEventName: "SessionStart", watchPaths: [a] },
    });
    await session(
      cwd,
      async () => {
        writeFileSync(a, "1");
        await until(() => lines(log).length === 1, "a.txt's change");
        // Changes are taken one at a time: `sync`'s hook runs once a.txt's answer ([b.txt]) was applied.
        writeFileSync(sync, "1");
        await until(() => lines(log).length === 2, "sync's change");
        // a.txt is no longer watched, b.txt is (had a.txt been, its change would come first).
        writeFileSync(a, "2");
        writeFileSync(b, "1");
        await until(() => lines(log).length >= 3, "b.txt's change");
      },
      {
        hooks: {
          SessionStart: [{ hooks: [start] }],
          FileChanged: [
            { hooks: [recorder(cwd, log, { hookSpecificOutput: { hookEventName: "FileChanged", watchPaths: [b] } })] },
            { matcher: "sync", hooks: [{ type: "command", command: "true" }] },
          ],
        },
      },
    );
    expect(lines(log).map((l) => [l.file_path, l.event])).toEqual([
      [a, "add"],
      [sync, "add"],
      [b, "add"],
    ]);
  });

  it("takes the watchPaths of a SessionStart fired through the API after a compaction", async () => {
    const cwd = temp();
    const log = join(cwd, "log.jsonl");
    const c = join(temp(), "c.txt");
    const compact = recorder(cwd, join(cwd, "start.jsonl"), {
      hookSpecificOutput: { hookEventName: "SessionStart", watchPaths: [c] },
    });
    await session(
      cwd,
      async (ctx) => {
        // What the compaction plugin does once a summary replaced the history.
        await getHooksApi(ctx.run!.kernel)!.fire("SessionStart", ctx.run!, { extra: { source: "compact" } });
        writeFileSync(c, "1");
        await until(() => lines(log).length === 1, "c.txt's change");
      },
      {
        hooks: {
          SessionStart: [{ matcher: "compact", hooks: [compact] }],
          FileChanged: [{ hooks: [recorder(cwd, log)] }],
        },
      },
    );
    expect(lines(join(cwd, "start.jsonl")).map((l) => l.source)).toEqual(["compact"]);
    expect(lines(log).map((l) => [l.file_path, l.event])).toEqual([[c, "add"]]);
  });

  for (const sandbox of [false, true])
    it.skipIf(sandbox && SKIP)(
      `has no decision control: exit 2 is told to the user, the run goes on; CLAUDE_ENV_FILE lines reach later Bash commands (sandbox ${sandbox ? "on" : "off"})`,
      async () => {
        const cwd = temp();
        const log = join(cwd, "log.jsonl");
        const watched = join(cwd, "watched");
        const { warnings, logger } = capture();
        const hook = script(
          cwd,
          "deny.sh",
          `cat >> "${log}"; printf "\\n" >> "${log}"; echo 'export FROM_HOOK=yes' >> "$CLAUDE_ENV_FILE"; echo "not this file" >&2; exit 2`,
        );
        const steps = stepsTool(async () => {
          writeFileSync(watched, "1");
          await until(() => lines(log).length === 1, "the first change's hook");
          // Changes are taken one at a time: the second's hook starts once the first's answer was applied.
          writeFileSync(watched, "2");
          await until(() => lines(log).length === 2, "the second change's hook");
        });
        const bash = builtinTools().find((t) => t.name === "Bash")!;
        const model = scriptedModel([
          { toolCalls: [{ toolName: "Steps", input: {}, id: "s" }] },
          { toolCalls: [{ toolName: "Bash", input: { command: 'echo "v=$FROM_HOOK"' }, id: "b" }] },
          "done",
        ]);
        const messages = await collect(
          summon("go", {
            model,
            cwd,
            logger,
            tools: [steps, bash],
            canUseTool: async () => ({ behavior: "allow" }),
            sandbox,
            persistSession: false,
            marketPricing: false,
            hooks: { FileChanged: [{ matcher: "watched", hooks: [{ type: "command", command: hook }] }] },
          }),
        );
        expect(resultOf(messages).isError).toBe(false);
        const [said, echoed] = ofType(messages, "tool_result").map((m) => m.output.content);
        expect(said).toBe("steps done");
        expect(echoed).toContain("v=yes");
        expect(warnings.find((w) => w.includes("not this file"))).toContain(watched);
      },
    );

  it("is one of the events fired: a settings file using it gets no 'not fired' note", async () => {
    const cwd = temp();
    const log = join(cwd, "log.jsonl");
    mkdirSync(join(cwd, ".claude"));
    writeFileSync(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({ hooks: { FileChanged: [{ matcher: ".env", hooks: [recorder(cwd, log)] }] } }),
    );
    const { warnings, logger } = capture();
    await session(
      cwd,
      async () => {
        writeFileSync(join(cwd, ".env"), "A=1");
        await until(() => lines(log).length === 1, "the settings file's hook");
      },
      { logger, compat: ["claude"], settingSources: ["project"] },
      [settingsPlugin(), hooksPlugin()],
    );
    expect(lines(log)[0]).toMatchObject({ hook_event_name: "FileChanged", event: "add" });
    expect(warnings.join("\n")).not.toContain('"FileChanged"');
  });
});

describe("ConfigChange", () => {
  it("fires for a settings file of the session changed on disk, matched on its source; a block is reported", async () => {
    const cwd = temp();
    const log = join(cwd, "log.jsonl");
    const other = join(cwd, "other.jsonl");
    const settings = join(cwd, ".ubiquity", "settings.json");
    mkdirSync(join(cwd, ".ubiquity"));
    const deny = script(cwd, "deny.sh", `cat >> "${log}"; printf "\\n" >> "${log}"; echo "needs review" >&2; exit 2`);
    const hooks = {
      ConfigChange: [
        { matcher: "user_settings", hooks: [recorder(cwd, other)] },
        { matcher: "project_settings", hooks: [{ type: "command", command: deny }] },
      ],
    };
    writeFileSync(settings, JSON.stringify({ hooks }));
    const { warnings, logger } = capture();
    await session(
      cwd,
      async () => {
        writeFileSync(settings, JSON.stringify({ hooks, permissions: { allow: ["Bash"] } }));
        await until(() => warnings.some((w) => w.includes("needs review")), "the ConfigChange hook's block");
      },
      { logger, settingSources: ["project"] },
      [settingsPlugin(), hooksPlugin()],
    );
    expect(lines(log)).toEqual([
      expect.objectContaining({ hook_event_name: "ConfigChange", source: "project_settings", file_path: settings }),
    ]);
    expect(lines(other)).toEqual([]);
    expect(warnings.find((w) => w.includes("needs review"))).toContain(`blocked the change to ${settings}`);
  });
  it("fires for a settings file of an enabled source created during the session (event add)", async () => {
    const cwd = temp();
    const log = join(cwd, "log.jsonl");
    const local = join(cwd, ".ubiquity", "settings.local.json");
    mkdirSync(join(cwd, ".ubiquity"));
    writeFileSync(
      join(cwd, ".ubiquity", "settings.json"),
      JSON.stringify({ hooks: { ConfigChange: [{ matcher: "local_settings", hooks: [recorder(cwd, log)] }] } }),
    );
    await session(
      cwd,
      async () => {
        writeFileSync(local, JSON.stringify({ permissions: { allow: ["Read"] } }));
        await until(() => lines(log).length === 1, "the ConfigChange hook");
      },
      { settingSources: ["project", "local"] },
      [settingsPlugin(), hooksPlugin()],
    );
    expect(lines(log)[0]).toMatchObject({
      hook_event_name: "ConfigChange",
      source: "local_settings",
      file_path: local,
    });
  });
});

describe("the watcher", () => {
  it("skips relative paths and paths past its bound, saying so", () => {
    const dir = temp();
    const warnings: string[] = [];
    const watch = new FileWatch(
      () => {},
      (m) => warnings.push(m),
    );
    try {
      const many = Array.from({ length: MAX_WATCHED_PATHS + 5 }, (_, i) => join(dir, `f${i}`));
      watch.set(["relative.txt", ...many]);
      expect(watch.paths).toHaveLength(MAX_WATCHED_PATHS);
      expect(warnings[0]).toContain('"relative.txt" is not an absolute path');
      expect(warnings[1]).toContain(`more than ${MAX_WATCHED_PATHS} paths`);
    } finally {
      watch.close();
    }
    expect(watch.paths).toEqual([]);
  });

  it("queues a file's change once while it waits: the waiting one reports what happened last", async () => {
    const watching: SessionWatch = { fixed: [], dynamic: [], queue: Promise.resolve(), waiting: new Map() };
    const fired: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const fire = (name: string) => async (event: FileEvent) => {
      fired.push(`${name} ${event}`);
      if (fired.length === 1) await held;
    };
    later(watching, "file:a", "add", fire("a"));
    await until(() => fired.length === 1, "a's first hook");
    // a's first hook runs; three more changes of a, one of b, while it does.
    later(watching, "file:a", "change", fire("a"));
    later(watching, "file:b", "add", fire("b"));
    later(watching, "file:a", "change", fire("a"));
    later(watching, "file:a", "unlink", fire("a"));
    release();
    await watching.queue;
    expect(fired).toEqual(["a add", "a unlink", "b add"]);
  });

  it("drops the changes still waiting when the session ends; the hook under way finishes", async () => {
    const watching: SessionWatch = { fixed: [], dynamic: [], queue: Promise.resolve(), waiting: new Map() };
    const fired: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let finished = false;
    later(watching, "file:a", "add", async () => {
      fired.push("a");
      await held;
      finished = true;
    });
    await until(() => fired.length === 1, "a's hook");
    later(watching, "file:b", "add", async () => void fired.push("b"));
    watching.closed = true; // what stopWatching does first
    release();
    await watching.queue;
    expect(finished).toBe(true);
    expect(fired).toEqual(["a"]);
  });

  it("never keeps the process alive", async () => {
    const dir = temp();
    const module = fileURLToPath(new URL("../../plugins/hooks/file-watch.ts", import.meta.url));
    const program = join(dir, "main.ts");
    writeFileSync(
      program,
      `import { FileWatch } from ${JSON.stringify(module)};\nnew FileWatch(() => {}, () => {}).set([${JSON.stringify(join(dir, "x"))}]);\nconsole.log("watching");\n`,
    );
    const jiti = fileURLToPath(new URL("../../node_modules/jiti/lib/jiti-cli.mjs", import.meta.url));
    const child = spawn(process.execPath, [jiti, program], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    let code: number | null | undefined;
    child.on("exit", (c) => (code = c));
    try {
      await until(() => code !== undefined, "the process's exit");
    } finally {
      child.kill("SIGKILL");
    }
    expect(out).toContain("watching");
    expect(code).toBe(0);
  });
});
