/**
 * What a newcomer's trial (z, 2026-12-07: an open-source library's maintainer who uses Claude Code
 * daily — slash commands, skills, a subagent, `.mcp.json`, `claude -p` in a GitHub Action for issue
 * triage with stream-json, --allowedTools, --max-turns, --append-system-prompt — moves that workflow
 * to `ubiquity` and writes a third-party plugin, `ubiquity-plugin-triage` (a tool and a
 * `session.end` tap that appends a line to a log file its options name), used from a
 * `.ubiquityrc.json`; the packed package and the plugin's tarball in an empty project) met:
 * - the plugin's log, `"logFile": "triage.log"` in the JSON config, is a file the config names, so
 *   trust pins it with the config (it could be a script the config runs): the first run wrote it,
 *   and every run after skipped the config — and the plugin — saying only ".ubiquityrc.json
 *   (changed)", a file nobody had touched. The warning (and the trust question) now names the files
 *   pinned with it and why a log there keeps changing it; `ubiquity trust .` lists them too;
 * - the `$schema` line the config docs give (`./node_modules/ubiquity/schema/…`) pinned the schema
 *   file (and its folder) with the config: updating ubiquity took a trusted config out as
 *   "changed". A `$schema` member is an editor's and never run: what it names is not pinned;
 * - in a folder not yet trusted, the warning about `.claude/settings.json` said to "set compat:
 *   ["claude"] in the project's config", which the project's config did: it was skipped for want of
 *   trust. The warning now names that config and the trust step;
 * - the Action's step, `gh issue view 42 --json body | ubiquity -p "/triage 42"`, made the piped body
 *   part of the command's arguments: `$ARGUMENTS` was "42" and the whole `<stdin>` block, in the
 *   prose and in a ```` ```! ```` shell block (an issue's text in a command line; there bash stopped
 *   at the `<stdin>` line's syntax error, by luck). The arguments are now the typed ones; the piped
 *   text follows the expanded command, as it follows a prompt;
 * - docs/plugins.md's kernel hooks table said what each hook is for, not what a tap receives: the
 *   plugin's `session.end` tap took its argument order from the declarations (`turn.end` gets the
 *   turn first, `session.end` the run); from the table alone ("a run ended (gets the result)") a
 *   JavaScript tap `(result) => …` gets the run. The table has each hook's arguments, checked here
 *   against the hooks the kernel declares;
 * - a typo in the plugin's name in the config (`ubiquity-plugin-triag`) said "run `npm i
 *   ubiquity-plugin-triag`" — an install of a name nobody published, or someone else's — with the
 *   package meant installed beside it: the error now names the installed plugin package meant first;
 * - the plugin's `session.end` tap logged two lines for a run that called the `labeler` subagent:
 *   the session and turn hooks fire for each subagent's run too (`run.agent` set, the result the
 *   subagent's), which no page for plugin authors said. docs/plugins.md says so, with a tap that
 *   returns early on `run.agent`, run here as written;
 * - the plugin listed by its name alone (`"plugins": ["ubiquity-plugin-triage"]`, as a plugin without
 *   options is listed) failed "expected array, received undefined → at labels": the error
 *   now says it was listed without options and how a JSON or YAML config passes them.
 * The rest of the workflow ran as `claude -p` runs it: `/triage 42` expanded from
 * .claude/commands with its `allowed-tools`, the skill and the subagent, `.mcp.json`'s server,
 * `mcp__issues` as a server-wide --allowedTools rule, the deny rule of .claude/settings.json, and
 * `--message-format claude` lines a jq filter written for claude reads unchanged.
 */
import { execFile } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../loader/index";
import { createHooks } from "../../src/hooks";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { repoRoot, requireDist } from "../helpers/project";

/** The plugin package as its author's `tsc` emitted it from the trial's `src/index.ts` (what `npm pack` ships). */
const PLUGIN: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "ubiquity-plugin-triage",
    version: "1.0.0",
    type: "module",
    keywords: ["ubiquity-plugin"],
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
    files: ["dist"],
    peerDependencies: { ubiquity: "^0.1.0", zod: "^4" },
  }),
  "dist/index.js": `import { appendFileSync } from "node:fs";
import { definePlugin, defineTool } from "ubiquity/plugin";
import { z } from "zod";
const NAME = "ubiquity-plugin-triage";
export default definePlugin({
    name: NAME,
    factoryOptions: z.object({ labels: z.array(z.string()), logFile: z.string().optional() }),
    apply(kernel, context) {
        const { labels, logFile } = context.factoryOptions;
        const labelIssue = defineTool({
            name: "LabelIssue",
            description: \`Label a GitHub issue. Known labels: \${labels.join(", ")}\`,
            inputSchema: z.object({ issue: z.number(), label: z.string() }),
            execute: ({ issue, label }) => labels.includes(label) ? \`labelled #\${issue} as \${label}\` : \`unknown label \${label}\`,
        });
        kernel.registries.tools.register("LabelIssue", labelIssue, NAME);
        kernel.hooks.session.end.tap(NAME, (run, result) => {
            const line = JSON.stringify({ session: result.sessionId, turns: result.numTurns, ok: !result.isError });
            if (logFile) appendFileSync(logFile, \`\${line}\\n\`);
        });
    },
});
`,
  "dist/index.d.ts": `declare const _default: (options: { labels: string[]; logFile?: string | undefined }) => import("ubiquity/plugin").Plugin;
export default _default;
`,
};

