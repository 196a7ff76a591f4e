/** Parity: the system prompt, memory files and settings files (seed README: "The system prompt", "Memory files", "Settings files"). */
import { afterEach, describe, expect, it, vi } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { call, run, systemOf, toolNames } from "./helpers";

const temp = tempDirs();
afterEach(() => {
  vi.unstubAllEnvs();
});
const home = tempHome();

async function systemFor(cwd: string, options: Record<string, unknown> = {}) {
  const model = scriptedModel(["done"]);
  await run("x", { model, cwd, ...options });
  return systemOf(model.requests[0]!);
}

describe("the system prompt", () => {
  it("systemPrompt replaces the base guidance; run sections are emitted either way; appendSystemPrompt comes last", async () => {
    const cwd = realpathSync(temp());
    const base = await systemFor(cwd);
    const own = await systemFor(cwd, {
      systemPrompt: "You are a release engineer. Do nothing else.",
      appendSystemPrompt: "Never touch files under vendor/.",
    });
    expect(own.startsWith("You are a release engineer. Do nothing else.")).toBe(true);
    // A sentence of the base guidance is gone; the run sections stay.
    const guidance = base
      .slice(0, base.indexOf(cwd))
      .split("\n")
      .find((l) => l.length > 40)!;
    expect(own).not.toContain(guidance);
    for (const s of [base, own]) {
      expect(s).toContain(cwd);
      expect(s).toContain(process.platform);
      expect(s).toContain("scripted");
      expect(s).toMatch(/\bRead\b/);
      expect(s).toMatch(/git/i);
      expect(s).toMatch(/den(y|ied)/i);
    }
    expect(own.trimEnd().endsWith("Never touch files under vendor/.")).toBe(true);
  });

  it("the run sections say whether the cwd is a git checkout, and which tools are in play", async () => {
    const cwd = realpathSync(temp());
    const plain = await systemFor(cwd);
    execFileSync("git", ["init", "-q", cwd]);
    const repo = await systemFor(cwd, { disallowedTools: ["Bash"] });
    expect(plain).toMatch(/Git repository: no/);
    expect(repo).toMatch(/Git repository: yes/);
    const toolsLine = (s: string) => s.split("# Tools\n")[1]!.split("\n")[0]!;
    expect(toolsLine(plain)).toContain("Bash");
    expect(toolsLine(repo)).not.toContain("Bash");
    expect(toolsLine(repo)).toContain("Read");
  });

  it("memory comes after the run sections and right before appendSystemPrompt, weakest first: user, project, local, explicit", async () => {
    const cwd = realpathSync(temp());
    mkdirSync(join(cwd, "sub"));
    writeTree(home(), { ".ubiquity/UBIQUITY.md": "MEM-USER" });
    writeTree(cwd, {
      "UBIQUITY.md": "MEM-PROJECT-ROOT",
      "sub/UBIQUITY.md": "MEM-PROJECT-SUB",
      "sub/UBIQUITY.local.md": "MEM-LOCAL",
      "sub/docs/conventions.md": "MEM-EXPLICIT",
    });
    const s = await systemFor(join(cwd, "sub"), {
      trust: true,
      memorySources: ["user", "project", "local"],
      memory: ["./docs/conventions.md"],
      appendSystemPrompt: "APPENDED-LAST",
    });
    const order = ["MEM-USER", "MEM-PROJECT-ROOT", "MEM-PROJECT-SUB", "MEM-LOCAL", "MEM-EXPLICIT", "APPENDED-LAST"].map(
      (t) => s.indexOf(t),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(s.indexOf(join(cwd, "sub"))).toBeLessThan(order[0]!);
  });

  it("nothing is read unless asked", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { "UBIQUITY.md": "MEM-PROJECT" });
    expect(await systemFor(cwd)).not.toContain("MEM-PROJECT");
  });

  it("@path includes a file after its includer; not inside code; not from outside the cwd; not e-mail addresses", async () => {
    const cwd = realpathSync(temp());
    writeTree(home(), { "secret.md": "HOME-SECRET" });
    writeTree(cwd, {
      "UBIQUITY.md":
        "Style rules live in @docs/style.md, and (@docs/release.md). Mail me@example.com.\n\n```\n@docs/fenced.md\n```\nAlso `@docs/inline.md` and @~/secret.md\n",
      "docs/style.md": "INCLUDED-STYLE",
      "docs/release.md": "INCLUDED-RELEASE",
      "docs/fenced.md": "INCLUDED-FENCED",
      "docs/inline.md": "INCLUDED-INLINE",
      "example.com": "NOT-A-REF",
    });
    const s = await systemFor(cwd, { trust: true, memorySources: ["project"] });
    expect(s).toContain("INCLUDED-STYLE");
    expect(s).toContain("INCLUDED-RELEASE");
    expect(s).not.toContain("INCLUDED-FENCED");
    expect(s).not.toContain("INCLUDED-INLINE");
    expect(s).not.toContain("HOME-SECRET");
    expect(s).not.toContain("NOT-A-REF");
    expect(s.indexOf("Style rules live in")).toBeLessThan(s.indexOf("INCLUDED-STYLE"));
  });

  it("a memory file over 40,000 characters is cut with a marker naming the file", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { "UBIQUITY.md": `${"A".repeat(39_990)}TAIL-BEYOND-LIMIT${"B".repeat(1_000)}` });
    const s = await systemFor(cwd, { trust: true, memorySources: ["project"] });
    expect(s).not.toContain("TAIL-BEYOND-LIMIT");
    expect(s).toMatch(/UBIQUITY\.md/);
  });

  it("subagents inherit the run's memory", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { "UBIQUITY.md": "MEM-FOR-ALL" });
    const model = scriptedModel(({ request }) =>
      systemOf(request).includes("You are SUB.")
        ? "ok"
        : request.prompt.at(-1)?.role === "tool"
          ? "done"
          : call("Agent", { subagent_type: "sub", description: "x", prompt: "x" }, "a"),
    );
    await run("x", {
      model,
      cwd,
      trust: true,
      memorySources: ["project"],
      agents: { sub: { description: "s", prompt: "You are SUB." } },
    });
    const child = model.requests.find((r) => systemOf(r).includes("You are SUB."))!;
    expect(systemOf(child)).toContain("MEM-FOR-ALL");
  });
});

