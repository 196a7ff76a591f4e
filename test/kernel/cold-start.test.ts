/**
 * What a cold process loads (issue 26): `import "ubiquity"` and a plain run must not load the
 * heavy parts a run may never need — the MCP SDK, the bash parser (web-tree-sitter and its
 * wasm), the config loaders (cosmiconfig, jiti, yaml), price data, ajv, provider packages, node's
 * HTTP client. Each
 * case runs the built package in a child process whose `--import` hook records the URL of every
 * module it loads; the positive cases show the hook sees those parts once they are needed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../helpers/temp-dirs";

const repo = resolve(import.meta.dirname, "../..");
const dist = (path: string) => pathToFileURL(join(repo, "dist", path)).href;
const bin = join(repo, "bin", "ubiquity.mjs");

/** Module-name patterns of the parts that load only on need. */
const HEAVY: Record<string, RegExp> = {
  // The client package (and its core) or the whole SDK: any of them is the MCP SDK loading.
  "MCP SDK": /node_modules\/@modelcontextprotocol\/(client|core|sdk)\//,
  "bash parser": /node_modules\/(web-tree-sitter|tree-sitter-bash)\//,
  cosmiconfig: /node_modules\/cosmiconfig\//,
  jiti: /node_modules\/jiti\//,
  yaml: /node_modules\/yaml\//,
  "TOML parser": /node_modules\/smol-toml\//,
  "price data": /node_modules\/@pydantic\/genai-prices\//,
  // ajv as a package, or the copy bundled in the MCP client package (its validator chunk).
  ajv: /node_modules\/(ajv|ajv-formats)\/|node_modules\/@modelcontextprotocol\/client\/dist\/(validators\/ajv|ajvProvider-)/,
  // WebFetch's converters: the first HTML page or PDF fetched.
  "page converters": /node_modules\/(node-html-markdown|node-html-parser|unpdf)\//,
  "a provider package": /node_modules\/(@ai-sdk\/(?!gateway\/|provider\/|provider-utils\/)|@openrouter\/)/,
  // The terminal UI and its approval view: `ubiquity chat` and a terminal's first question only.
  "terminal UI": /\/dist\/chunks\/(tui|approval-view)\.mjs$/,
  // The glob matchers (through the lazy kit): a permission rule, a hook matcher, a scoped rule or a walk that needs one.
  "glob matchers": /node_modules\/(micromatch|braces|picomatch|tinyglobby|fdir)\//,
  // Node's HTTP client (an ESM import of node:http loads node's whole fetch stack): WebFetch's first page, the sandbox's proxy.
  "node's http stack": /^node:https?$/,
  // Plugins' implementations behind `lazyImport` (the lazy kit): loaded by the first hook they serve.
  "hook dispatcher": /\/dist\/chunks\/dispatch\.mjs$/,
  // The fleet's commands' work (the preset lists the plugin for its `fleet` and `worker` commands only).
  "fleet commands": /\/dist\/chunks\/fleet-command\.mjs$/,
  // `ubiquity sessions`' listing and ATIF export (the command's flags are listed without them).
  "sessions commands": /\/dist\/chunks\/sessions-command\.mjs$/,
  // The telemetry plugin's span code: its taps are inert until `telemetry` is set.
  "telemetry spans": /\/dist\/chunks\/span-steps\.mjs$/,
  // The reviewer plugin's reviewers: the first call that goes to review.
  reviewer: /\/dist\/chunks\/reviewer-steps\.mjs$/,
  // What WebFetch's and WebSearch's calls do (their definitions are listed at start without it).
  "WebFetch's call": /\/dist\/chunks\/web-fetch-call\.mjs$/,
  "WebSearch's call": /\/dist\/chunks\/web-search-call\.mjs$/,
  // The structured-output plugin's steps: a run with an \`outputSchema\` only.
  "structured output": /\/dist\/chunks\/answer-steps\.mjs$/,
  // What an Agent call does (the launch, the delegation with its worktrees, background agents): the first call.
  "Agent's call": /\/dist\/chunks\/(launch|delegate|background)\.mjs$/,
  // The SendMessage tool: registered with the Agent tool, when agents are configured.
  SendMessage: /\/dist\/chunks\/send-message\.mjs$/,
  // The terminal's answers to an MCP server's elicitation: loaded with the servers' client code.
  "MCP elicitation": /\/dist\/chunks\/elicitation\.mjs$/,
  // What \`ubiquity plugin add | list | remove\` does (the command's usage is listed without it).
  "plugin command": /\/dist\/chunks\/plugin-command\.mjs$/,
  // What \`ubiquity rewind\` does (its flags are listed without it).
  "rewind command": /\/dist\/chunks\/rewind-command\.mjs$/,
  // What \`ubiquity mcp list | login | logout | add\` does (the command and its flags are listed without it).
  "mcp command": /\/dist\/chunks\/mcp-command\.mjs$/,
  // The checkpoints' shadow store (git, its objects, retention): a run's first snapshot.
  "checkpoint store": /\/dist\/chunks\/store\.mjs$/,
  // listCheckpoints, rewindFiles, rewindConversation: their first call.
  "checkpoint functions": /\/dist\/chunks\/api\.mjs$/,
  // What a Bash call runs a command with (the shell process, its output, background shells).
  "Bash's process code": /\/dist\/chunks\/shell-code\.mjs$/,
  // apply_patch's writes (the hunks matched, the files written or rolled back): its first call.
  "apply_patch's writes": /\/dist\/chunks\/apply-patch-call\.mjs$/,
};