let app: string | undefined;
/** The maintainer's project: the packed package, the plugin package, Claude Code's files and the JSON config. */
function project(): string {
  if (app) return app;
  const dir = tempDir("ubiquity-trial-z-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "mylib", private: true, type: "module" }));
  installPacked(dir);
  for (const [file, text] of Object.entries(PLUGIN)) {
    const path = join(dir, "node_modules", "ubiquity-plugin-triage", file);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  mkdirSync(join(dir, ".claude", "commands"), { recursive: true });
  writeFileSync(
    join(dir, ".claude", "commands", "triage.md"),
    "---\ndescription: Triage a GitHub issue\nallowed-tools: Bash(gh issue view:*), Bash(gh issue edit:*)\n---\nTriage issue #$ARGUMENTS: read it with `gh issue view $ARGUMENTS`, pick one label.\n",
  );
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  writeFileSync(join(dir, "CLAUDE.md"), "# mylib\nRun `npm test` before finishing.\n");
  // As docs/guide/config-files.md writes the `$schema` line, with the plugin as a `[specifier, options]` entry.
  writeFileSync(
    join(dir, ".ubiquityrc.json"),
    `${JSON.stringify(
      {
        $schema: "./node_modules/ubiquity/schema/ubiquity.config.schema.json",
        compat: ["claude"],
        plugins: [["ubiquity-plugin-triage", { labels: ["bug", "feature"], logFile: "triage.log" }]],
      },
      null,
      2,
    )}\n`,
  );
  app = dir;
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The bin the project installed, run without a terminal, in a folder trusted only as the store says. */
function ubiquity(
  args: string[],
  cwd: string,
  home: string,
  input = "",
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const bin = join(project(), "node_modules", "ubiquity", "bin", "ubiquity.mjs");
    const child = execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd,
        env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "", HOME: home, ...env },
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

beforeAll(() => requireDist());
afterAll(() => removePackedDirs());

describe("a JSON config listing a plugin whose options name its log file, in a folder trusted by its files", () => {
  it("says which named file changed, keeps the $schema file out of the pins, and names the skipped config", async () => {
    const dir = project();
    const home = tempDir("ubiquity-trial-z-home-");
    const hi = ["-p", "--model", "test", "hi"];
    const logLines = () => (existsSync(join(dir, "triage.log")) ? readFileSync(join(dir, "triage.log"), "utf8") : "");

    // Not trusted yet: the config that sets compat: ["claude"] is skipped, and the Claude Code warning says so.
    const first = await ubiquity(hi, dir, home);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      `the project's config .ubiquityrc.json, which may set compat: ["claude"], was not applied (the folder is not trusted`,
    );
    expect(first.stderr).not.toContain(`set compat: ["claude"] in the project's config`);
    expect(logLines()).toBe("");

    const trusted = await ubiquity(["trust", "."], dir, home);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).not.toContain("node_modules/ubiquity/schema");

    // `npm update ubiquity` rewrites the schema file the `$schema` line names: the config stays approved.
    appendFileSync(join(dir, "node_modules", "ubiquity", "schema", "ubiquity.config.schema.json"), "\n");
    const second = await ubiquity(hi, dir, home);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("changed");
    expect(logLines().trim().split("\n")).toHaveLength(1); // the plugin ran: its session.end tap wrote the log

    // The log the plugin wrote is a file the config names: the config is out until approved again, and the warning says why.
    const third = await ubiquity(hi, dir, home);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(".ubiquityrc.json (changed, or a file it names did: triage.log)");
    expect(third.stderr).toContain("a plugin's log named by its options — changes it at every run");
    expect(logLines().trim().split("\n")).toHaveLength(1);

    // `ubiquity trust .` lists what it approves with the config.
    const again = await ubiquity(["trust", "."], dir, home);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("its plugins and presets run as code; with the files it names: triage.log)");

    // The Action's step: the body piped in, the command's $ARGUMENTS the issue number alone.
    const piped = await ubiquity(
      ["-p", "--model", "test", "--output-format", "json", "/triage 42"],
      dir,
      home,
      "Crash on empty input; `touch pwned`\n",
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect((JSON.parse(piped.stdout) as { result: string }).result).toContain(
      "Triage issue #42: read it with `gh issue view 42`, pick one label.\n\n<stdin>\nCrash on empty input; `touch pwned`\n</stdin>",
    );
  });
});

describe("a plugin package listed in a JSON config with a typo, or without its required options", () => {
  it("names the installed plugin package meant, before any `npm i` of the typo, and how to pass options", async () => {
    const dir = project();
    writeFileSync(join(dir, "typo.json"), JSON.stringify({ plugins: ["ubiquity-plugin-triag"] }));
    await expect(loadConfig({ cwd: dir, configFile: "typo.json" })).rejects.toThrow(
      `plugins[0] "ubiquity-plugin-triag": package ubiquity-plugin-triag is not installed; did you mean "ubiquity-plugin-triage" (installed)? If not, run \`npm i ubiquity-plugin-triag\``,
    );
    // The right name, listed bare: its factory needs options, and the error says how a JSON config passes them.
    writeFileSync(join(dir, "bare.json"), JSON.stringify({ plugins: ["ubiquity-plugin-triage"] }));
    await expect(loadConfig({ cwd: dir, configFile: "bare.json" })).rejects.toThrow(
      /invalid options for plugin ubiquity-plugin-triage:[\s\S]*→ at labels \(listed without options: pass them as \["ubiquity-plugin-triage", \{ … \}\] in a JSON or YAML config\)$/,
    );
    // A name near no installed plugin package keeps the plain advice (not the `node` package for "ubiquity-plugin-nope").
    writeFileSync(join(dir, "nope.json"), JSON.stringify({ plugins: ["ubiquity-plugin-nope"] }));
    await expect(loadConfig({ cwd: dir, configFile: "nope.json" })).rejects.toThrow(
      /package ubiquity-plugin-nope is not installed; run `npm i ubiquity-plugin-nope`$/,
    );
  });
});

describe("docs/plugins.md's run log, a session.end tap beside a subagent", () => {
  it("logs the user's run once: the subagent's session.end is skipped as the docs write it", async () => {
    const dir = project();
    const doc = readFileSync(join(repoRoot, "docs", "plugins.md"), "utf8");
    const block = /```ts\n(import[^`]*?ubiquity-plugin-run-log[\s\S]*?)```/.exec(doc)?.[1];
    expect(block, "docs/plugins.md has no run-log example").toBeDefined();
    writeFileSync(join(dir, "run-log.ts"), block!);
    const log = join(tempDir("ubiquity-trial-z-log-"), "runs.jsonl");
    writeFileSync(
      join(dir, "run-log.config.mjs"),
      `import { defineConfig } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import runLog from "./run-log.ts";
export default defineConfig({
  agents: { labeler: { description: "Picks the label of an issue", prompt: "Answer with one label." } },
  plugins: [runLog({ file: ${JSON.stringify(log)} })],
  model: scriptedModel([
    { toolCalls: [{ toolName: "Agent", input: { subagent_type: "labeler", description: "label", prompt: "crash" } }] },
    { text: "bug" },
    { text: "labelled bug" },
  ]),
});
`,
    );
    const home = tempDir("ubiquity-trial-z-home-");
    const run = await ubiquity(["-p", "--config", "run-log.config.mjs", "label #42"], dir, home, "", {
      UBIQUITY_TRUST: "1",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("labelled bug");
    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { turns: number });
    expect(lines).toEqual([{ session: expect.any(String), turns: 2, ok: true }]);
  });
});

describe("docs/plugins.md's kernel hooks table", () => {
  it("gives each hook's tap arguments, in the order the kernel declares them", () => {
    const doc = readFileSync(join(repoRoot, "docs", "plugins.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `([\w.]+)` \| `\(([^`]*)\)` \|/gm)].map((m) => ({
      hook: m[1]!,
      args: [...m[2]!.matchAll(/(\w+):/g)].map((a) => a[1]),
    }));
    const declared: { hook: string; args: string[] }[] = [];
    // tapable keeps a hook's argument names in `_args` (the names src/hooks.ts gives each constructor).
    type Hook = { _args: string[] };
    for (const [group, hooks] of Object.entries(
      createHooks() as unknown as Record<string, Hook | Record<string, Hook>>,
    )) {
      if (Array.isArray(hooks._args)) declared.push({ hook: group, args: (hooks as Hook)._args });
      else
        for (const [name, hook] of Object.entries(hooks as Record<string, Hook>))
          declared.push({ hook: `${group}.${name}`, args: hook._args });
    }
    expect(rows).toEqual(declared);
  });
});