describe("settings files", () => {
  it("nothing is read unless settingSources asks", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { ".ubiquity/settings.json": JSON.stringify({ permissions: { deny: ["Bash"] } }) });
    const model = scriptedModel(["done"]);
    await run("x", { model, cwd });
    expect(toolNames(model.requests[0])).toContain("Bash");
  });

  it("permission rules are unioned: a settings deny survives the caller's own list", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { ".ubiquity/settings.json": JSON.stringify({ permissions: { deny: ["Bash(touch:*)"] } }) });
    const x = join(cwd, "x");
    const model = scriptedModel([call("Bash", { command: `touch ${x}` }, "b"), "done"]);
    const messages = await run("x", {
      model,
      cwd,
      trust: true,
      settingSources: ["project"],
      permissionMode: "bypassPermissions",
      disallowedTools: ["Bash(rm:*)"],
    });
    expect(ofType(messages, "tool_result")[0]!.output.isError).toBe(true);
    expect(existsSync(x)).toBe(false);
  });

  it("local beats project beats user; explicit options beat all three", async () => {
    const cwd = realpathSync(temp());
    writeTree(home(), { ".ubiquity/settings.json": JSON.stringify({ env: { A: "user", B: "user", C: "user" } }) });
    writeTree(cwd, {
      ".ubiquity/settings.json": JSON.stringify({ env: { B: "project", C: "project" } }),
      ".ubiquity/settings.local.json": JSON.stringify({ env: { C: "local" } }),
    });
    const model = scriptedModel([call("Bash", { command: "echo $A-$B-$C-$D" }, "b"), "done"]);
    const messages = await run("x", {
      model,
      cwd,
      trust: true,
      settingSources: ["user", "project", "local"],
      permissionMode: "bypassPermissions",
      env: { D: "explicit" },
    });
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("user-project-local-explicit");

    const m2 = scriptedModel([call("Bash", { command: "echo $C" }, "b"), "done"]);
    const r2 = await run("x", {
      model: m2,
      cwd,
      trust: true,
      settingSources: ["user", "project", "local"],
      permissionMode: "bypassPermissions",
      env: { C: "explicit" },
    });
    expect(ofType(r2, "tool_result")[0]!.output.content).toContain("explicit");
  });

  it("a settings model applies when options set none; an explicit model beats it", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { ".ubiquity/settings.json": JSON.stringify({ model: "test" }) });
    vi.stubEnv("UBIQUITY_MODEL", undefined);
    const r = await run("x", { cwd, trust: true, settingSources: ["project"] });
    expect(resultOf(r).isError).toBe(false);
    expect((r[0] as { model?: string }).model).toContain("test");
    const m = scriptedModel(["from scripted"]);
    expect(resultOf(await run("x", { model: m, cwd, trust: true, settingSources: ["project"] })).result).toBe(
      "from scripted",
    );
  });

  it('permissions.additionalDirectories ("../shared", as in the seed) widens the permitted folders', async () => {
    const root = realpathSync(temp());
    const cwd = join(root, "proj");
    mkdirSync(cwd);
    writeTree(root, { "shared/note.txt": "SHARED-NOTE" });
    writeTree(cwd, {
      ".ubiquity/settings.json": JSON.stringify({ permissions: { additionalDirectories: ["../shared"] } }),
    });
    const model = scriptedModel([call("Read", { file_path: join(root, "shared", "note.txt") }, "r"), "done"]);
    const messages = await run("x", { model, cwd, settingSources: ["project"] });
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("SHARED-NOTE");
    const m2 = scriptedModel([call("Read", { file_path: join(root, "shared", "note.txt") }, "r"), "done"]);
    const without = await run("x", { model: m2, cwd });
    expect(ofType(without, "tool_result")[0]!.output.isError).toBe(true);
  });
});