// Records every module the process loads (ESM and CommonJS alike), written out at exit.
const HOOK = `
import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const urls = [];
registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.LOADED_OUT, JSON.stringify(urls)));
`;

const temp = tempDirs();

/** Run `args` under this Node with the recording hook in `cwd`; the URLs of the modules it loaded. */
function loadedBy(args: string[], cwd: string, home: string, status = 0, vars: Record<string, string> = {}): string[] {
  const hook = join(home, "record-loads.mjs");
  const out = join(home, "loaded.json");
  writeFileSync(hook, HOOK);
  const child = spawnSync(process.execPath, ["--import", pathToFileURL(hook).href, ...args], {
    cwd,
    // The suite's V8 compile cache (vitest.config.ts): it keeps compiled code, never changes which
    // modules load, and spares each child compiling the package again in its fresh HOME.
    env: {
      PATH: process.env.PATH,
      HOME: home,
      USERPROFILE: home,
      LOADED_OUT: out,
      TERM: "dumb",
      ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
      ...vars,
    },
    encoding: "utf8",
    timeout: 240_000,
  });
  expect(child.status, `${child.stderr}\n${child.stdout}`).toBe(status);
  return JSON.parse(readFileSync(out, "utf8")) as string[];
}

/** The heavy parts among `urls`, by name. */
function heavyIn(urls: string[]): string[] {
  return Object.entries(HEAVY)
    .filter(([, pattern]) => urls.some((url) => pattern.test(url)))
    .map(([name]) => name);
}

describe("cold start: what loads", () => {
  it('import "ubiquity" loads none of the heavy parts and writes nothing', () => {
    const home = temp();
    const urls = loadedBy(
      ["--input-type=module", "-e", `await import(${JSON.stringify(dist("sdk/index.mjs"))});`],
      temp(),
      home,
    );
    expect(urls.some((url) => url.endsWith("/dist/sdk/index.mjs"))).toBe(true);
    expect(heavyIn(urls)).toEqual([]);
    expect(readdirSync(home).sort()).toEqual(["loaded.json", "record-loads.mjs"]);
  });

  it("a summon() run with the test model and no tool call loads none of them either", () => {
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
for await (const m of summon("hi", { model: "test" })) if (m.type === "result" && m.isError) throw new Error(m.result);`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(urls.some((url) => url.includes("/dist/presets/default.mjs"))).toBe(true);
    expect(heavyIn(urls)).toEqual([]);
  });

  it("ubiquity run --model test through the bin, in a project without a config, loads none of them", () => {
    const urls = loadedBy([bin, "run", "--model", "test", "hi"], temp(), temp());
    expect(urls.some((url) => url.endsWith("/dist/runner/cli.mjs"))).toBe(true);
    expect(heavyIn(urls)).toEqual([]);
  });

  it("ubiquity --version answers from the manifest: no module of the runner loads", () => {
    const urls = loadedBy([bin, "--version"], temp(), temp());
    expect(urls.some((url) => url.endsWith("/bin/ubiquity.mjs"))).toBe(true);
    expect(urls.filter((url) => url.includes("/dist/") || url.includes("/node_modules/"))).toEqual([]);
  });

  it("the config loaders load when there is a config file to load", () => {
    const project = temp();
    writeFileSync(join(project, ".ubiquityrc.yaml"), "maxTurns: 3\n");
    const urls = loadedBy([bin, "run", "--trust", "--model", "test", "hi"], project, temp());
    expect(heavyIn(urls)).toEqual(["cosmiconfig", "yaml"]);
  });

  it("an ES module config is imported as Node imports it, a TypeScript one stripped of its types by Node (jiti stays unloaded); one Node cannot strip goes through jiti", () => {
    const project = temp();
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "p", private: true, type: "module" }));
    writeFileSync(join(project, "ubiquity.config.js"), "export default { maxTurns: 3 };\n");
    const esm = loadedBy([bin, "run", "--trust", "--model", "test", "hi"], project, temp());
    expect(esm.some((url) => url.endsWith("/ubiquity.config.js"))).toBe(true);
    expect(heavyIn(esm)).toEqual(["cosmiconfig"]);
    rmSync(join(project, "ubiquity.config.js"));
    writeFileSync(
      join(project, "ubiquity.config.ts"),
      "const turns: number = 3;\nexport default { maxTurns: turns };\n",
    );
    expect(heavyIn(loadedBy([bin, "run", "--trust", "--model", "test", "hi"], project, temp()))).toEqual([
      "cosmiconfig",
    ]);
    // An enum is TypeScript a stripper cannot erase: jiti compiles it.
    writeFileSync(
      join(project, "ubiquity.config.ts"),
      "enum Turns { Few = 3 }\nexport default { maxTurns: Turns.Few };\n",
    );
    expect(heavyIn(loadedBy([bin, "run", "--trust", "--model", "test", "hi"], project, temp()))).toEqual([
      "cosmiconfig",
      "jiti",
    ]);
  });

  it("the TOML parser loads when there is a Codex config.toml to read (--compat codex)", () => {
    const home = temp();
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "config.toml"), 'model_reasoning_effort = "low"\n');
    const urls = loadedBy([bin, "run", "--compat", "codex", "--model", "test", "hi"], temp(), home);
    expect(heavyIn(urls)).toEqual(["TOML parser"]);
  });

  it("the MCP SDK loads when a server is configured (its validator with it)", () => {
    // The server exits at once: the run goes on without it, but the client was needed to try.
    const servers = { gone: { command: process.execPath, args: ["-e", ""] } };
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
for await (const m of summon("hi", { model: "test", mcpServers: ${JSON.stringify(servers)} })) if (m.type === "result" && m.isError) throw new Error(m.result);`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(urls.some((url) => /node_modules\/@modelcontextprotocol\/client\//.test(url))).toBe(true);
    // The full SDK is a devDependency (the tests' servers): a run never loads it.
    expect(urls.filter((url) => /node_modules\/@modelcontextprotocol\/sdk\//.test(url))).toEqual([]);
    // The server's spawn is the sandbox's first: its secret-name walk matches names with picomatch.
    expect(heavyIn(urls)).toEqual(["MCP SDK", "ajv", "glob matchers", "MCP elicitation"]);
  });

  it("the JSON Schema validator loads when the output schema is a JSON Schema", () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
import { scriptedModel } from ${JSON.stringify(dist("src/testing/index.mjs"))};
const model = scriptedModel([{ toolCalls: [{ toolName: "StructuredOutput", input: { n: 1 } }] }]);
for await (const m of summon("hi", { model, outputSchema: ${JSON.stringify(schema)} })) if (m.type === "result" && m.isError) throw new Error(m.result);`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(urls.some((url) => /node_modules\/@modelcontextprotocol\/client\/dist\/validators\/ajv/.test(url))).toBe(
      true,
    );
    expect(urls.filter((url) => /node_modules\/@modelcontextprotocol\/sdk\//.test(url))).toEqual([]);
    // The program's own import of the testing module (the scripted model) brings node:http (its fake servers).
    expect(heavyIn(urls).filter((name) => name !== "node's http stack")).toEqual([
      "MCP SDK",
      "ajv",
      "structured output",
    ]);
  });

  it("the hook dispatcher loads when a configured hook first fires", () => {
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
let fired = false;
const hooks = { UserPromptSubmit: [{ hooks: [async () => { fired = true; return {}; }] }] };
for await (const m of summon("hi", { model: "test", hooks })) if (m.type === "result" && m.isError) throw new Error(m.result);
if (!fired) throw new Error("the hook did not fire");`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(heavyIn(urls)).toEqual(["hook dispatcher"]);
  });

  it("the fleet's command code loads when a fleet command runs, not before", () => {
    // `ubiquity fleet --help` is answered from the command's flags alone.
    expect(heavyIn(loadedBy([bin, "fleet", "--help"], temp(), temp()))).toEqual([]);
    // Without a store the command stops with a usage error (2), after its code has loaded to say so.
    const urls = loadedBy([bin, "fleet", "status"], temp(), temp(), 2);
    expect(heavyIn(urls)).toEqual(["fleet commands"]);
  });

  it("the plugin command's code loads when it runs, not for its help", () => {
    expect(heavyIn(loadedBy([bin, "plugin", "--help"], temp(), temp()))).toEqual([]);
    expect(heavyIn(loadedBy([bin, "plugin", "list"], temp(), temp()))).toEqual(["plugin command"]);
  });

  it("the rewind command's code loads when it runs, not for its help", () => {
    expect(heavyIn(loadedBy([bin, "rewind", "--help"], temp(), temp()))).toEqual([]);
    // No stored session: a usage error (2), after its code has loaded to say so.
    expect(heavyIn(loadedBy([bin, "rewind"], temp(), temp(), 2))).toEqual([
      "rewind command",
      "checkpoint store",
      "checkpoint functions",
    ]);
  });

  it("the mcp command's code loads when it runs, not for its help", () => {
    expect(heavyIn(loadedBy([bin, "mcp", "--help"], temp(), temp()))).toEqual([]);
    // \`mcp remove\` is not a command here: a usage error (2), after its code has loaded to say so.
    expect(heavyIn(loadedBy([bin, "mcp", "remove", "fs"], temp(), temp(), 2))).toEqual(["mcp command"]);
  });

  it("the checkpoint store loads with a run's first snapshot, the checkpoint functions on their first call", () => {
    const program = `import { join } from "node:path";
import { summon, listCheckpoints } from ${JSON.stringify(dist("sdk/index.mjs"))};
import { scriptedModel } from ${JSON.stringify(dist("src/testing/index.mjs"))};
const model = scriptedModel([{ toolCalls: [{ toolName: "Write", input: { file_path: join(process.cwd(), "a.txt"), content: "x" } }] }, "done"]);
let sessionId;
for await (const m of summon("hi", { model, permissionMode: "bypassPermissions", checkpoints: true })) {
  if (m.type === "result" && m.isError) throw new Error(m.result);
  sessionId = m.sessionId;
}
if (process.env.LIST) { const found = await listCheckpoints(sessionId, { cwd: process.cwd() }); if (found.length !== 1) throw new Error(JSON.stringify(found)); }`;
    const wrote = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(heavyIn(wrote).filter((name) => name !== "node's http stack")).toEqual(["checkpoint store"]);
    const listed = loadedBy(["--input-type=module", "-e", program], temp(), temp(), 0, { LIST: "1" });
    expect(heavyIn(listed).filter((name) => name !== "node's http stack")).toEqual([
      "checkpoint store",
      "checkpoint functions",
    ]);
  });

  it("Bash's process code loads with the first command, apply_patch's writes with the first patch", () => {
    const program = `import { join } from "node:path";
import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
import { scriptedModel } from ${JSON.stringify(dist("src/testing/index.mjs"))};
const patch = ["*** Begin Patch", "*** Add File: " + join(process.cwd(), "a.txt"), "+x", "*** End Patch", ""].join("\\n");
const model = scriptedModel([{ toolCalls: [
  { toolName: "Bash", input: { command: "echo hi" } },
  { toolName: "apply_patch", input: { input: patch } },
] }, "done"]);
const seen = [];
for await (const m of summon("hi", { model, permissionMode: "bypassPermissions", toolProfile: false }))
  if (m.type === "tool_result") seen.push(m.output.content);
if (!seen[0]?.includes("hi") || !seen[1]?.startsWith("Applied the patch")) throw new Error(JSON.stringify(seen));`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(heavyIn(urls)).toEqual(expect.arrayContaining(["Bash's process code", "apply_patch's writes"]));
  });

  it("SendMessage loads when agents are configured, an Agent call's code on the first call", () => {
    const agents = { checker: { description: "Checks things", prompt: "Check what you are asked.", tools: ["Read"] } };
    const configured = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
for await (const m of summon("hi", { model: "test", agents: ${JSON.stringify(agents)} })) if (m.type === "result" && m.isError) throw new Error(m.result);`;
    expect(heavyIn(loadedBy(["--input-type=module", "-e", configured], temp(), temp()))).toEqual(["SendMessage"]);
    // The parent calls Agent, the subagent answers, the parent ends.
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
import { scriptedModel } from ${JSON.stringify(dist("src/testing/index.mjs"))};
const model = scriptedModel([
  { toolCalls: [{ toolName: "Agent", input: { subagent_type: "checker", description: "check it", prompt: "Check it." } }] },
  "checked",
  "done",
]);
const seen = [];
for await (const m of summon("hi", { model, agents: ${JSON.stringify(agents)} }))
  if (m.type === "tool_result") seen.push(m.output.content);
if (seen[0] !== "checked") throw new Error(JSON.stringify(seen));`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    // The program's own import of the testing module (the scripted model) brings node:http (its fake servers).
    expect(heavyIn(urls).filter((name) => name !== "node's http stack")).toEqual(["Agent's call", "SendMessage"]);
  });

  it("the sessions command's code loads when it lists sessions", () => {
    expect(heavyIn(loadedBy([bin, "sessions", "list"], temp(), temp()))).toEqual(["sessions commands"]);
  });

  it("the telemetry plugin's span code loads when telemetry is on", () => {
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
for await (const m of summon("hi", { model: "test", telemetry: true })) if (m.type === "result" && m.isError) throw new Error(m.result);`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(urls.some((url) => /node_modules\/@opentelemetry\/api\//.test(url))).toBe(true);
    // The AI SDK's OpenTelemetry integration (@ai-sdk/otel) loads with it; it is no provider package.
    const otel = (url: string) => /node_modules\/@ai-sdk\/otel\//.test(url);
    expect(urls.some(otel)).toBe(true);
    expect(heavyIn(urls.filter((url) => !otel(url)))).toEqual(["telemetry spans"]);
  });

  it("the reviewer's code loads when a call first goes to review", () => {
    const program = `import { join } from "node:path";
import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
import { scriptedModel } from ${JSON.stringify(dist("src/testing/index.mjs"))};
const model = scriptedModel([{ toolCalls: [{ toolName: "Write", input: { file_path: join(process.cwd(), "a.txt"), content: "x" } }] }, "done"]);
let reviewed = 0;
const reviewer = () => (reviewed++, { behavior: "allow" });
for await (const m of summon("hi", { model, reviewer })) if (m.type === "result" && m.isError) throw new Error(m.result);
if (reviewed !== 1) throw new Error("reviewed " + reviewed + " calls");`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    // The program's own import of the testing module (the scripted model) brings node:http (its fake servers).
    expect(heavyIn(urls).filter((name) => name !== "node's http stack")).toEqual(["reviewer"]);
  });

  it("WebFetch's and WebSearch's call code loads on their first call", () => {
    // A private address without allowPrivateAddresses, a backend with nothing listening: both
    // calls end in an error result, after their code has loaded to say so.
    const program = `import { summon } from ${JSON.stringify(dist("sdk/index.mjs"))};
import { scriptedModel } from ${JSON.stringify(dist("src/testing/index.mjs"))};
const model = scriptedModel([{ toolCalls: [
  { toolName: "WebFetch", input: { url: "http://127.0.0.1:9/" } },
  { toolName: "WebSearch", input: { query: "cold start" } },
] }, "done"]);
const webSearch = { backend: { type: "searxng", url: "http://127.0.0.1:9" } };
const seen = [];
for await (const m of summon("hi", { model, webSearch, allowedTools: ["WebFetch", "WebSearch"] }))
  if (m.type === "tool_result") seen.push(m.output.content);
// The two calls run at once: their results come in the order they end.
if (!seen.some((s) => s.includes("WebFetch: ")) || !seen.some((s) => s.includes("WebSearch: "))) throw new Error(JSON.stringify(seen));`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    // The testing module brings node:http (its fake servers); the search backend's fetch, node's fetch stack.
    expect(heavyIn(urls).filter((name) => name !== "node's http stack")).toEqual([
      "WebFetch's call",
      "WebSearch's call",
    ]);
  });

  it("the bash parser loads when the first shell command is judged", () => {
    const program = `import { decidePermission } from ${JSON.stringify(dist("plugins/permissions/public.mjs"))};
const verdict = await decidePermission({ toolName: "Bash", input: { command: "git status && rm -rf /" }, rules: { allow: ["Bash(git status:*)"] } });
if (verdict.behavior !== "ask") throw new Error(JSON.stringify(verdict));`;
    const urls = loadedBy(["--input-type=module", "-e", program], temp(), temp());
    expect(heavyIn(urls)).toEqual(["bash parser"]);
  });
});

/** V8's tiering trace of `args` run under this Node in `cwd` (`--trace-opt` writes to stdout). */
function tieringTrace(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const home = temp();
  const child = spawnSync(process.execPath, ["--trace-opt", ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: home, USERPROFILE: home, TERM: "dumb", ...env },
    encoding: "utf8",
    timeout: 240_000,
  });
  expect(child.status, `${child.stderr}\n${child.stdout}`).toBe(0);
  return child.stdout;
}

const TURBOFAN = /\[compiling method .*\(target TURBOFAN/;

describe("cold start: V8's optimizing compilers", () => {
  it("a short run through the bin queues nothing for TurboFan; with a tiering flag of the user's own, V8 tiers as it would", () => {
    // Module loading makes Node's own path functions hot enough for TurboFan in every short run.
    expect(tieringTrace([bin, "run", "--model", "test", "hi"], temp())).not.toMatch(TURBOFAN);
    expect(tieringTrace(["--maglev", bin, "run", "--model", "test", "hi"], temp())).toMatch(TURBOFAN);
  });

  it("a run that has used half a second of CPU gets them back", () => {
    // A timer of the process's own burns 0.6 s of CPU once the bin has set its flags, gives the
    // bin's check a turn, then runs its hot function again.
    const burn = `function burnUntil(end) { let n = 0; while (process.cpuUsage().user < end) n += Math.sqrt(n + 1); return n; }
setTimeout(() => { burnUntil(process.cpuUsage().user + 600_000); setTimeout(() => burnUntil(process.cpuUsage().user + 100_000), 450); }, 0);`;
    const trace = tieringTrace(
      ["--import", `data:text/javascript,${encodeURIComponent(burn)}`, bin, "run", "--model", "test", "hi"],
      temp(),
    );
    expect(trace).toMatch(/\[compiling method .*burnUntil.*\(target (TURBOFAN|MAGLEV)/);
  });
});
